// No lead left in silence (issue 28) end to end over HTTP: the shipped flows, a gateway provider's
// fake (test/e2e/providers.ts) and the fake AI providers answering 500 to every request while "down".
//   - every provider failing: the agent step is retried for LEADFLOW_AGENT_RETRY_MS (here 2.4 s: one
//     retry after 3 s ±20 %, then no more), then the lead gets the fixed holding message (recorded as an
//     agent row), the Hunter one line naming her phone (the alerta_hunter template where the Hunter
//     has not written in 24 h: Cloud API), the lead is marked `sem_resposta_at`, no follow-up is
//     planned, and leadflow_agent_unanswered_total counts it;
//   - the providers back, the lead's next message is answered and the mark cleared; a person typing
//     on the clinic's phone clears it too (where the provider reports such messages);
//   - a replay of the unanswered execution, the providers back, answers the lead once, and memory
//     holds her input once (remember_input is keyed by the burst's message: db.upsert, keep), as does
//     the model's request;
//   - Cloud API: replayed a day later (the clock) with the providers still down, the holding message
//     goes as the follow_up template (her first name), recorded as it rendered.
// Backends: uazapi and the Cloud API on both (the Cloud window lives in Redis there); Evolution keeps
// nothing of its own in the backend, so on PostgreSQL + Redis its stories are uazapi's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settableClock, type SettableClock } from '../../adapters/clock.js';
import { CUSTOMER_WINDOW_MS } from '../../adapters/gateway/cloud/customer-window.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { parseMetrics, sampleValue } from '../helpers/metrics-text.js';
import { pollFor } from '../helpers/poll.js';
import { forEachProvider, type ProviderCase, send, sent, type StoryMessage, UAZAPI_CASE } from './providers.js';
import { type Backend, forEachBackend, HUNTER_PHONE, startStack, type Stack } from './stack.js';

const ADMIN_TOKEN = 'unanswered-admin-token';
const HOLDING = 'Recebi sua mensagem! 🙏 Alguém da nossa equipe vai te responder por aqui em breve.';
const REASON = 'A IA não conseguiu responder';
const ANSWER = 'Olá! Como posso ajudar?';
const STOP_REASON = 'no AI provider answered: holding message sent, Hunter alerted';
/**
 * LEADFLOW_AGENT_RETRY_MS here, ms: the shortest pause before the retry (3 s − 20 %), so the retry always
 * ends past it (never a third attempt), and a first attempt slowed by a loaded machine still gets its retry.
 */
const RETRY_MS = 2400;
/** More 500s than any story asks for: the providers stay down until aiBack(). */
const DOWN_FOR = 200;

let phoneSeq = 0;
const nextPhone = () => `55119${String(62000000 + ++phoneSeq * 1717).padStart(8, '0')}`;

forEachProvider('no lead left in silence', (provider, title) => {
  if (provider === UAZAPI_CASE || provider.name === 'cloud') forEachBackend(title, (backend) => stories(provider, backend));
  // Evolution keeps nothing of its own in the backend: on PostgreSQL + Redis its stories are uazapi's.
  else describe(`${title} [sqlite + in-process]`, () => stories(provider, 'embedded'));
});

function stories(provider: ProviderCase, backend: Backend) {
  let stack: Stack;
  let clock: SettableClock;
  beforeAll(async () => {
    clock = settableClock();
    stack = await startStack({
      backend,
      provider,
      clock,
      env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN, LEADFLOW_AGENT_RETRY_MS: String(RETRY_MS), LEADFLOW_FOLLOWUP_AFTER_MS: '60000' },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const db = () => stack.runtime.db;
  const say = (phone: string, text: string, from: StoryMessage['from'] = 'lead') => send(stack, { phone, text, from });
  const sends = (number: string) =>
    sent(stack)
      .filter((m) => m.number === number)
      .map((m) => m.text);
  const lead = (phone: string) => db().get('leads', { clinica_id: stack.clinic.id, remotejid: phone });
  const memory = async (phone: string) =>
    (await db().find('wf_chat_histories', { where: { clinica_id: stack.clinic.id, session_id: phone } }))
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map((r) => [r.type, r.content]);
  const ofLead = (records: ExecutionRecord[], phone: string) => records.filter((r) => JSON.stringify(r.trigger).includes(phone));
  const followups = async (phone: string) =>
    (await stack.executions('followup')).filter((r) => (r.trigger.body as { remotejid?: string })?.remotejid === phone);
  const unansweredTotal = async () => {
    const text = await (await fetch(`${stack.url}/metrics`)).text();
    return sampleValue(parseMetrics(text), 'leadflow_agent_unanswered_total') ?? 0;
  };
  const insertLead = (phone: string) =>
    db().insert('leads', {
      remotejid: phone,
      clinica_id: stack.clinic.id,
      instancia_id: stack.clinic.instanceId,
      nome: 'Ana Paula Souza',
      telefone: phone,
    });
  /** Every AI provider answers 500 to every request until aiBack(). */
  const aiDown = () => {
    stack.openai.reset();
    stack.anthropic.reset();
    stack.openai.queueChat(...Array.from({ length: DOWN_FOR }, () => ({ status: 500, error_message: 'upstream down' })));
    stack.anthropic.queue(...Array.from({ length: DOWN_FOR }, () => ({ status: 500, error_message: 'upstream down' })));
  };
  const aiBack = () => {
    stack.openai.reset();
    stack.anthropic.reset();
  };
  /** The Hunter's alert for `phone`, as the provider delivers it to a Hunter silent for 24 h. */
  const alertFor = (phone: string, text: string) =>
    provider.toSilent([`⚠️ Lead sem resposta: Ana Paula Souza | ${phone} | ${REASON}; responda por aqui: https://wa.me/${phone}`], {
      purpose: 'alerta_hunter',
      parameters: [phone, REASON, text],
    });

  /** The lead writes `text` while every provider is down; resolves with the execution that held her. */
  async function unanswered(phone: string, text: string): Promise<ExecutionRecord> {
    aiDown();
    const hunterBefore = sends(HUNTER_PHONE).length;
    expect((await say(phone, text)).json).toEqual({ status: 'queued' });
    await pollFor('the holding message', async () => sends(phone).includes(HOLDING));
    await pollFor('the Hunter alert', async () => sends(HUNTER_PHONE).length > hunterBefore);
    await stack.idle();
    const held = ofLead(await stack.executions('agent'), phone).find((r) => r.stop_reason === STOP_REASON);
    expect(held, 'the execution that sent the holding message').toBeDefined();
    return held!;
  }

  /** POST /admin/executions/:id/replay; resolves with the replay's record once everything is idle. */
  async function replay(id: string): Promise<ExecutionRecord> {
    const res = await fetch(`${stack.url}/admin/executions/${id}/replay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(202);
    const { execution_id } = (await res.json()) as { execution_id: string };
    await pollFor('the replay to end', async () => {
      const r = await stack.engine.store.get(execution_id);
      return r && r.status !== 'running' && r.status !== 'waiting';
    });
    await stack.idle();
    return (await stack.engine.store.get(execution_id))!;
  }

  it('every provider failing: retried for the bound, then the holding message, the Hunter alerted, the lead marked and counted, no follow-up; the providers back, her next message is answered and the mark cleared', async () => {
    const phone = nextPhone();
    await insertLead(phone);
    const before = await unansweredTotal();
    const hunterBefore = sends(HUNTER_PHONE).length;
    await unanswered(phone, 'Vocês atendem sábado?');

    // One retry: the whole chain (OpenAI primary, Anthropic fallback, OpenAI contingency) twice, then
    // no more (the second pass ends at least 2.4 s after the first started: past the bound).
    expect(stack.anthropic.messageRequests()).toHaveLength(2);
    expect(stack.openai.chatRequests()).toHaveLength(4);
    expect(sends(phone)).toEqual([HOLDING]);
    expect(sends(HUNTER_PHONE).slice(hunterBefore)).toEqual(alertFor(phone, 'Vocês atendem sábado?'));
    expect((await lead(phone))!.sem_resposta_at).toEqual(expect.any(String));
    expect(await memory(phone)).toEqual([
      ['lead', 'Vocês atendem sábado?'],
      ['agent', HOLDING],
    ]);
    expect(await followups(phone)).toEqual([]);
    expect(await unansweredTotal()).toBe(before + 1);

    aiBack();
    expect((await say(phone, 'Alguém aí?')).json).toEqual({ status: 'queued' });
    await pollFor('the answer', async () => sends(phone).length === 2);
    await stack.idle();
    expect(sends(phone)).toEqual([HOLDING, ANSWER]);
    expect((await lead(phone))!.sem_resposta_at).toBeNull();
    expect((await memory(phone)).map(([type]) => type)).toEqual(['lead', 'agent', 'lead', 'agent']);
    // The model read the holding message as what LeadFlow said.
    expect(JSON.stringify(stack.openai.chatRequests().at(-1))).toContain('Recebi sua mensagem!');
    expect(await followups(phone)).toHaveLength(1);
    expect(await unansweredTotal()).toBe(before + 1);
  });

  it('a replay of the unanswered execution, the providers back, answers her once and memory holds her input once', async () => {
    const phone = nextPhone();
    await insertLead(phone);
    const held = await unanswered(phone, 'Quanto custam as lentes?');
    aiBack();

    const replayed = await replay(held.id);
    expect([replayed.status, replayed.stop_reason ?? null]).toEqual(['success', null]);
    expect(sends(phone)).toEqual([HOLDING, ANSWER]);
    expect(await memory(phone)).toEqual([
      ['lead', 'Quanto custam as lentes?'],
      ['agent', HOLDING],
      ['agent', ANSWER],
    ]);
    expect((replayed.steps.find((s) => s.key === 'remember_input')?.output as { inserted?: boolean })?.inserted).toBe(false);
    // The model got her words once: as this turn's input, not also from memory.
    const request = JSON.stringify(stack.openai.chatRequests().at(-1));
    expect(request.split('Quanto custam as lentes?')).toHaveLength(2);
    expect((await lead(phone))!.sem_resposta_at).toBeNull();
  });

  if (provider.can.operatorMessages)
    it('a person answering on the clinic’s phone clears the mark', async () => {
      const phone = nextPhone();
      await insertLead(phone);
      await unanswered(phone, 'Oi?');
      aiBack();
      expect((await say(phone, 'Oi Ana, aqui é a Carla!', 'operator')).json).toEqual({ status: 'ignored', reason: 'typed by the clinic' });
      await stack.idle();
      expect((await lead(phone))!.sem_resposta_at).toBeNull();
    });

  if (provider.name === 'cloud')
    it('outside her 24-hour window (a replay a day later, the providers still down) the holding message is the follow_up template, recorded as it rendered', async () => {
      const phone = nextPhone();
      await insertLead(phone);
      const held = await unanswered(phone, 'Tem horário amanhã?');
      clock.set(Date.now() + CUSTOMER_WINDOW_MS + 60_000);
      try {
        aiDown();
        const replayed = await replay(held.id);
        expect(replayed.stop_reason).toBe(STOP_REASON);
      } finally {
        clock.set(Date.now());
      }
      const followUp = { purpose: 'follow_up' as const, parameters: ['Ana'] };
      expect(sends(phone)).toEqual([HOLDING, ...provider.toSilent([HOLDING], followUp)]);
      expect((await memory(phone)).at(-1)).toEqual(['agent', provider.recordedFor(HOLDING, followUp)]);
      expect((await memory(phone)).filter(([type]) => type === 'lead')).toHaveLength(1);
    });
}
