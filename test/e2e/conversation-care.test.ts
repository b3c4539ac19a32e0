// Conversation care (CONTRACT.md §9) end to end over HTTP on both backends (test/e2e/stack.ts): the
// shipped flows (intake, agent, followup, handoff), the fake gateway and AI providers, short delays,
// and a clock the test sets (the clinic's hours are read against it; waits run in real time).
//   - human takeover: pause, silence with the lead's words kept, resume with the operator's words in
//     the model's input, destrans ends it;
//   - follow-ups: two after the two delays and none after; a lead's reply cancels and restarts the
//     count; none to a transferred, paused, opted-out or erased lead; a closed clinic waits for its
//     next opening;
//   - opt-out: confirmed once, silence after, commands still work, counted, cleared by a new form.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settableClock, type SettableClock } from '../../adapters/clock.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { parseMetrics, sampleValue } from '../helpers/metrics-text.js';
import { CLINIC_PHONE, forEachBackend, INSTANCE_TOKEN, startStack, type Backend, type Stack } from './stack.js';

/** The follow-up delays of these tests, ms: the second counted from the first follow-up. */
const FIRST_DELAY_MS = 700;
const SECOND_DELAY_MS = 1000;
/** Longer than the 2 s the "none to …" test gives itself before a follow-up is due. */
const TAKEOVER_MS = 3000;

let phoneSeq = 0;
/** A fresh lead phone per test, so keys and memory never mix. */
const nextPhone = () => `55119${String(61000000 + ++phoneSeq * 1313).padStart(8, '0')}`;

let idSeq = 0;
/** A uazapi text event in the lead's chat: from the lead, or typed on the clinic's phone (fromMe). */
function event(phone: string, text: string, options: { fromMe?: boolean; wasSentByApi?: boolean } = {}): Record<string, any> {
  const jid = `${phone}@s.whatsapp.net`;
  const fromMe = options.fromMe ?? false;
  return {
    EventType: 'messages',
    token: INSTANCE_TOKEN,
    owner: CLINIC_PHONE,
    chat: { wa_chatid: jid },
    message: {
      messageid: `3EB0CARE${String(++idSeq).padStart(10, '0')}`,
      chatid: jid,
      sender_pn: fromMe ? `${CLINIC_PHONE}@s.whatsapp.net` : jid,
      fromMe,
      wasSentByApi: options.wasSentByApi ?? false,
      isGroup: false,
      messageType: 'Conversation',
      type: 'text',
      text,
      content: text,
      messageTimestamp: Date.now(),
    },
  };
}

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

forEachBackend('conversation care', (backend: Backend) => {
  let stack: Stack;
  let clock: SettableClock;

  beforeAll(async () => {
    clock = settableClock();
    stack = await startStack({
      backend,
      clock,
      env: {
        LEADFLOW_TAKEOVER_MS: String(TAKEOVER_MS),
        LEADFLOW_FOLLOWUP_AFTER_MS: `${FIRST_DELAY_MS},${SECOND_DELAY_MS}`,
        LEADFLOW_DEBOUNCE_MS: backend === 'postgres+redis' ? '400' : '150',
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const db = () => stack.runtime.db;
  const post = async (body: unknown) => {
    const res = await stack.post('/leadagent', body);
    return { status: res.status, json: (await res.json()) as any };
  };
  const sends = (phone: string) => stack.gateway.requestsTo('/send/text').filter((r) => r.status === 200 && r.body.number === phone);
  const memory = async (phone: string) =>
    (await db().find('wf_chat_histories', { where: { clinica_id: stack.clinic.id, session_id: phone } })).sort(
      (a, b) => Number(a.id) - Number(b.id),
    );
  const lead = (phone: string) => db().get('leads', { clinica_id: stack.clinic.id, remotejid: phone });
  const followups = async (phone: string): Promise<ExecutionRecord[]> =>
    (await stack.executions('followup')).filter((r) => (r.trigger.body as any)?.remotejid === phone);
  const chatRequestsAbout = (text: string) => stack.openai.chatRequests().filter((r) => JSON.stringify(r.messages).includes(text));
  const metric = async (name: string) => sampleValue(parseMetrics(await (await fetch(`${stack.url}/metrics`)).text()), name);
  const isFollowupRequest = (r: any) => JSON.stringify(r.messages).includes('parou de responder');

  /** A lead as the form makes one (the intake flow): its first message sent, a follow-up planned. */
  async function leadFromForm(phone: string, nome = 'Maria Souza') {
    const before = sends(phone).length;
    const res = await stack.post('/form/intake', { nome, telefone: phone, orcamento: 'Até R$ 3.000', clinica_id: stack.clinic.id });
    expect(res.status).toBe(202);
    await until('the first message', () => sends(phone).length > before);
    return until('the planned follow-up', async () => (await followups(phone)).find((r) => r.status === 'waiting'));
  }

  /** Sets the clinic's hours (null: always open). */
  const setHours = (value: string | null) =>
    db().update('clinicas_com_atendentes', { id: stack.clinic.id }, { horario_atendimento: value });

  describe('human takeover', () => {
    it('a message typed on the clinic phone pauses the agent; the lead is kept in memory, unanswered; after the pause the model sees both', async () => {
      const phone = nextPhone();
      await leadFromForm(phone);
      const sentBefore = sends(phone).length;

      const typed = await post(event(phone, 'Oi Maria, aqui é a Carla da clínica. Posso te ligar amanhã?', { fromMe: true }));
      expect(typed).toEqual({ status: 200, json: { status: 'ignored', reason: 'typed by the clinic' } });
      const paused = await lead(phone);
      const pausedUntil = Date.parse(String(paused!.pausado_ate));
      expect(pausedUntil).toBeGreaterThan(Date.now() + TAKEOVER_MS - 1_000);
      expect(pausedUntil).toBeLessThanOrEqual(Date.now() + TAKEOVER_MS);

      const chatsBefore = stack.openai.chatRequests().length;
      const during = await post(event(phone, 'Pode sim, depois das 14h'));
      expect(during).toEqual({ status: 200, json: { status: 'ignored', reason: 'agent paused' } });
      // LeadFlow's own send (wasSentByApi) pauses nothing.
      const own = await post(event(phone, 'mensagem enviada pela API', { fromMe: true, wasSentByApi: true }));
      expect(own.json.reason).toBe('sent by the clinic');
      expect(Date.parse(String((await lead(phone))!.pausado_ate))).toBe(pausedUntil);

      expect((await memory(phone)).map((r) => [r.type, r.content])).toEqual([
        ['agent', expect.any(String)],
        ['operator', 'Oi Maria, aqui é a Carla da clínica. Posso te ligar amanhã?'],
        ['lead', 'Pode sim, depois das 14h'],
      ]);
      expect(stack.openai.chatRequests().length).toBe(chatsBefore);
      expect(sends(phone).length).toBe(sentBefore);

      await until('the end of the pause', () => Date.now() > pausedUntil + 50);
      expect((await post(event(phone, 'Qual o valor?'))).json).toEqual({ status: 'queued' });
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

    it('destrans typed on the clinic phone ends a pause at once', async () => {
      const phone = nextPhone();
      await leadFromForm(phone);
      await post(event(phone, 'Deixa comigo, eu atendo essa.', { fromMe: true }));
      expect((await lead(phone))!.pausado_ate).not.toBeNull();
      const res = await post(event(phone, 'destrans', { fromMe: true }));
      expect(res.json.reason).toBe('command destrans');
      expect((await lead(phone))!.pausado_ate).toBeNull();
      const sentBefore = sends(phone).length;
      expect((await post(event(phone, 'Ainda tenho uma dúvida'))).json).toEqual({ status: 'queued' });
      await until('the reply', () => sends(phone).length > sentBefore);
    });
  });

  describe('follow-ups', () => {
    it('two follow-ups after the two delays, each counted from the previous message, then none', async () => {
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
      expect((await post(event(phone, 'Oi! Quero saber mais'))).json).toEqual({ status: 'queued' });
      await until('the agent reply', () => sends(phone).length >= 2);
      const reply = sends(phone)[1]!.at;
      expect((await stack.runtime.store.get(planned.id))?.status).toBe('cancelled');
      await until('the follow-up after the reply', () => sends(phone).length >= 3, 10_000);
      expect(sends(phone)[2]!.at - reply).toBeGreaterThanOrEqual(FIRST_DELAY_MS);
      const all = await followups(phone);
      expect(all.filter((r) => r.status === 'cancelled').map((r) => r.id)).toContain(planned.id);
    });

    it('any message from the lead cancels the pending follow-up, even one with nothing to answer', async () => {
      const phone = nextPhone();
      const planned = await leadFromForm(phone);
      const res = await post(event(phone, '   '));
      expect(res.json).toEqual({ status: 'ignored', reason: 'no text in a text message' });
      expect((await stack.runtime.store.get(planned.id))?.status).toBe('cancelled');
      expect((await followups(phone)).filter((r) => r.status === 'waiting')).toEqual([]);
    });

    it('none to a lead transferred, paused, opted out or erased by the time it is due', async () => {
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
      await post(event(paused, 'Oi, é a Carla, vou cuidar de você.', { fromMe: true }));
      await db().update('leads', { clinica_id: stack.clinic.id, remotejid: optedOut }, { optout_at: new Date().toISOString() });
      expect((await post(event(erased, 'excluir', { fromMe: true }))).json.reason).toBe('command excluir');

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
      expect(sends(erased).map((s) => s.body.text)).toEqual(['Contato excluído ✅']);
    });

    it('due while the clinic is closed, it waits for the next opening', async () => {
      await setHours(WEEKDAYS_8_TO_18);
      // Saturday evening: the next opening is Monday 08:00, 60 hours away.
      clock.set(saturdayInSaoPaulo('20:00:00'));
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
      expect((await post(event(weekend, 'Vocês atendem no sábado?'))).json).toEqual({ status: 'queued' });
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
      clock.set(Date.now());
      await setHours(null);
    });
  });

  describe('opt-out', () => {
    it('an opt-out word is confirmed once and silences the agent; commands still work; a new form clears it', async () => {
      await setHours(null);
      const phone = nextPhone();
      await leadFromForm(phone);
      const metricsBefore = (await metric('leadflow_optouts_total')) ?? 0;

      expect((await post(event(phone, ' Párar! '))).json).toEqual({ status: 'ignored', reason: 'lead opted out' });
      await until('the confirmation', () => sends(phone).length >= 2);
      expect(sends(phone)[1]!.body.text).toBe('Tudo bem, você não receberá mais mensagens automáticas. ✅');
      expect((await lead(phone))!.optout_at).not.toBeNull();
      // The opt-out cancelled the pending follow-up and planned none.
      const plannedAfter = await followups(phone);
      expect(plannedAfter.filter((r) => r.status === 'waiting' || r.status === 'running')).toEqual([]);

      expect((await post(event(phone, 'oi, ainda está aí?'))).json).toEqual({ status: 'ignored', reason: 'lead opted out' });
      expect((await post(event(phone, 'PARAR'))).json).toEqual({ status: 'ignored', reason: 'lead opted out' });
      expect((await post(event(phone, 'reset', { fromMe: true }))).json.reason).toBe('command reset');
      await until('the reset confirmation', () => sends(phone).some((s) => s.body.text === 'Conversa redefinida ✅'));
      await new Promise((r) => setTimeout(r, FIRST_DELAY_MS + 300));
      expect(
        sends(phone)
          .map((s) => s.body.text)
          .filter((t) => t.startsWith('Tudo bem')),
      ).toHaveLength(1);
      expect(sends(phone)).toHaveLength(3);
      expect((await followups(phone)).length).toBe(plannedAfter.length);
      expect(await metric('leadflow_optouts_total')).toBe(metricsBefore + 1);

      // The person fills the form again (other answers: not a redelivery): opt-out cleared, answered
      // as a returning lead.
      await leadFromForm(phone, 'Maria Souza Lima');
      expect((await lead(phone))!.optout_at).toBeNull();
      const intake = (await stack.executions('intake')).find(
        (r) => (r.output as any)?.remotejid === phone && (r.output as any)?.kind === 'return',
      );
      expect(intake).toBeDefined();
      expect((await post(event(phone, 'Voltei, quero agendar'))).json).toEqual({ status: 'queued' });
    });
  });
});
