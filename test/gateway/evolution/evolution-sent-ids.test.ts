// LeadFlow's own Evolution sends echoed back (Evolution issue #1340) are told from a person typing
// on the clinic's phone: the ids the sends got back are noted per instance on the key-value store
// (adapters/gateway/evolution/sent-ids.ts: 10 minutes, at most 1024 slots per instance, keys without
// a phone), by the client the provider builds, and gateway.parse marks a fromMe message with such an
// id `sent_by_api`; any other fromMe message stays a takeover. On the in-process store and on Redis,
// read through a second client (another process, as far as the data is concerned).
import { afterEach, describe, expect, it } from 'vitest';
import { EvolutionSentIds, SENT_ID_SLOTS, SENT_ID_TTL_MS } from '../../../adapters/gateway/evolution/sent-ids.js';
import type { GatewayInstanceAccess } from '../../../adapters/gateway/gateway-client.js';
import type { GatewayMessage } from '../../../adapters/gateway/gateway-message.js';
import { gatewayProviders } from '../../../adapters/gateway/providers.js';
import type { KeyValue } from '../../../adapters/kv/key-value.js';
import { MemoryKeyValue } from '../../../adapters/kv/memory-key-value.js';
import { evolutionEvent, startFakeEvolution } from '../../fakes/evolution-server.js';
import { forEachKeyValue, useFreshKeyValue } from '../../helpers/key-values.js';
import { pollFor } from '../../helpers/poll.js';
import { runFlow, shutdownEngines, stepOutput } from '../../helpers/run-flow.js';

afterEach(shutdownEngines);

const INSTANCE = 'clinica-aurora';
const KEY = 'evo-instance-key';

const row = (serverUrl: string, extra: Partial<GatewayInstanceAccess> = {}): GatewayInstanceAccess => ({
  id: 7,
  provider: 'evolution',
  server_url: serverUrl,
  token: KEY,
  external_id: INSTANCE,
  templates: null,
  ...extra,
});

/** gateway.parse of `event` for instance `instanceId` (null: none named), with the host's `kv`. */
async function parseStep(event: unknown, kv: KeyValue, instanceId: number | null): Promise<Record<string, unknown>> {
  const flow = `name: parse
steps:
  - id: msg
    type: gateway.parse
    params: { event: "{{ trigger.body }}", provider: evolution, instance_id: ${instanceId === null ? 'null' : instanceId} }
`;
  const { record } = await runFlow(flow, { body: event as never, engine: { services: { gatewayProviders, kv } } });
  expect(record.status).toBe('success');
  return stepOutput(record, 'msg') as Record<string, unknown>;
}

forEachKeyValue('evolution sent ids', (open) => {
  const store = useFreshKeyValue(open);

  it('an id noted on an instance is found from another client, on that instance only; others are not', async () => {
    await new EvolutionSentIds(store.current.kv).note(7, '3EB0AAAA00000000000001');
    const other = new EvolutionSentIds(store.current.openAnother());
    expect(await other.has(7, '3EB0AAAA00000000000001')).toBe(true);
    expect(await other.has(8, '3EB0AAAA00000000000001')).toBe(false);
    expect(await other.has(7, '3EB0AAAA00000000000002')).toBe(false);
    expect(await other.has(7, '')).toBe(false);
  });

  it('bounded: at most `slots` keys per instance (a later id in a slot replaces the older), each key without a phone', async () => {
    const ids = new EvolutionSentIds(store.current.kv, { slots: 4 });
    const sent = Array.from({ length: 40 }, (_, i) => `3EB0BOUND${String(i).padStart(13, '0')}`);
    for (const id of sent) await ids.note(7, id);
    const kept = (await Promise.all(sent.map((id) => ids.has(7, id)))).filter(Boolean).length;
    expect(kept).toBeGreaterThanOrEqual(1);
    expect(kept).toBeLessThanOrEqual(4);
    expect(await ids.has(7, sent.at(-1)!)).toBe(true);
    // Every key is `evolution-sent:<instance>:<slot>`: as many as slots at most, none holding a phone.
    expect(await store.current.kv.deleteByPrefix('evolution-sent:7:')).toBeLessThanOrEqual(4);
    expect(SENT_ID_SLOTS).toBe(1024);
  });

  it('an id is kept for the TTL (10 minutes by default), then forgotten', async () => {
    expect(SENT_ID_TTL_MS).toBe(600_000);
    const ids = new EvolutionSentIds(store.current.kv, { ttlMs: 150 });
    await ids.note(7, '3EB0TTL0000000000000001');
    expect(await ids.has(7, '3EB0TTL0000000000000001')).toBe(true);
    await pollFor('the noted id to expire', async () => !(await ids.has(7, '3EB0TTL0000000000000001')));
  });

  it('concurrent notes of one slot through several clients: each ends, and the slot holds exactly one of the ids', async () => {
    const clients = [store.current.kv, store.current.openAnother(), store.current.openAnother()];
    const sent = Array.from({ length: 12 }, (_, i) => `3EB0RACE${String(i).padStart(14, '0')}`);
    await Promise.all(sent.map((id, i) => new EvolutionSentIds(clients[i % 3]!, { slots: 1 }).note(7, id)));
    const ids = new EvolutionSentIds(store.current.kv, { slots: 1 });
    const found = (await Promise.all(sent.map((id) => ids.has(7, id)))).filter(Boolean);
    expect(found).toHaveLength(1);
  });

  it("the provider's client notes every id it sent; gateway.parse marks that id's echo sent_by_api, not another fromMe message", async () => {
    const fake = await startFakeEvolution({ instances: { [INSTANCE]: KEY } });
    try {
      const client = gatewayProviders.clientFactory({ kv: store.current.kv })(row(fake.url));
      const sent = await client.sendText({ number: '5511987654321', text: 'Olá! Como posso ajudar?' });
      expect(sent.messageid).toMatch(/^3EB0/);
      const echo = evolutionEvent('api-echo', { instance: INSTANCE, id: sent.messageid!, phone: '5511987654321' });
      const typed = evolutionEvent('from-me-phone', { instance: INSTANCE, phone: '5511987654321' });
      const kv = store.current.openAnother();
      expect(await parseStep(echo, kv, 7)).toMatchObject({ ignored: false, from_me: true, sent_by_api: true, message_id: sent.messageid });
      expect(await parseStep(typed, kv, 7)).toMatchObject({ ignored: false, from_me: true, sent_by_api: false });
      // Another instance's echo of the same id is not this send's; without the instance nothing is read.
      expect(await parseStep(echo, kv, 8)).toMatchObject({ from_me: true, sent_by_api: false });
      expect(await parseStep(echo, kv, null)).toMatchObject({ from_me: true, sent_by_api: false });
      const module = gatewayProviders.get('evolution');
      const parsed = gatewayProviders.parse('evolution', echo) as GatewayMessage;
      expect(await module.sentByApi!(parsed, 7, kv)).toBe(true);
    } finally {
      await fake.close();
    }
  });

  it("an echo that overtakes the send's answer is LeadFlow's too (its text was noted before the call); a different text typed by hand is not", async () => {
    const fake = await startFakeEvolution({ instances: { [INSTANCE]: KEY } });
    try {
      fake.failNext('hang', 1, { ms: 400 });
      const client = gatewayProviders.clientFactory({ kv: store.current.kv })(row(fake.url));
      const sending = client.sendText({ number: '5543999806366', text: 'Posso te explicar como funciona?' });
      await pollFor('the send to reach Evolution', async () => fake.requestsTo('/message/sendText/').length === 1);
      // Evolution's echo names an id LeadFlow does not know yet, and the legacy 12-digit number.
      const kv = store.current.openAnother();
      const echo = evolutionEvent('api-echo', {
        instance: INSTANCE,
        id: '3EB0OVERTAKE000000000001',
        phone: '554399806366',
        text: 'Posso te explicar como funciona?',
      });
      const typed = evolutionEvent('from-me-phone', { instance: INSTANCE, phone: '554399806366', text: 'Oi, aqui é a Júlia da recepção' });
      expect(await parseStep(echo, kv, 7)).toMatchObject({ from_me: true, sent_by_api: true });
      expect(await parseStep(typed, kv, 7)).toMatchObject({ from_me: true, sent_by_api: false });
      expect(await parseStep(echo, kv, 8)).toMatchObject({ from_me: true, sent_by_api: false });
      await sending;
    } finally {
      await fake.close();
    }
  });
});

describe('evolution sent ids: the send', () => {
  it('a client built without the store or the instance id sends as before and notes nothing', async () => {
    const fake = await startFakeEvolution({ instances: { [INSTANCE]: KEY } });
    try {
      const kv = new MemoryKeyValue();
      const noId = gatewayProviders.clientFactory({ kv })(row(fake.url, { id: undefined }));
      const noKv = gatewayProviders.clientFactory()(row(fake.url));
      const a = await noId.sendText({ number: '5511987654321', text: 'Oi' });
      const b = await noKv.sendText({ number: '5511987654321', text: 'Oi' });
      expect(await new EvolutionSentIds(kv).has(7, a.messageid!)).toBe(false);
      expect(await new EvolutionSentIds(kv).has(7, b.messageid!)).toBe(false);
      await kv.close();
    } finally {
      await fake.close();
    }
  });

  it('a store that fails to note the send and its id: the send still succeeds (it went out), with warnings naming no credential', async () => {
    const fake = await startFakeEvolution({ instances: { [INSTANCE]: KEY } });
    try {
      const kv = new MemoryKeyValue();
      await kv.close();
      const broken: KeyValue = Object.assign(Object.create(kv) as KeyValue, {
        lockHolder: async () => {
          throw new Error('store unavailable');
        },
      });
      const warnings: Array<{ fields: object; message: string }> = [];
      const client = gatewayProviders.clientFactory({
        kv: broken,
        logger: { warn: (fields, message) => warnings.push({ fields, message }) },
      })(row(fake.url));
      const sent = await client.sendText({ number: '5511987654321', text: 'Oi' });
      expect(sent.messageid).toMatch(/^3EB0/);
      expect(fake.sent).toHaveLength(1);
      expect(warnings).toEqual([
        {
          fields: { instance: INSTANCE, error: expect.any(String) },
          message:
            "evolution: the send was not noted before its call; an echo overtaking its answer would count as typed on the clinic's phone",
        },
        {
          fields: { instance: INSTANCE, message_id: sent.messageid, error: 'store unavailable' },
          message: "evolution: the sent message's id was not kept; an echo of it would count as typed on the clinic's phone",
        },
      ]);
      expect(JSON.stringify(warnings)).not.toContain(KEY);
    } finally {
      await fake.close();
    }
  });
});
