// X-Hub-Signature-256 over the raw bytes (non-ASCII body included), the phone number ids of a body,
// and the per-instance decision for bodies naming one or several business numbers.
import { describe, expect, it } from 'vitest';
import {
  authenticateCloudWebhook,
  cloudPhoneNumberIds,
  cloudSignatureHeader,
  MAX_PHONE_NUMBER_IDS,
  verifyCloudSignature,
  verifyCloudWebhook,
} from '../../adapters/gateway/cloud/signature.js';
import { CLOUD_PHONE_NUMBER_ID, cloudBatchWebhook, cloudEnvelope, cloudTextWebhook, signCloudBody } from '../fakes/cloud-webhooks.js';

const SECRET = 'app-secret-3f1c9a';
const raw = Buffer.from(JSON.stringify(cloudTextWebhook({ from: '554399806366', text: 'Olá, é sobre o clareamento 😁' })), 'utf8');

describe('verifyCloudSignature', () => {
  it('accepts sha256=<hex HMAC-SHA256 of the raw bytes>, upper-case hex and surrounding spaces included', () => {
    const header = signCloudBody(raw, SECRET);
    expect(header).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyCloudSignature(raw, header, SECRET)).toBe(true);
    expect(verifyCloudSignature(raw, `sha256=${header.slice(7).toUpperCase()}`, SECRET)).toBe(true);
    expect(verifyCloudSignature(raw, ` ${header} `, SECRET)).toBe(true);
    expect(cloudSignatureHeader(raw, SECRET)).toBe(header);
  });

  it('refuses another secret, a changed byte, a re-serialised body, and malformed or missing headers', () => {
    const header = signCloudBody(raw, SECRET);
    expect(verifyCloudSignature(raw, header, 'other-secret')).toBe(false);
    const changed = Buffer.from(raw);
    changed[changed.length - 3] = (changed[changed.length - 3]! + 1) % 256;
    expect(verifyCloudSignature(changed, header, SECRET)).toBe(false);
    // Meta signs the bytes it sent: a body with escaped non-ASCII (same JSON value) does not verify.
    const escaped = Buffer.from(
      JSON.stringify(JSON.parse(raw.toString('utf8'))).replace(
        /[\u0080-\uffff]/g,
        (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
      ),
    );
    expect(escaped.equals(raw)).toBe(false);
    expect(verifyCloudSignature(escaped, header, SECRET)).toBe(false);
    for (const bad of [undefined, '', header.slice(7), `sha1=${header.slice(7)}`, `${header}00`, 'sha256=zz', `sha256=${'0'.repeat(64)}`])
      expect(verifyCloudSignature(raw, bad, SECRET)).toBe(false);
    expect(verifyCloudSignature(raw, header, '')).toBe(false);
  });
});

describe('cloudPhoneNumberIds', () => {
  it('every metadata.phone_number_id of the body once, in order; [] for non-JSON or none', () => {
    const batch = cloudBatchWebhook(
      { from: '554399806366', texts: ['a', 'b'] },
      { from: '5511987654321', text: 'c', phoneNumberId: '222222222222222' },
    );
    expect(cloudPhoneNumberIds(Buffer.from(JSON.stringify(batch)))).toEqual([CLOUD_PHONE_NUMBER_ID, '222222222222222']);
    expect(cloudPhoneNumberIds(raw)).toEqual([CLOUD_PHONE_NUMBER_ID]);
    expect(cloudPhoneNumberIds('not json')).toEqual([]);
    expect(cloudPhoneNumberIds(JSON.stringify(cloudEnvelope([{ field: 'account_update', value: {} }])))).toEqual([]);
    expect(cloudPhoneNumberIds('null')).toEqual([]);
  });
});

describe('authenticating a body for its instances', () => {
  const batch = Buffer.from(
    JSON.stringify(
      cloudBatchWebhook(
        { from: '554399806366', texts: ['a', 'b'] },
        { from: '5511987654321', text: 'c', phoneNumberId: '222222222222222' },
      ),
    ),
  );

  it('one number: its instance app secret must verify', async () => {
    const secrets: Record<string, string> = { [CLOUD_PHONE_NUMBER_ID]: SECRET };
    const lookup = async (id: string) => secrets[id];
    expect(await authenticateCloudWebhook(raw, signCloudBody(raw, SECRET), lookup)).toEqual({
      ok: true,
      phone_number_ids: [CLOUD_PHONE_NUMBER_ID],
    });
    expect(await authenticateCloudWebhook(raw, signCloudBody(raw, 'nope'), lookup)).toEqual({
      ok: false,
      reason: `signature does not verify for phone number id "${CLOUD_PHONE_NUMBER_ID}"`,
    });
    expect(await authenticateCloudWebhook(raw, undefined, lookup)).toMatchObject({
      ok: false,
      reason: 'missing or malformed X-Hub-Signature-256',
    });
  });

  it('several numbers of one app (same secret): accepted; each secret is looked up', async () => {
    const asked: string[] = [];
    const result = await authenticateCloudWebhook(batch, signCloudBody(batch, SECRET), async (id) => {
      asked.push(id);
      return SECRET;
    });
    expect(result).toEqual({ ok: true, phone_number_ids: [CLOUD_PHONE_NUMBER_ID, '222222222222222'] });
    expect(asked).toEqual([CLOUD_PHONE_NUMBER_ID, '222222222222222']);
  });

  it("several numbers with different secrets: refused, whichever one signed (one tenant cannot speak for another's number)", () => {
    const secrets: Record<string, string> = { [CLOUD_PHONE_NUMBER_ID]: SECRET, '222222222222222': 'tenant-b-secret' };
    expect(verifyCloudWebhook(batch, signCloudBody(batch, SECRET), (id) => secrets[id])).toMatchObject({
      ok: false,
      reason: 'signature does not verify for phone number id "222222222222222"',
    });
    expect(verifyCloudWebhook(batch, signCloudBody(batch, 'tenant-b-secret'), (id) => secrets[id])).toMatchObject({ ok: false });
  });

  it('a number that is no instance (or has no app secret): refused; a body naming no number: refused', () => {
    expect(verifyCloudWebhook(batch, signCloudBody(batch, SECRET), (id) => (id === CLOUD_PHONE_NUMBER_ID ? SECRET : undefined))).toEqual({
      ok: false,
      reason: 'phone number id "222222222222222" is not a Cloud API instance with an app secret',
    });
    const none = Buffer.from(JSON.stringify(cloudEnvelope([{ field: 'account_update', value: {} }])));
    expect(verifyCloudWebhook(none, signCloudBody(none, SECRET), () => SECRET)).toEqual({
      ok: false,
      reason: 'the event names no phone number id',
    });
  });

  it(`a body naming more than ${MAX_PHONE_NUMBER_IDS} numbers is refused without a single lookup`, async () => {
    const changes = Array.from({ length: MAX_PHONE_NUMBER_IDS + 1 }, (_, i) => ({
      field: 'messages',
      value: { metadata: { phone_number_id: String(1000 + i) }, statuses: [] },
    }));
    const body = Buffer.from(JSON.stringify(cloudEnvelope(changes)));
    let lookups = 0;
    const result = await authenticateCloudWebhook(body, signCloudBody(body, SECRET), async () => {
      lookups++;
      return SECRET;
    });
    expect(result).toMatchObject({ ok: false });
    expect(lookups).toBe(0);
  });
});
