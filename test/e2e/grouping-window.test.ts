// A burst interrupted in its grouping window (CONTRACT §8, §9; flows/agent.yaml's lock: `gone` and
// `paused_meanwhile`), end to end over HTTP on both backends (test/e2e/stack.ts), on the shipped
// flows and the fake gateway (uazapi) and AI providers. A lead sends a burst; once every message of
// it waits in the window (the executions are `waiting` at `burst`), something happens to the lead:
//   - takeover: a person types in the chat on the clinic's phone;
//   - handoff: POST /handoff-agenteia for the lead;
//   - opt-out: the lead sends an opt-out word;
//   - excluir: the clinic's operator erases the lead.
// Then the window ends. The burst is never answered: no AI call, nothing sent to the lead but what
// the event itself sends, no follow-up planned. Where the lead is only paused its texts are kept in
// memory as one `lead` row (answered with the rest after the pause); handed off or opted out, nothing
// of the burst is kept (as for a message arriving after it); erased, nothing of the lead remains.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { brazilianVariants } from '../../adapters/phones/index.js';
import { isFinalStatus } from '../../engine/statuses.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { dumpDatabase, dumpKeyValues, tracesIn } from '../helpers/erasure-dump.js';
import { pollFor } from '../helpers/poll.js';
import { send, sentTo } from './providers.js';
import { forEachBackend, HUNTER_PHONE, startStack, type Stack } from './stack.js';

/**
 * The grouping window of these tests, ms: short enough for a quick suite, long enough that the
 * interrupting event (a webhook through the queue on postgres + redis) lands while the burst waits.
 * Each story checks that it did (the burst still waiting after the event), so a machine too slow
 * for it fails saying so instead of testing something else.
 */
const WINDOW_MS = { embedded: 2_500, 'postgres+redis': 4_000 } as const;

const OPTOUT_CONFIRMATION = 'Tudo bem, você não receberá mais mensagens automáticas. ✅';
const PAUSED_REASON = 'agent paused while the messages waited';
const GONE_REASON = 'lead transferred, erased or opted out while the messages waited';
const NOT_LAST = "answered with the burst's last message";

let phoneSeq = 0;
/** A fresh lead phone per test, so burst, dedupe and lock keys and memory never mix. */
const nextPhone = () => `55119${String(83000000 + ++phoneSeq * 1217).padStart(8, '0')}`;
let idSeq = 0;
/** A fresh gateway message id. */
const nextId = () => `3EB0GRP${process.pid}${String(++idSeq).padStart(8, '0')}`;

forEachBackend('a burst interrupted in its grouping window', (backend) => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      backend,
      env: {
        LEADFLOW_DEBOUNCE_MS: String(WINDOW_MS[backend]),
        LEADFLOW_DEBOUNCE_MAX_MS: '60000',
        LEADFLOW_COMMANDS_FROM: 'admins',
        LEADFLOW_TAKEOVER_MS: '7200000',
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });
  beforeEach(async () => {
    await stack.idle();
    stack.openai.reset();
    stack.anthropic.reset();
  });

  const db = () => stack.runtime.db;
  const lead = (phone: string) => db().get('leads', { clinica_id: stack.clinic.id, remotejid: phone });
  const memory = async (phone: string) =>
    (await db().find('wf_chat_histories', { where: { clinica_id: stack.clinic.id, session_id: phone } }))
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map((r) => [r.type, r.content]);
  const aiCalls = () => stack.openai.requests.length + stack.anthropic.requests.length;
  const followups = async (phone: string) => (await stack.executions('followup')).filter((r) => JSON.stringify(r.trigger).includes(phone));

  async function createLead(phone: string) {
    return db().insert('leads', {
      remotejid: phone,
      clinica_id: stack.clinic.id,
      instancia_id: stack.clinic.instanceId,
      nome: 'Maria Souza',
      telefone: phone,
      orcamento: 'Até R$ 3.000',
    });
  }

  /** The executions of the burst's messages (by message id), as stored now. */
  async function burstRuns(ids: string[]): Promise<ExecutionRecord[]> {
    return (await stack.executions('agent')).filter((r) => ids.includes((r.trigger.body as any)?.message?.messageid));
  }

  /** Waiting in the window: the execution is parked at its `burst` step. */
  const inWindow = (r: ExecutionRecord) => r.status === 'waiting' && r.steps.some((s) => s.id === 'burst' && s.status === 'waiting');

  /**
   * The lead sends `texts` one after the other (each queued for the agent); resolves with their
   * execution ids once every one of them waits in the grouping window.
   */
  async function burstInWindow(phone: string, texts: string[]): Promise<string[]> {
    const ids: string[] = [];
    for (const text of texts) {
      const id = nextId();
      ids.push(id);
      expect(await send(stack, { phone, text, id })).toEqual({ status: 200, json: { status: 'queued' } });
    }
    const runs = await pollFor('the burst waiting in its window', async () => {
      const found = await burstRuns(ids);
      return found.length === ids.length && found.every(inWindow) ? found : undefined;
    });
    return ids.map((id) => runs.find((r) => (r.trigger.body as any).message.messageid === id)!.id);
  }

  /** The event landed inside the window: the burst still waits (else the story proves nothing). */
  async function expectStillInWindow(runIds: string[]) {
    const runs = await Promise.all(runIds.map((id) => stack.runtime.store.get(id)));
    expect(
      runs.map((r) => (r && inWindow(r) ? 'in the window' : `${r?.status} (the window ended before the event: widen WINDOW_MS)`)),
    ).toEqual(runIds.map(() => 'in the window'));
  }

  /** Lets the window end; resolves with the burst's executions once every one has ended, in message order. */
  async function afterWindow(runIds: string[]): Promise<ExecutionRecord[]> {
    const ended = await pollFor(
      'the end of the burst',
      async () => {
        const runs = await Promise.all(runIds.map((id) => stack.runtime.store.get(id)));
        return runs.every((r) => r && isFinalStatus(r.status)) ? (runs as ExecutionRecord[]) : undefined;
      },
      WINDOW_MS[backend] + 20_000,
    );
    await stack.idle();
    return ended;
  }

  describe('the burst is never answered', () => {
    it('takeover: a person types on the clinic phone while the burst waits; the burst is kept in memory as one lead row', async () => {
      const phone = nextPhone();
      await createLead(phone);
      const burst = ['Oi, tudo bem?', 'Queria saber o preço das lentes'];
      const runIds = await burstInWindow(phone, burst);

      expect(await send(stack, { phone, text: 'Oi Maria, aqui é a Carla. Já te ligo!', from: 'operator' })).toEqual({
        status: 200,
        json: { status: 'ignored', reason: 'typed by the clinic' },
      });
      await expectStillInWindow(runIds);
      const ended = await afterWindow(runIds);

      // Never answered: no AI call, nothing to the lead but what the event itself sends.
      expect(aiCalls()).toBe(0);
      expect(sentTo(stack, phone)).toEqual([]);
      expect(await memory(phone)).toEqual([
        ['operator', 'Oi Maria, aqui é a Carla. Já te ligo!'],
        ['lead', 'Oi, tudo bem?\nQueria saber o preço das lentes'],
      ]);
      expect(Date.parse(String((await lead(phone))!.pausado_ate))).toBeGreaterThan(Date.now());
      expect(await followups(phone)).toEqual([]);
      // The path that kept it silent: the last message's execution stopped at the check after the wait.
      expect(ended.map((r) => [r.status, r.stop_reason])).toEqual([
        ['stopped', NOT_LAST],
        ['stopped', PAUSED_REASON],
      ]);
    });

    it('handoff: POST /handoff-agenteia for the lead while the burst waits; only the Hunter hears of it', async () => {
      const phone = nextPhone();
      await createLead(phone);
      const runIds = await burstInWindow(phone, ['Boa tarde', 'Vocês fazem implante?']);

      const res = await stack.post('/handoff-agenteia', { telefone: phone, motivo: 'Quer falar com uma pessoa' });
      expect(res.status).toBe(200);
      const { execution_id } = (await res.json()) as { execution_id: string };
      await expectStillInWindow(runIds);
      expect((await stack.engine.waitForEnd(execution_id)).status).toBe('success');
      const ended = await afterWindow(runIds);

      // Never answered: no AI call, nothing to the lead but what the event itself sends.
      expect(aiCalls()).toBe(0);
      expect(sentTo(stack, phone)).toEqual([]);
      expect(await lead(phone)).toMatchObject({ transferido: true, handoff_enviado: true });
      expect(await memory(phone)).toEqual([]);
      const toHunter = sentTo(stack, HUNTER_PHONE).filter((t) => t.includes(`https://wa.me/${phone}`));
      expect(toHunter).toHaveLength(1);
      expect(toHunter[0]).toContain('Motivo: Quer falar com uma pessoa');
      expect(await followups(phone)).toEqual([]);
      // The path that kept it silent: the last message's execution stopped at the check after the wait.
      expect(ended.map((r) => [r.status, r.stop_reason])).toEqual([
        ['stopped', NOT_LAST],
        ['stopped', GONE_REASON],
      ]);
    });

    it('opt-out: the lead sends an opt-out word while the burst waits; it gets the confirmation and nothing else', async () => {
      const phone = nextPhone();
      await createLead(phone);
      const runIds = await burstInWindow(phone, ['Oi', 'Quanto custa a lente?']);

      expect(await send(stack, { phone, text: ' Parar ' })).toEqual({ status: 200, json: { status: 'ignored', reason: 'lead opted out' } });
      await expectStillInWindow(runIds);
      const ended = await afterWindow(runIds);

      // Never answered: no AI call, nothing to the lead but what the event itself sends.
      expect(aiCalls()).toBe(0);
      expect(sentTo(stack, phone)).toEqual([OPTOUT_CONFIRMATION]);
      expect((await lead(phone))!.optout_at).not.toBeNull();
      expect(await memory(phone)).toEqual([]);
      expect(await followups(phone)).toEqual([]);
      // The path that kept it silent: the last message's execution stopped at the check after the wait.
      expect(ended.map((r) => [r.status, r.stop_reason])).toEqual([
        ['stopped', NOT_LAST],
        ['stopped', GONE_REASON],
      ]);
    });

    it('excluir: the operator erases the lead while the burst waits; it gets the confirmation and nothing of it remains', async () => {
      const phone = nextPhone();
      await createLead(phone);
      const burst = ['Bom dia, sou a Joana Prado', 'Tenho medo de anestesia'];
      const runIds = await burstInWindow(phone, burst);
      // What would betray the lead afterwards is there now (so its absence later means something).
      expect((await dumpKeyValues(stack.runtime.services.kv)).text).toContain(phone);
      const before = (await dumpDatabase(db())).text;
      expect([phone, ...burst].filter((t) => before.includes(t))).toEqual([phone, ...burst]);

      expect(await send(stack, { phone, text: 'excluir', from: 'operator' })).toEqual({
        status: 200,
        json: { status: 'ignored', reason: 'command excluir' },
      });
      await expectStillInWindow(runIds);
      const ended = await afterWindow(runIds);

      // Never answered: no AI call, nothing to the lead but what the event itself sends.
      expect(aiCalls()).toBe(0);
      expect(sentTo(stack, phone)).toEqual(['Contato excluído ✅']);
      expect(await lead(phone)).toBeNull();
      expect(await memory(phone)).toEqual([]);
      expect(await followups(phone)).toEqual([]);
      // Nowhere in the database (the burst's own execution records included) or the key-value store.
      const traces = [...brazilianVariants(phone), ...burst];
      expect(tracesIn(traces, (await dumpDatabase(db())).text)).toEqual([]);
      expect(tracesIn(traces, (await dumpKeyValues(stack.runtime.services.kv)).text)).toEqual([]);
      // The path that kept it silent: the burst went with the lead's keys, so when the window ended
      // no message of it was left to answer.
      expect(ended.map((r) => [r.status, r.stop_reason])).toEqual([
        ['stopped', NOT_LAST],
        ['stopped', NOT_LAST],
      ]);
    });
  });
});
