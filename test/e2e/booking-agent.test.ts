// The agent books (CONTRACT §12) end to end over HTTP (test/e2e/stack.ts), on both backends: the
// seeded clinic given an agenda (interno, then Google's fake), fake OpenAI scripting the model's tool
// calls, the uazapi fake gateway. A lead asks for times, gets them, picks one and is booked (row,
// Hunter notice, reminders started under the appointment's key); moves and cancels by chat (notices,
// reminders replaced and dropped); two leads racing for the last place get one `marcado` and one
// `indisponivel`; with Google the event is created under an id that stays the appointment's; with
// Cal.com the booking follows the row (created, rescheduled, cancelled), and Cal.com failing answers
// the agent the sayable error: no row, no notice.
// The flows directory holds agent.yaml, its prompts, followup.yaml, reminders.yaml and a stub handoff.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settableClock } from '../../adapters/clock.js';
import { type FakeCalcom, startFakeCalcom } from '../fakes/calcom-server.js';
import { type FakeGoogleCalendar, startFakeGoogleCalendar, testServiceAccount } from '../fakes/google-calendar-server.js';
import { send, sentTo } from './providers.js';
import { forEachBackend, HUNTER_PHONE, insertLead, startStack, type Stack } from './stack.js';

const ROOT = join(import.meta.dirname, '../..');
const SP = 'America/Sao_Paulo';
/** Tuesday 1 December 2026, 08:50 in São Paulo: the first slot (11:00) is 130 minutes ahead. */
const NOW = Date.parse('2026-12-01T08:50-03:00');
const at = (local: string) => Date.parse(`${local}-03:00`);
const WEEKDAYS = '08:00-12:00,13:00-18:00';
const HOURS = JSON.stringify({ timezone: SP, seg: WEEKDAYS, ter: WEEKDAYS, qua: WEEKDAYS, qui: WEEKDAYS, sex: WEEKDAYS });
const FIRST_SIX = [
  { inicio: '2026-12-01T11:00', texto: 'terça, 01/12 às 11:00' },
  { inicio: '2026-12-01T13:00', texto: 'terça, 01/12 às 13:00' },
  { inicio: '2026-12-01T13:30', texto: 'terça, 01/12 às 13:30' },
  { inicio: '2026-12-02T08:00', texto: 'quarta, 02/12 às 08:00' },
  { inicio: '2026-12-02T08:30', texto: 'quarta, 02/12 às 08:30' },
  { inicio: '2026-12-02T09:00', texto: 'quarta, 02/12 às 09:00' },
];

const STUB_HANDOFF = `
name: handoff
description: Test stub of the handoff endpoint.
trigger:
  webhook: { path: /handoff-agenteia, auth: secret, respond: { mode: step, timeout_ms: 5000 } }
  input: { type: object }
steps:
  - id: reply
    type: respond
    params: { status: 200, body: { transferido: true } }
`;

/** The Hunter's notice of §12, exactly. */
const notice = (title: string, nome: string, phone: string, quando: string) =>
  `${title}\n━━━━━━━━━━━━━━━\nNome: ${nome}\nTelefone: https://wa.me/${phone}\nQuando: ${quando}`;

let phoneSeq = 0;
const nextPhone = () => `55119${String(60000000 + ++phoneSeq * 1313).padStart(8, '0')}`;

forEachBackend('agent booking', (backend) => {
  let stack: Stack;
  let flowsDir: string;
  const clock = settableClock(NOW);

  beforeAll(async () => {
    flowsDir = mkdtempSync(join(tmpdir(), 'leadflow-booking-flows-'));
    for (const file of ['agent.yaml', 'followup.yaml', 'reminders.yaml']) cpSync(join(ROOT, 'flows', file), join(flowsDir, file));
    cpSync(join(ROOT, 'flows/prompts'), join(flowsDir, 'prompts'), { recursive: true });
    writeFileSync(join(flowsDir, 'handoff.yaml'), STUB_HANDOFF);
    stack = await startStack({
      backend,
      flowsDir,
      clock,
      env: { LEADFLOW_FLOWS_DIR: flowsDir, LEADFLOW_DEBOUNCE_MS: backend === 'postgres+redis' ? '600' : '200' },
    });
    await setAgenda({ provider: 'interno' });
  });

  afterAll(async () => {
    await stack?.close();
    if (flowsDir) rmSync(flowsDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    await stack.idle();
    clock.set(NOW);
    stack.openai.reset();
  });

  async function setAgenda(agenda: unknown): Promise<void> {
    await stack.runtime.db.update(
      'clinicas_com_atendentes',
      { id: stack.clinic.id },
      { agenda: JSON.stringify(agenda), horario_atendimento: HOURS },
    );
  }

  /** The lead writes `text` and the run ends. */
  async function say(phone: string, text: string): Promise<void> {
    expect((await send(stack, { phone, text })).json).toEqual({ status: 'queued' });
    await stack.idle();
  }

  /** What the tools answered in the last chat request (the model's second call of the turn). */
  const lastToolResults = () =>
    stack.openai
      .chatRequests()
      .at(-1)
      .messages.filter((m: any) => m.role === 'tool')
      .map((m: any) => JSON.parse(m.content));

  const appointmentsOf = (leadId: number) => stack.runtime.db.find('agendamentos', { where: { lead_id: leadId } });
  const remindersUnder = async (key: string) => (await stack.executions('reminders')).filter((r) => r.concurrency_key === key);
  const hunterNotices = (phone: string) => sentTo(stack, HUNTER_PHONE).filter((t) => t.includes(`https://wa.me/${phone}`));

  it('a lead asks for times, picks one and is booked; then moves it and cancels it by chat', async () => {
    const phone = nextPhone();
    const lead = await insertLead(stack, phone, { nome: 'Maria  Souza' });

    // 1. Times: the model calls ver_horarios and offers them.
    stack.openai.queueChat(
      { tool_calls: [{ name: 'ver_horarios', arguments: {} }] },
      { text: 'Tenho terça às 11:00 ou às 13:00. Qual prefere?' },
    );
    await say(phone, 'Quero marcar uma avaliação');
    expect(lastToolResults()).toEqual([{ horarios: FIRST_SIX }]);
    const system = stack.openai.chatRequests()[0].messages[0].content as string;
    expect(system).toContain('Situação atual: a pessoa não tem avaliação marcada.');
    expect(sentTo(stack, phone)).toEqual(['Tenho terça às 11:00 ou às 13:00. Qual prefere?']);

    // 2. Picks 13:00: booked, the Hunter told, the reminders started under the appointment's key.
    stack.openai.reset();
    stack.openai.queueChat(
      { tool_calls: [{ name: 'agendar', arguments: { inicio: '2026-12-01T13:00', lead_id: 999 } }] },
      { text: 'Pronto! Sua avaliação está marcada para terça, 01/12 às 13:00.' },
    );
    await say(phone, 'Às 13h');
    const [row] = await appointmentsOf(lead.id as number);
    expect(row).toMatchObject({ clinica_id: stack.clinic.id, status: 'marcado', origem: 'agente', provider: 'interno' });
    expect(new Date(row!.inicio as string).getTime()).toBe(at('2026-12-01T13:00'));
    expect(lastToolResults()).toEqual([
      { status: 'marcado', agendamento_id: row!.id, inicio: '2026-12-01T13:00', texto: 'terça, 01/12 às 13:00' },
    ]);
    expect(hunterNotices(phone)).toEqual([notice('*📅 AVALIAÇÃO AGENDADA*', 'Maria Souza', phone, 'terça, 01/12 às 13:00')]);
    const key = `agendamento:${row!.id}`;
    const started = await remindersUnder(key);
    expect(started).toHaveLength(1);
    expect(started[0]!.trigger.body).toEqual({ agendamento_id: row!.id });
    expect((await stack.runtime.db.get('leads', { id: lead.id }))!.transferido).toBeFalsy();

    // 3. Moves it: same row, REMARCADA notice, the reminders started again under the same key.
    stack.openai.reset();
    stack.openai.queueChat(
      { tool_calls: [{ name: 'agendar', arguments: { inicio: '2026-12-02T08:30' } }] },
      { text: 'Remarcado para quarta às 08:30.' },
    );
    await say(phone, 'Preciso mudar para quarta 8h30');
    expect(stack.openai.chatRequests()[0].messages[0].content).toContain(
      'a pessoa já tem uma avaliação marcada para terça, 01/12 às 13:00.',
    );
    const moved = await appointmentsOf(lead.id as number);
    expect(moved.map((r) => [r.id, r.status, new Date(r.inicio as string).getTime()])).toEqual([
      [row!.id, 'marcado', at('2026-12-02T08:30')],
    ]);
    expect(hunterNotices(phone).at(-1)).toBe(notice('*📅 AVALIAÇÃO REMARCADA*', 'Maria Souza', phone, 'quarta, 02/12 às 08:30'));
    expect(await remindersUnder(key)).toHaveLength(2);

    // 4. Cancels it: CANCELADA notice, the reminders under the key cancelled.
    stack.openai.reset();
    stack.openai.queueChat(
      { tool_calls: [{ name: 'cancelar_agendamento', arguments: { motivo: 'viagem' } }] },
      { text: 'Cancelado. Quando quiser, remarcamos.' },
    );
    await say(phone, 'Vou viajar, cancela por favor');
    expect(lastToolResults()).toEqual([{ status: 'cancelado' }]);
    expect((await appointmentsOf(lead.id as number)).map((r) => r.status)).toEqual(['cancelado']);
    expect(hunterNotices(phone)).toEqual([
      notice('*📅 AVALIAÇÃO AGENDADA*', 'Maria Souza', phone, 'terça, 01/12 às 13:00'),
      notice('*📅 AVALIAÇÃO REMARCADA*', 'Maria Souza', phone, 'quarta, 02/12 às 08:30'),
      notice('*❌ AVALIAÇÃO CANCELADA*', 'Maria Souza', phone, 'quarta, 02/12 às 08:30'),
    ]);
    const runs = await stack.executions('agent');
    const last = runs.find((r) => r.steps.some((s) => s.key === 'drop_reminders'));
    expect(last?.steps.find((s) => s.key === 'drop_reminders')?.status).toBe('success');
  });

  it('two leads racing for the last place: one marcado, one indisponivel with alternatives, one notice', async () => {
    const [p1, p2] = [nextPhone(), nextPhone()];
    const l1 = await insertLead(stack, p1, { nome: 'Ana' });
    const l2 = await insertLead(stack, p2, { nome: 'Bia' });
    // Each run's first model call takes one of these (answered after a pause, so both runs hold one
    // before either books); the second calls get the default text.
    const book = { tool_calls: [{ name: 'agendar', arguments: { inicio: '2026-12-03T10:00' } }], delay_ms: 1500 };
    stack.openai.queueChat(book, book);
    await Promise.all([send(stack, { phone: p1, text: 'Quinta às 10h' }), send(stack, { phone: p2, text: 'Quinta às 10h' })]);
    await stack.idle();
    const rows = [...(await appointmentsOf(l1.id as number)), ...(await appointmentsOf(l2.id as number))];
    expect(rows).toHaveLength(1);
    const results = stack.openai
      .chatRequests()
      .flatMap((r: any) => r.messages.filter((m: any) => m.role === 'tool').map((m: any) => JSON.parse(m.content)));
    expect(results.map((r: any) => r.status).sort()).toEqual(['indisponivel', 'marcado']);
    const refused = results.find((r: any) => r.status === 'indisponivel');
    expect(refused.alternativas.length).toBeGreaterThan(0);
    expect(refused.alternativas.map((a: any) => a.inicio)).not.toContain('2026-12-03T10:00');
    const winner = rows[0]!.lead_id === l1.id ? p1 : p2;
    const loser = winner === p1 ? p2 : p1;
    expect(hunterNotices(winner)).toHaveLength(1);
    expect(hunterNotices(loser)).toEqual([]);
  });

  describe("with Google Calendar's fake", () => {
    let google: FakeGoogleCalendar;
    const CAL = 'clinica-sorriso@group.calendar.google.com';
    beforeAll(async () => {
      const account = testServiceAccount();
      google = await startFakeGoogleCalendar({ accounts: { [account.client_email]: account.publicKey } });
      google.addCalendar(CAL, { [account.client_email]: 'writer' });
      await setAgenda({
        provider: 'google',
        google: {
          calendar_id: CAL,
          service_account: { client_email: account.client_email, private_key: account.private_key },
          base_url: google.baseUrl,
          token_url: google.tokenUrl,
        },
      });
    });
    afterAll(async () => {
      await setAgenda({ provider: 'interno' });
      await google?.close();
    });

    it('the booking creates the event; the move keeps its id; a busy time of the calendar is not offered', async () => {
      google.addEvent(CAL, { start: { dateTime: '2026-12-04T10:00:00-03:00' }, end: { dateTime: '2026-12-04T12:00:00-03:00' } });
      const phone = nextPhone();
      const lead = await insertLead(stack, phone, { nome: 'Carla' });
      stack.openai.queueChat(
        { tool_calls: [{ name: 'ver_horarios', arguments: { dia: '2026-12-04', periodo: 'manha' } }] },
        { tool_calls: [{ name: 'agendar', arguments: { inicio: '2026-12-04T08:00' } }] },
        { text: 'Marcado para sexta às 08:00.' },
      );
      await say(phone, 'Sexta de manhã');
      const [horarios, booked] = stack.openai
        .chatRequests()
        .slice(1)
        .map((r: any) => JSON.parse(r.messages.at(-1).content));
      // 10:00–12:00 is busy in the calendar: 08:00, 08:30 and 09:00 only (3 a day).
      expect(horarios.horarios.map((h: any) => h.inicio)).toEqual(['2026-12-04T08:00', '2026-12-04T08:30', '2026-12-04T09:00']);
      const [row] = await appointmentsOf(lead.id as number);
      expect(booked).toEqual({ status: 'marcado', agendamento_id: row!.id, inicio: '2026-12-04T08:00', texto: 'sexta, 04/12 às 08:00' });
      expect(row!.provider).toBe('google');
      const eventId = row!.external_id as string;
      const event = google.events(CAL).find((e) => e.id === eventId);
      expect(event).toBeDefined();
      expect(Date.parse(event!.start.dateTime!)).toBe(at('2026-12-04T08:00'));
      expect(hunterNotices(phone)).toEqual([notice('*📅 AVALIAÇÃO AGENDADA*', 'Carla', phone, 'sexta, 04/12 às 08:00')]);

      stack.openai.reset();
      stack.openai.queueChat({ tool_calls: [{ name: 'agendar', arguments: { inicio: '2026-12-04T13:00' } }] }, { text: 'Remarcado.' });
      await say(phone, 'Melhor 13h');
      const [after] = await appointmentsOf(lead.id as number);
      expect(after!.external_id).toBe(eventId);
      const mine = google.events(CAL).filter((e) => e.id === eventId);
      expect(mine).toHaveLength(1);
      expect(Date.parse(mine[0]!.start.dateTime!)).toBe(at('2026-12-04T13:00'));
      expect(google.events(CAL)).toHaveLength(2);
    });
  });

  describe("with Cal.com's fake", () => {
    let calcom: FakeCalcom;
    const SLOTS = ['2026-12-07T09:00', '2026-12-07T10:00', '2026-12-07T14:00'].map(at);
    beforeAll(async () => {
      calcom = await startFakeCalcom({ apiKey: 'cal_live_e2e', slots: SLOTS });
      await setAgenda({ provider: 'calcom', calcom: { api_key: 'cal_live_e2e', event_type_id: calcom.eventTypeId, base_url: calcom.url } });
    });
    afterAll(async () => {
      await setAgenda({ provider: 'interno' });
      await calcom?.close();
    });

    it('the booking follows the row: created, rescheduled to a new uid, cancelled', async () => {
      const phone = nextPhone();
      const lead = await insertLead(stack, phone, { nome: 'Dora' });
      stack.openai.queueChat({ tool_calls: [{ name: 'agendar', arguments: { inicio: '2026-12-07T09:00' } }] }, { text: 'Marcado.' });
      await say(phone, 'Segunda 9h');
      const [row] = await appointmentsOf(lead.id as number);
      expect(row).toMatchObject({ provider: 'calcom', status: 'marcado' });
      const first = calcom.bookings.find((b) => b.uid === row!.external_id);
      expect(first).toMatchObject({ status: 'accepted', start: at('2026-12-07T09:00') });
      expect(first!.metadata.leadflowAgendamento).toBe(String(row!.id));

      stack.openai.reset();
      stack.openai.queueChat({ tool_calls: [{ name: 'agendar', arguments: { inicio: '2026-12-07T14:00' } }] }, { text: 'Remarcado.' });
      await say(phone, 'Melhor 14h');
      const [movedRow] = await appointmentsOf(lead.id as number);
      expect(movedRow!.id).toBe(row!.id);
      expect(movedRow!.external_id).not.toBe(row!.external_id);
      const active = calcom.bookings.filter((b) => b.metadata.leadflowAgendamento === String(row!.id) && b.status === 'accepted');
      expect(active.map((b) => [b.uid, b.start])).toEqual([[movedRow!.external_id, at('2026-12-07T14:00')]]);

      stack.openai.reset();
      stack.openai.queueChat(
        { tool_calls: [{ name: 'cancelar_agendamento', arguments: { motivo: 'imprevisto' } }] },
        { text: 'Cancelado.' },
      );
      await say(phone, 'Cancela');
      expect((await appointmentsOf(lead.id as number)).map((r) => r.status)).toEqual(['cancelado']);
      expect(calcom.bookings.find((b) => b.uid === movedRow!.external_id)?.status).toBe('cancelled');
      expect(hunterNotices(phone).map((t) => t.split('\n')[0])).toEqual([
        '*📅 AVALIAÇÃO AGENDADA*',
        '*📅 AVALIAÇÃO REMARCADA*',
        '*❌ AVALIAÇÃO CANCELADA*',
      ]);
    });

    it('Cal.com failing: the agent is told it could not see the calendar; no row, no notice', async () => {
      const phone = nextPhone();
      const lead = await insertLead(stack, phone, { nome: 'Eva' });
      calcom.fail(100, 503);
      try {
        stack.openai.queueChat(
          { tool_calls: [{ name: 'ver_horarios', arguments: {} }] },
          { text: 'Não consegui ver a agenda agora. Posso pedir para a Mariana combinar com você?' },
        );
        await say(phone, 'Quais horários tem?');
      } finally {
        calcom.clearFailures();
      }
      expect(lastToolResults()).toEqual([{ erro: 'não consegui ver a agenda agora' }]);
      expect(sentTo(stack, phone)).toEqual(['Não consegui ver a agenda agora. Posso pedir para a Mariana combinar com você?']);
      expect(await appointmentsOf(lead.id as number)).toEqual([]);
      expect(hunterNotices(phone)).toEqual([]);
    });
  });
});
