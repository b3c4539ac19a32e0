// Evidence of accepted sends (adapters/gateway/send-evidence.ts): what each provider's webhooks
// confirm, how it is kept and awaited, and what a take-over does with a started send
// (nodes/messaging/lib/send-recovery.ts) with and without it, under each policy.
import { afterEach, describe, expect, it } from 'vitest';
import { cloudSendConfirmations } from '../../adapters/gateway/cloud/send-confirmations.js';
import { evolutionSendConfirmations } from '../../adapters/gateway/evolution/send-confirmations.js';
import { EvolutionClient } from '../../adapters/gateway/evolution/client.js';
import type { GatewayClient } from '../../adapters/gateway/gateway-client.js';
import { SendEvidence, type SendRecoveryEvent, idEvidenceKey, textEvidenceKey } from '../../adapters/gateway/send-evidence.js';
import { UazapiClient } from '../../adapters/gateway/uazapi/client.js';
import { uazapiSendConfirmations } from '../../adapters/gateway/uazapi/send-confirmations.js';
import { uazapiInbound } from '../../adapters/gateway/uazapi/auth.js';
import { MemoryKeyValue } from '../../adapters/kv/memory-key-value.js';
import { settleStartedSend } from '../../nodes/messaging/lib/send-recovery.js';
import { evolutionEvent } from '../fakes/evolution-server.js';
import { cloudStatusWebhook } from '../fakes/cloud-webhooks.js';
import { leadTextEvent } from '../helpers/uazapi-events.js';

const SEND_ID = '0123456789abcdef0123456789abcdef';
let kv: MemoryKeyValue;
afterEach(async () => {
  await kv?.close();
});

function uazapiEcho(track: { source: string; id: string }) {
  const event = leadTextEvent({ phone: '5543999806366', text: 'Olá!', token: 't', owner: '5511912345678' });
  Object.assign(event.message, { fromMe: true, wasSentByApi: true, track_source: track.source, track_id: track.id, messageid: '3EB0ABC' });
  return event;
}

describe('what each provider confirms', () => {
  it("uazapi: the echo of an API send carrying LeadFlow's tracking tags, under its message id; nothing else", () => {
    expect(uazapiSendConfirmations(uazapiEcho({ source: 'leadflow', id: SEND_ID }))).toEqual([
      { key: idEvidenceKey(SEND_ID), messageid: '3EB0ABC' },
    ]);
    expect(uazapiSendConfirmations(uazapiEcho({ source: 'sdr-bot', id: SEND_ID }))).toEqual([]);
    expect(uazapiSendConfirmations(uazapiEcho({ source: 'leadflow', id: '' }))).toEqual([]);
    const typedByHand = uazapiEcho({ source: 'leadflow', id: SEND_ID });
    typedByHand.message.wasSentByApi = false;
    expect(uazapiSendConfirmations(typedByHand)).toEqual([]);
    expect(uazapiSendConfirmations(null)).toEqual([]);
  });

  it("uazapi's client sends the tags, and names the evidence it will get by the send id", () => {
    const client = new UazapiClient({ serverUrl: 'http://127.0.0.1:9', token: 't' });
    const request = { number: '5543999806366', text: 'Olá!', send_id: SEND_ID };
    expect(client.describe(request && { op: 'send-text', request }).body).toMatchObject({ track_source: 'leadflow', track_id: SEND_ID });
    expect(client.sendEvidenceKey(request)).toBe(idEvidenceKey(SEND_ID));
    expect(client.sendEvidenceKey({ number: '5543999806366', text: 'Olá!' })).toBeNull();
  });

  it('Evolution: send.message confirms the text to that number, whichever form of a Brazilian mobile either side used', () => {
    const event = evolutionEvent('from-me-api', { id: '3EB0XYZ', phone: '554399806366', text: 'Olá Maria!' });
    const [confirmed] = evolutionSendConfirmations(event);
    expect(confirmed).toEqual({ key: textEvidenceKey('5543999806366', 'Olá Maria!'), messageid: '3EB0XYZ' });
    const client = new EvolutionClient({ serverUrl: 'http://127.0.0.1:9', token: 't', instanceName: 'i' });
    expect(client.sendEvidenceKey({ number: '5543999806366', text: 'Olá Maria! ' })).toBe(confirmed!.key);
    expect(client.sendEvidenceKey({ number: '5543999806366', text: 'Olá João!' })).not.toBe(confirmed!.key);
    // A message typed on another device (messages.upsert) or a status confirms nothing.
    expect(evolutionSendConfirmations(evolutionEvent('from-me-phone', { text: 'Olá Maria!' }))).toEqual([]);
    expect(evolutionSendConfirmations(evolutionEvent('messages-update', {}))).toEqual([]);
  });

  it('Cloud: every status but failed that carries the send id, with its phone number id and wamid', () => {
    const status = (s: 'sent' | 'delivered' | 'failed', data?: string) => {
      const body = cloudStatusWebhook({ phoneNumberId: '106540352242922', recipient: '5543999806366', status: s, messageId: `wamid.${s}` });
      if (data !== undefined) body.entry[0].changes[0].value.statuses[0].biz_opaque_callback_data = data;
      return body;
    };
    expect(cloudSendConfirmations(status('sent', SEND_ID))).toEqual([
      { phone_number_id: '106540352242922', key: idEvidenceKey(SEND_ID), messageid: 'wamid.sent' },
    ]);
    expect(cloudSendConfirmations(status('delivered', SEND_ID))).toHaveLength(1);
    expect(cloudSendConfirmations(status('failed', SEND_ID))).toEqual([]);
    expect(cloudSendConfirmations(status('sent'))).toEqual([]);
  });

  it("uazapi's inbound side records the echo as evidence before the event goes on", async () => {
    kv = new MemoryKeyValue();
    const instance = {
      id: 7,
      clinica_id: 1,
      provider: 'uazapi' as const,
      nome: 'x',
      external_id: null,
      token: 't',
      app_secret: null,
      verify_token: null,
    };
    const lookup = { byToken: async () => instance, byExternalId: async () => undefined, byVerifyToken: async () => undefined };
    const body = uazapiEcho({ source: 'leadflow', id: SEND_ID });
    const raw = Buffer.from(JSON.stringify(body));
    const accepted = await uazapiInbound.accept({ raw, body, header: () => undefined, query: {} } as any, lookup, {
      kv,
      gateway: (() => {
        throw new Error('no client needed');
      }) as any,
      instances: { get: async () => undefined },
    });
    expect('events' in accepted && accepted.events).toHaveLength(1);
    expect(await new SendEvidence(kv).find(7, idEvidenceKey(SEND_ID))).toEqual({ messageid: '3EB0ABC' });
    expect(await new SendEvidence(kv).find(8, idEvidenceKey(SEND_ID))).toBeNull();
  });
});

describe('SendEvidence', () => {
  it('keeps the first report of a send, per instance; a send with no message id reads as null', async () => {
    kv = new MemoryKeyValue();
    const evidence = new SendEvidence(kv);
    expect(await evidence.find(1, 'id:a')).toBeNull();
    await evidence.record(1, 'id:a', 'wamid.1');
    await evidence.record(1, 'id:a', 'wamid.2');
    await evidence.record(1, 'id:b', null);
    expect(await evidence.find(1, 'id:a')).toEqual({ messageid: 'wamid.1' });
    expect(await evidence.find(1, 'id:b')).toEqual({ messageid: null });
    expect(await evidence.find(2, 'id:a')).toBeNull();
  });

  it('waitFor: resolves when the report comes during the wait, null when it never does, and stops on abort', async () => {
    kv = new MemoryKeyValue();
    const evidence = new SendEvidence(kv, { pollMs: 10 });
    setTimeout(() => void evidence.record(1, 'id:late', 'm1'), 50);
    expect(await evidence.waitFor(1, 'id:late', 5_000)).toEqual({ messageid: 'm1' });
    expect(await evidence.waitFor(1, 'id:never', 60)).toBeNull();
    const abort = new AbortController();
    setTimeout(() => abort.abort(new Error('step cancelled')), 30);
    await expect(evidence.waitFor(1, 'id:never', 5_000, abort.signal)).rejects.toThrow('step cancelled');
  });
});

describe('a started send after a take-over (settleStartedSend)', () => {
  const client = (key: string | null) => ({ provider: 'uazapi', sendEvidenceKey: () => key }) as unknown as GatewayClient;
  const context = (events: SendRecoveryEvent[]) =>
    ({
      services: { kv, sendRecoveries: (e: SendRecoveryEvent) => events.push(e) },
      log: () => {},
    }) as any;
  const request = { number: '5543999806366', text: 'Olá!', send_id: SEND_ID };

  it('with evidence: delivered under its message id, counted confirmed, whatever the policy', async () => {
    kv = new MemoryKeyValue();
    await new SendEvidence(kv).record(3, idEvidenceKey(SEND_ID), 'm9');
    const events: SendRecoveryEvent[] = [];
    for (const policy of ['resend', 'skip'] as const) {
      const settled = await settleStartedSend(context(events), client(idEvidenceKey(SEND_ID)), request, {
        instanceId: 3,
        waitMs: 0,
        policy,
      });
      expect(settled).toEqual({ delivered: true, messageid: 'm9' });
    }
    expect(events).toEqual([
      { provider: 'uazapi', outcome: 'confirmed' },
      { provider: 'uazapi', outcome: 'confirmed' },
    ]);
  });

  it('without evidence: `resend` sends again, `skip` counts it delivered with no id; a provider with no evidence key goes straight to the policy', async () => {
    kv = new MemoryKeyValue();
    const events: SendRecoveryEvent[] = [];
    const started = Date.now();
    expect(
      await settleStartedSend(context(events), client(idEvidenceKey(SEND_ID)), request, { instanceId: 3, waitMs: 80, policy: 'resend' }),
    ).toEqual({
      delivered: false,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
    expect(await settleStartedSend(context(events), client(null), request, { instanceId: 3, waitMs: 60_000, policy: 'skip' })).toEqual({
      delivered: true,
      messageid: null,
    });
    expect(events).toEqual([
      { provider: 'uazapi', outcome: 'resent' },
      { provider: 'uazapi', outcome: 'skipped' },
    ]);
  });
});
