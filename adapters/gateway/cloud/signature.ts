// Authenticity of a WhatsApp Cloud API webhook POST. Meta: "We sign all Event Notification payloads
// with a SHA256 signature and include the signature in the request's X-Hub-Signature-256 header,
// preceded with sha256=" — the hex HMAC-SHA256 of the payload keyed with the app secret
// (developers.facebook.com/docs/graph-api/webhooks/getting-started and …/whatsapp/webhooks/
// create-webhook-endpoint, as quoted in reference whatsapp-providers.md §2.2). Verified over the raw
// bytes as received (never a re-serialised JSON), compared in constant time.
//
// Choosing the secret: the body names the business phone number(s) it is about
// (`entry[].changes[].value.metadata.phone_number_id`); each is an instance's `external_id`, whose
// `app_secret` must verify the signature. Decision for a body naming several phone number ids: EVERY
// one must be a known instance AND the signature must verify with EACH one's app secret, else the
// whole request is refused (401). Several numbers of one Meta app share its app secret, so a real
// batch passes; a body signed with one tenant's app secret cannot carry messages for another
// tenant's number. A body naming no phone number id (e.g. a template-status field) cannot be tied
// to an instance and is refused too.
import { createHmac, timingSafeEqual } from 'node:crypto';

const HEADER = /^sha256=([0-9a-fA-F]{64})$/;
/** Most distinct phone number ids one request may name (each costs a secret lookup); more: refused. */
export const MAX_PHONE_NUMBER_IDS = 20;

/** True when `header` is `sha256=<hex HMAC-SHA256 of rawBody keyed with appSecret>`. Malformed or missing: false. */
export function verifyCloudSignature(rawBody: Buffer, header: string | undefined, appSecret: string): boolean {
  if (typeof header !== 'string' || typeof appSecret !== 'string' || appSecret === '' || !Buffer.isBuffer(rawBody)) return false;
  const match = HEADER.exec(header.trim());
  if (!match) return false;
  const given = Buffer.from(match[1]!, 'hex');
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** `sha256=<hex>`: the header Meta would send for this body and app secret (for tests and tools). */
export function cloudSignatureHeader(rawBody: Buffer | string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

/**
 * The phone number ids the raw body names (`entry[].changes[].value.metadata.phone_number_id`), once
 * each, in order; [] when the body is not JSON or names none. Every non-empty string is taken, so an
 * id no instance has makes the request fail rather than pass unchecked.
 */
export function cloudPhoneNumberIds(rawBody: Buffer | string): string[] {
  let body: unknown;
  try {
    body = JSON.parse(Buffer.isBuffer(rawBody) ? rawBody.toString('utf8') : rawBody);
  } catch {
    return [];
  }
  const ids: string[] = [];
  const entries = (body as { entry?: unknown } | null)?.entry;
  if (!Array.isArray(entries)) return ids;
  for (const entry of entries) {
    const changes = (entry as { changes?: unknown } | null)?.changes;
    if (!Array.isArray(changes)) continue;
    for (const change of changes) {
      const id = (change as { value?: { metadata?: { phone_number_id?: unknown } } } | null)?.value?.metadata?.phone_number_id;
      if (typeof id === 'string' && id !== '' && !ids.includes(id)) ids.push(id);
    }
  }
  return ids;
}

/** The signature decision: the phone number ids the body names (each a known instance whose app secret verifies it), or why it is refused. */
export type CloudAuthResult = { ok: true; phone_number_ids: string[] } | { ok: false; reason: string };

/** The app secret of the instance whose `external_id` is this phone number id; undefined/null/'' when none. */
export type AppSecretOf = (phoneNumberId: string) => string | null | undefined;

/** The decision above, with the secrets at hand (e.g. a cache of the instances): usable where only a synchronous check fits. */
export function verifyCloudWebhook(rawBody: Buffer, header: string | undefined, secretOf: AppSecretOf): CloudAuthResult {
  const ids = cloudPhoneNumberIds(rawBody);
  if (ids.length > MAX_PHONE_NUMBER_IDS) return tooMany(ids);
  return decide(
    ids,
    rawBody,
    header,
    ids.map((id) => secretOf(id)),
  );
}

/** The same decision, looking each secret up (e.g. in the database). Rejects only when a lookup rejects. */
export async function authenticateCloudWebhook(
  rawBody: Buffer,
  header: string | undefined,
  secretOf: (phoneNumberId: string) => Promise<string | null | undefined> | string | null | undefined,
): Promise<CloudAuthResult> {
  const ids = cloudPhoneNumberIds(rawBody);
  if (ids.length > MAX_PHONE_NUMBER_IDS) return tooMany(ids);
  const secrets = await Promise.all(ids.map((id) => secretOf(id)));
  return decide(ids, rawBody, header, secrets);
}

function tooMany(ids: string[]): CloudAuthResult {
  return { ok: false, reason: `the event names ${ids.length} phone number ids (at most ${MAX_PHONE_NUMBER_IDS})` };
}

function decide(ids: string[], rawBody: Buffer, header: string | undefined, secrets: Array<string | null | undefined>): CloudAuthResult {
  if (ids.length === 0) return { ok: false, reason: 'the event names no phone number id' };
  if (typeof header !== 'string' || !HEADER.test(header.trim())) return { ok: false, reason: 'missing or malformed X-Hub-Signature-256' };
  for (const [i, id] of ids.entries()) {
    const secret = secrets[i];
    const shown = JSON.stringify(id.slice(0, 40));
    if (typeof secret !== 'string' || secret === '')
      return { ok: false, reason: `phone number id ${shown} is not a Cloud API instance with an app secret` };
    if (!verifyCloudSignature(rawBody, header, secret))
      return { ok: false, reason: `signature does not verify for phone number id ${shown}` };
  }
  return { ok: true, phone_number_ids: ids };
}
