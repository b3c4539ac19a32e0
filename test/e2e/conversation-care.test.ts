// Conversation care (CONTRACT.md §9, §11) end to end over HTTP, once per gateway provider of
// test/e2e/providers.ts (uazapi, Evolution, Cloud API: the seeded instance is of that provider, and
// every message of a story is that provider's webhook): the shipped flows (intake, agent, followup,
// handoff), the provider's fake and the fake AI providers, short delays, and a clock the test sets (the
// clinic's hours and the Cloud API's 24-hour window are read against it; waits run in real time).
//   - human takeover: pause, silence with the lead's words kept, resume with the operator's words in
//     the model's input, destrans ends it; LeadFlow's own sends echoed back pause nothing;
//   - follow-ups: two after the two delays and none after; a lead's reply cancels and restarts the
//     count; none to a transferred, paused, opted-out or erased lead; a closed clinic waits for its
//     next opening; inside the lead's 24-hour window free text, after 24 h of silence the follow_up
//     template where the gateway has that rule (Cloud API), kept in memory as the lead received it;
//   - opt-out: confirmed once, silence after, commands still work, counted, cleared by a new form.
// Backends: every story runs on every provider with the embedded backend (SQLite, in-process); on
// PostgreSQL + Redis the stories run once, on uazapi (what they prove of the backend does not depend
// on the provider), plus the 24-hour window story on the Cloud API, whose window lives in Redis there.
// (One provider's run of every story takes some 20-25 s; the whole cross product would add about 45 s
// to this file, on machines where CI runs everything on 2 cores, and prove nothing more.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settableClock, type SettableClock } from '../../adapters/clock.js';
import { CUSTOMER_WINDOW_MS } from '../../adapters/gateway/cloud/customer-window.js';
import type { ExecutionRecord } from '../../engine/types.js';
import type { FakeCloudApi } from '../fakes/cloud-api-server.js';
import { parseMetrics, sampleValue } from '../helpers/metrics-text.js';
import { forEachProvider, type ProviderCase, send, sent, type StoryMessage, type TemplateUse, UAZAPI_CASE } from './providers.js';
import { forEachBackend, startStack, type Backend, type Stack } from './stack.js';

/** The follow-up delays of these tests, ms: the second counted from the first follow-up. */
const FIRST_DELAY_MS = 700;
const SECOND_DELAY_MS = 1000;
/** Longer than the 2 s the "none to …" test gives itself before a follow-up is due. */
const TAKEOVER_MS = 3000;

let phoneSeq = 0;
/** A fresh lead phone per test, so keys and memory never mix. */
const nextPhone = () => `55119${String(61000000 + ++phoneSeq * 1313).padStart(8, '0')}`;

/** Monday 2026-11-23 at `hhmmss` in São Paulo (UTC-3, no daylight saving), ms since the epoch. */
const mondayInSaoPaulo = (hhmmss: string) => Date.parse(`2026-11-23T${hhmmss}-03:00`);
/** Saturday 2026-11-21 at `hhmmss` in São Paulo. */
const saturdayInSaoPaulo = (hhmmss: string) => Date.parse(`2026-11-21T${hhmmss}-03:00`);
const WEEKDAYS_8_TO_18 = JSON.stringify({
  timezone: 'America/Sao_Paulo',
  seg: '08:00-18:00',
  ter: '08:00-18:00',
  qua: '08:00-18:00',
  qui: '08:00-18:00',
  sex: '08:00-18:00',
  sab: '',
  dom: '',
});

async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 10_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** What the follow-up template is filled with for the lead "Maria Souza" (flows/followup.yaml). */
const FOLLOW_UP: TemplateUse = { purpose: 'follow_up', parameters: ['Maria'] };

forEachProvider('conversation care', (provider, title) => {
  if (provider === UAZAPI_CASE) forEachBackend(title, (backend) => stories(provider, backend));
  else if (provider.name === 'cloud')
    forEachBackend(title, (backend) =>
      backend === 'embedded' ? stories(provider, backend) : windowStory(provider, careStack(provider, backend)),
    );
  // Evolution keeps nothing of its own in the backend: on PostgreSQL + Redis its stories are uazapi's.
  else describe(`${title} [sqlite + in-process]`, () => stories(provider, 'embedded'));
});

/** A stack of `provider` on `backend` with the short delays of these tests and a settable clock; closed after the suite. */
function careStack(provider: ProviderCase, backend: Backend) {
  const state = {} as { stack: Stack; clock: SettableClock };
  beforeAll(async () => {
    state.clock = settableClock();
    state.stack = await startStack({
      backend,
      provider,
      clock: state.clock,
      env: {
        LEADFLOW_TAKEOVER_MS: String(TAKEOVER_MS),
        LEADFLOW_FOLLOWUP_AFTER_MS: `${FIRST_DELAY_MS},${SECOND_DELAY_MS}`,
        LEADFLOW_DEBOUNCE_MS: backend === 'postgres+redis' ? '400' : '150',
      },
    });
  });
  afterAll(async () => {
    await state.stack?.close();
  });
  return state;
}

/** What the stories read and do on a stack, the provider's way. */
function careActions(state: { stack: Stack }) {
  const db = () => state.stack.runtime.db;
  return {
    db,
    /** A message in the lead's chat (from the lead, or typed by a person on the clinic's phone). */
    say: (phone: string, text: string, from: StoryMessage['from'] = 'lead') => send(state.stack, { phone, text, from }),
    /** What the provider's fake sent to `phone`, in order. */
    sends: (phone: string) => sent(state.stack).filter((m) => m.number === phone),
    memory: async (phone: string) =>
      (await db().find('wf_chat_histories', { where: { clinica_id: state.stack.clinic.id, session_id: phone } })).sort(
        (a, b) => Number(a.id) - Number(b.id),
      ),
    lead: (phone: string) => db().get('leads', { clinica_id: state.stack.clinic.id, remotejid: phone }),
    followups: async (phone: string): Promise<ExecutionRecord[]> =>
      (await state.stack.executions('followup')).filter((r) => (r.trigger.body as any)?.remotejid === phone),
    /** A lead row as the form leaves it, without the form's first message (nothing planned). */
    insertLead: (phone: string) =>
      db().insert('leads', {
        remotejid: phone,
        clinica_id: state.stack.clinic.id,
        instancia_id: state.stack.clinic.instanceId,
        nome: 'Maria Souza',
        telefone: phone,
      }),
    /** Sets the clinic's hours (null: always open). */
    setHours: (value: string | null) =>
      db().update('clinicas_com_atendentes', { id: state.stack.clinic.id }, { horario_atendimento: value }),
  };
}

/**
 * Follow-ups and the 24-hour rule (CONTRACT §11): a lead writes and is answered; the first follow-up,
 * inside the lead's window, is free text; then 24 h pass (the clock), and the second goes as the
 * instance's follow_up template where the gateway has that rule (as free text elsewhere), recorded in
 * memory as the text the lead received.
 */
function windowStory(provider: ProviderCase, state: { stack: Stack; clock: SettableClock }) {
  const { say, sends, memory, followups, insertLead, setHours } = careActions(state);

  describe('follow-ups and the 24-hour window', () => {
    it('inside the window a follow-up is free text; after 24 h of silence it is the follow_up template where the gateway has that rule, and memory holds what the lead got', async () => {
      const { clock } = state;
      await setHours(null);
      const phone = nextPhone();
      await insertLead(phone);
      expect((await say(phone, 'Oi! Quero saber das lentes')).json).toEqual({ status: 'queued' });
      await until('the reply', () => sends(phone).length >= 1);
      // Inside the window (the lead wrote a moment ago): free text, the model's words as written.
      await until('the first follow-up', () => sends(phone).length >= 2, 10_000);
      const firstFollowUp = sends(phone)[1]!.text;
      // At once, before the second follow-up is due (SECOND_DELAY_MS after the first, in real time):
      // 24 h and a minute later, by the clock, with no message from the lead since.
      clock.set(Date.now() + CUSTOMER_WINDOW_MS + 60_000);
      try {
        await until('the second follow-up', () => sends(phone).length >= 3, 10_000);
        const done = await until('the follow-up execution to end', async () =>
          (await followups(phone)).find((r) => r.status === 'success'),
        );
        expect(done.output).toEqual({ sent: 2 });
      } finally {
        clock.set(Date.now());
      }
      const rows = await memory(phone);
      expect(rows.map((r) => r.type)).toEqual(['lead', 'agent', 'agent', 'agent']);
      const [, reply, first, second] = rows.map((r) => String(r.content));
      // What went: the reply and the first follow-up as written; the second, after the window closed,
      // the template alone on a gateway with that rule (no free text), else the text.
      expect(sends(phone).map((m) => m.text)).toEqual([reply, first, ...provider.toSilent([second!], FOLLOW_UP)]);
      expect(firstFollowUp).toBe(first);
      expect(first).not.toMatch(/^template:/);
      expect(second).toBe(provider.recordedFor(second!, FOLLOW_UP));
      if (provider.name === 'cloud') {
        // Every message request the Graph API got for the lead, answered or not: two texts, then the
        // approved follow_up template with the lead's first name (CONTRACT §11), and no text.
        const bodies = (state.stack.fake as FakeCloudApi).requests
          .filter((r) => r.method === 'POST' && r.body?.to === phone)
          .map((r) => r.body);
        expect(bodies.map((b) => b.type)).toEqual(['text', 'text', 'template']);
        expect(bodies[2].template).toEqual({
          name: 'follow_up_v1',
          language: { code: 'pt_BR' },
          components: [
            {
              type: 'body',
              parameters: [{ type: 'text', text: 'Maria' }],
            },
          ],
        });
        expect(second).toBe('Oi, Maria! Ainda quer conversar com a gente?');
      }
    });

    // Only the Cloud API refuses free text outside the window (error 131047); uazapi and Evolution
    // have no such rule, so there is nothing to tell there.
    if (provider.name === 'cloud')
      it('Meta refusing the follow-up as outside the window (131047): the follow_up template instead, once, and memory holds it', async () => {
        const fake = state.stack.fake as FakeCloudApi;
        await setHours(null);
        const phone = nextPhone();
        await insertLead(phone);
        expect((await say(phone, 'Oi! Quero saber das lentes')).json).toEqual({ status: 'queued' });
        await until('the reply', () => sends(phone).length >= 1);
        // At once, before the follow-up is due: Meta sees the lead's window closed (LeadFlow does not).
        fake.outsideWindow(phone);
        try {
          await until('the follow-up', () => sends(phone).length >= 2, 10_000);
          await until('its memory row', async () => (await memory(phone)).length >= 3);
        } finally {
          fake.outsideWindow(phone, false);
        }
        const bodies = fake.requests.filter((r) => r.method === 'POST' && r.body?.to === phone);
        expect(bodies.slice(0, 3).map((r) => [r.body.type, r.status])).toEqual([
          ['text', 200],
          ['text', 400],
          ['template', 200],
        ]);
        expect(bodies[2]!.body.template.name).toBe('follow_up_v1');
        expect((await memory(phone)).slice(2).map((r) => [r.type, r.content])).toEqual([
          ['agent', 'Oi, Maria! Ainda quer conversar com a gente?'],
        ]);
      });
  });
}

function stories(provider: ProviderCase, backend: Backend) {
  const state = careStack(provider, backend);
  const { db, say, sends, memory, lead, followups, setHours } = careActions(state);
  windowStory(provider, state);
  const chatRequestsAbout = (text: string) => state.stack.openai.chatRequests().filter((r) => JSON.stringify(r.messages).includes(text));
  const metric = async (name: string) => sampleValue(parseMetrics(await (await fetch(`${state.stack.url}/metrics`)).text()), name);
  const isFollowupRequest = (r: any) => JSON.stringify(r.messages).includes('parou de responder');

  /** A lead as the form makes one (the intake flow): its first message sent, a follow-up planned. */
  async function leadFromForm(phone: string, nome = 'Maria Souza') {
    const before = sends(phone).length;
    const res = await state.stack.post('/form/intake', {
      nome,
      telefone: phone,
      orcamento: 'Até R$ 3.000',
      clinica_id: state.stack.clinic.id,
    });
    expect(res.status).toBe(202);
    await until('the first message', () => sends(phone).length > before);
    return until('the planned follow-up', async () => (await followups(phone)).find((r) => r.status === 'waiting'));
  }

  describe('human takeover', () => {
    it('a message typed on the clinic phone pauses the agent; the lead is kept in memory, unanswered; after the pause the model sees both', async () => {
      const { stack } = state;
      const phone = nextPhone();
      await leadFromForm(phone);
      const sentBefore = sends(phone).length;

      const typed = await say(phone, 'Oi Maria, aqui é a Carla da clínica. Posso te ligar amanhã?', 'operator');
      expect(typed).toEqual({ status: 200, json: { status: 'ignored', reason: 'typed by the clinic' } });
      const paused = await lead(phone);
      const pausedUntil = Date.parse(String(paused!.pausado_ate));
      expect(pausedUntil).toBeGreaterThan(Date.now() + TAKEOVER_MS - 1_000);
      expect(pausedUntil).toBeLessThanOrEqual(Date.now() + TAKEOVER_MS);

      const chatsBefore = stack.openai.chatRequests().length;
      const during = await say(phone, 'Pode sim, depois das 14h');
      expect(during).toEqual({ status: 200, json: { status: 'ignored', reason: 'agent paused' } });

      expect((await memory(phone)).map((r) => [r.type, r.content])).toEqual([
        ['agent', expect.any(String)],
        ['operator', 'Oi Maria, aqui é a Carla da clínica. Posso te ligar amanhã?'],
        ['lead', 'Pode sim, depois das 14h'],
      ]);
      expect(stack.openai.chatRequests().length).toBe(chatsBefore);
      expect(sends(phone).length).toBe(sentBefore);

      await until('the end of the pause', () => Date.now() > pausedUntil + 50);
      expect((await say(phone, 'Qual o valor?')).json).toEqual({ status: 'queued' });
      await until('the reply after the pause', () => sends(phone).length > sentBefore);
      const request = chatRequestsAbout('Qual o valor?').at(-1);
      const turns = request.messages.filter((m: any) => m.role !== 'system' && m.role !== 'tool').map((m: any) => `${m.role}:${m.content}`);
      const operatorAt = turns.findIndex((t: string) => t.startsWith('assistant:') && t.includes('aqui é a Carla da clínica'));
      const pausedLeadAt = turns.findIndex((t: string) => t.startsWith('user:') && t.includes('depois das 14h'));
      const currentAt = turns.findIndex((t: string) => t.startsWith('user:') && t.includes('Qual o valor?'));
      expect(operatorAt).toBeGreaterThanOrEqual(0);
      expect(turns[operatorAt]).toMatch(/equipe/i);
      expect(pausedLeadAt).toBeGreaterThan(operatorAt);
      expect(currentAt).toBeGreaterThan(pausedLeadAt);
    });

    // Only where the gateway marks an echo of LeadFlow's own API send on the message itself (uazapi's
    // wasSentByApi), so one can arrive while the agent is paused. Evolution's echoes are told apart
    // by the ids of LeadFlow's own sends (test/e2e/agent.test.ts), and a paused agent sends nothing
    // to echo; the Cloud API never echoes.
    if (provider.name === 'uazapi')
      it("LeadFlow's own send, echoed back by the gateway, pauses nothing", async () => {
        const phone = nextPhone();
        await leadFromForm(phone);
        await say(phone, 'Deixa comigo, eu atendo essa.', 'operator');
        const pausedUntil = String((await lead(phone))!.pausado_ate);
        expect(pausedUntil).not.toBe('null');
        const own = await say(phone, 'mensagem enviada pela API', 'api');
        expect(own.json.reason).toBe('sent by the clinic');
        expect(String((await lead(phone))!.pausado_ate)).toBe(pausedUntil);
        // Not recorded as the operator's words either.
        expect((await memory(phone)).map((r) => r.type)).toEqual(['agent', 'operator']);
      });

    it('destrans typed on the clinic phone ends a pause at once', async () => {
      const phone = nextPhone();
      await leadFromForm(phone);
      await say(phone, 'Deixa comigo, eu atendo essa.', 'operator');
      expect((await lead(phone))!.pausado_ate).not.toBeNull();
      const res = await say(phone, 'destrans', 'operator');
      expect(res.json.reason).toBe('command destrans');
      expect((await lead(phone))!.pausado_ate).toBeNull();
      const sentBefore = sends(phone).length;
      expect((await say(phone, 'Ainda tenho uma dúvida')).json).toEqual({ status: 'queued' });
      await until('the reply', () => sends(phone).length > sentBefore);
    });
  });

  describe('follow-ups', () => {
    it('two follow-ups after the two delays, each counted from the previous message, then none', async () => {
      const { stack } = state;
      await setHours(null);
      const phone = nextPhone();
      await leadFromForm(phone);
      const first = sends(phone).at(-1)!.at;
      await until('two follow-ups', () => sends(phone).length >= 3, 15_000);
      const [, one, two] = sends(phone);
      expect(one!.at - first).toBeGreaterThanOrEqual(FIRST_DELAY_MS);
      expect(two!.at - one!.at).toBeGreaterThanOrEqual(SECOND_DELAY_MS);
      const done = await until('the follow-up execution to end', async () => (await followups(phone)).find((r) => r.status === 'success'));
      expect(done.output).toEqual({ sent: 2 });
      await new Promise((r) => setTimeout(r, SECOND_DELAY_MS + 300));
      expect(sends(phone)).toHaveLength(3);
      // Written by the model from the conversation, kept in memory like any reply.
      const requests = stack.openai.chatRequests().filter((r) => isFollowupRequest(r) && JSON.stringify(r.messages).includes('Maria'));
      expect(requests.length).toBeGreaterThanOrEqual(2);
      expect((await memory(phone)).map((r) => r.type)).toEqual(['agent', 'agent', 'agent']);
      expect(await metric('leadflow_followups_sent_total')).toBeGreaterThanOrEqual(2);
    });

    it("the lead's reply cancels the pending follow-up; the count starts again from the agent's reply", async () => {
      await setHours(null);
      const phone = nextPhone();
      const planned = await leadFromForm(phone);
      expect((await say(phone, 'Oi! Quero saber mais')).json).toEqual({ status: 'queued' });
      await until('the agent reply', () => sends(phone).length >= 2);
      const reply = sends(phone)[1]!.at;
      expect((await state.stack.runtime.store.get(planned.id))?.status).toBe('cancelled');
      await until('the follow-up after the reply', () => sends(phone).length >= 3, 10_000);
      expect(sends(phone)[2]!.at - reply).toBeGreaterThanOrEqual(FIRST_DELAY_MS);
      const all = await followups(phone);
      expect(all.filter((r) => r.status === 'cancelled').map((r) => r.id)).toContain(planned.id);
    });

    it('any message from the lead cancels the pending follow-up, even one with nothing to answer', async () => {
      const phone = nextPhone();
      const planned = await leadFromForm(phone);
      const res = await say(phone, '   ');
      expect(res.json).toEqual({ status: 'ignored', reason: 'no text in a text message' });
      expect((await state.stack.runtime.store.get(planned.id))?.status).toBe('cancelled');
      expect((await followups(phone)).filter((r) => r.status === 'waiting')).toEqual([]);
    });

    it('none to a lead transferred, paused, opted out or erased by the time it is due', async () => {
      const { stack } = state;
      await setHours(null);
      const transferred = nextPhone();
      const paused = nextPhone();
      const optedOut = nextPhone();
      const erased = nextPhone();
      // Each lead with a follow-up due 2 s from now (as if LeadFlow wrote to it 1.3 s ago), so the
      // states below are set well before it is due, however loaded the machine.
      const planned: Record<string, ExecutionRecord> = {};
      for (const phone of [transferred, paused, optedOut, erased]) {
        const row = await db().insert('leads', {
          remotejid: phone,
          clinica_id: stack.clinic.id,
          instancia_id: stack.clinic.instanceId,
          nome: 'Maria Souza',
          telefone: phone,
        });
        const sentAt = new Date(Date.now() + 2_000 - FIRST_DELAY_MS).toISOString();
        const body = {
          lead_id: Number(row.id),
          clinica_id: stack.clinic.id,
          remotejid: phone,
          instance_id: stack.clinic.instanceId,
          sent_at: sentAt,
        };
        const started = await stack.engine.start('followup', { body });
        planned[phone] = await until('the follow-up waiting', async () => {
          const run = await stack.runtime.store.get(started.id);
          return run?.status === 'waiting' ? run : undefined;
        });
      }
      await db().update('leads', { clinica_id: stack.clinic.id, remotejid: transferred }, { transferido: true });
      await say(paused, 'Oi, é a Carla, vou cuidar de você.', 'operator');
      await db().update('leads', { clinica_id: stack.clinic.id, remotejid: optedOut }, { optout_at: new Date().toISOString() });
      expect((await say(erased, 'excluir', 'operator')).json.reason).toBe('command excluir');

      const reasons = await until('the four follow-ups to end', async () => {
        const ended = await Promise.all(
          [transferred, paused, optedOut].map(async (p) => (await followups(p)).find((r) => r.status === 'stopped')?.stop_reason),
        );
        return ended.every(Boolean) ? ended : undefined;
      });
      expect(reasons).toEqual(['lead transferred', 'agent paused (a person of the clinic took over)', 'lead opted out']);
      // The erased lead's follow-up was cancelled with it, and its record no longer holds the phone.
      const erasedRun = await stack.runtime.store.get(planned[erased]!.id);
      expect(erasedRun?.status).toBe('cancelled');
      expect(JSON.stringify(erasedRun)).not.toContain(erased);
      await new Promise((r) => setTimeout(r, FIRST_DELAY_MS + 300));
      for (const phone of [transferred, paused, optedOut]) expect(sends(phone)).toHaveLength(0);
      expect(sends(erased).map((s) => s.text)).toEqual(['Contato excluído ✅']);
    });

    it('due while the clinic is closed, it waits for the next opening', async () => {
      const { clock } = state;
      await setHours(WEEKDAYS_8_TO_18);
      // Saturday evening: the next opening is Monday 08:00, 60 hours away.
      clock.set(saturdayInSaoPaulo('20:00:00'));
      try {
        const weekend = nextPhone();
        await leadFromForm(weekend);
        const parked = await until('the follow-up parked until Monday', async () => {
          const run = (await followups(weekend))[0];
          return run?.status === 'waiting' && run.steps.some((s) => s.id === 'opening') ? run : undefined;
        });
        const mondayMorning = Date.now() + (mondayInSaoPaulo('08:00:00') - clock.now());
        expect(Math.abs(parked.wake_at! - mondayMorning)).toBeLessThan(2_000);
        expect(sends(weekend)).toHaveLength(1);
        // The agent's prompt states that the clinic is closed, and when it opens.
        expect((await say(weekend, 'Vocês atendem no sábado?')).json).toEqual({ status: 'queued' });
        await until('the reply', () => sends(weekend).length >= 2);
        const systemPrompt = chatRequestsAbout('Vocês atendem no sábado?').at(-1).messages[0].content as string;
        expect(systemPrompt).toMatch(/fechada/);
        expect(systemPrompt).toMatch(/segunda-feira/);
        expect(systemPrompt).toMatch(/08:00/);

        // Monday, 1.5 s before opening: due after FIRST_DELAY_MS, sent only once the clinic opens.
        clock.set(mondayInSaoPaulo('07:59:58.500'));
        const early = nextPhone();
        await leadFromForm(early);
        const opensAt = Date.now() + (mondayInSaoPaulo('08:00:00') - clock.now());
        await until('the follow-up at the opening', () => sends(early).length >= 2, 10_000);
        expect(sends(early)[1]!.at).toBeGreaterThanOrEqual(opensAt - 50);
      } finally {
        clock.set(Date.now());
        await setHours(null);
      }
    });
  });

  describe('opt-out', () => {
    it('an opt-out word is confirmed once and silences the agent; commands still work; a new form clears it', async () => {
      const { stack } = state;
      await setHours(null);
      const phone = nextPhone();
      await leadFromForm(phone);
      const metricsBefore = (await metric('leadflow_optouts_total')) ?? 0;

      expect((await say(phone, ' Párar! ')).json).toEqual({ status: 'ignored', reason: 'lead opted out' });
      await until('the confirmation', () => sends(phone).length >= 2);
      expect(sends(phone)[1]!.text).toBe('Tudo bem, você não receberá mais mensagens automáticas. ✅');
      expect((await lead(phone))!.optout_at).not.toBeNull();
      // The opt-out cancelled the pending follow-up and planned none.
      const plannedAfter = await followups(phone);
      expect(plannedAfter.filter((r) => r.status === 'waiting' || r.status === 'running')).toEqual([]);

      expect((await say(phone, 'oi, ainda está aí?')).json).toEqual({ status: 'ignored', reason: 'lead opted out' });
      expect((await say(phone, 'PARAR')).json).toEqual({ status: 'ignored', reason: 'lead opted out' });
      expect((await say(phone, 'reset', 'operator')).json.reason).toBe('command reset');
      await until('the reset confirmation', () => sends(phone).some((s) => s.text === 'Conversa redefinida ✅'));
      await new Promise((r) => setTimeout(r, FIRST_DELAY_MS + 300));
      expect(
        sends(phone)
          .map((s) => s.text)
          .filter((t) => t.startsWith('Tudo bem')),
      ).toHaveLength(1);
      expect(sends(phone)).toHaveLength(3);
      expect((await followups(phone)).length).toBe(plannedAfter.length);
      expect(await metric('leadflow_optouts_total')).toBe(metricsBefore + 1);

      // The person fills the form again (other answers: not a redelivery): opt-out cleared, answered
      // as a returning lead.
      await leadFromForm(phone, 'Maria Souza Lima');
      expect((await lead(phone))!.optout_at).toBeNull();
      // The intake's record gets its output as the run ends, which may be just after the follow-up it planned.
      await until('the intake of a returning lead', async () =>
        (await stack.executions('intake')).find((r) => (r.output as any)?.remotejid === phone && (r.output as any)?.kind === 'return'),
      );
      expect((await say(phone, 'Voltei, quero agendar')).json).toEqual({ status: 'queued' });
    });
  });
}
