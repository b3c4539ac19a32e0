// The agent's booking tools (nodes/lead/lib/booking-tools.ts) and their place in ai.agent, on SQLite
// with the real booking store: given only for a clinic with an agenda (prompt appended with the
// lead's upcoming appointment, transferir no longer for scheduling), §12's JSON exactly, bound to the
// current lead whatever ids the model passes, an identical call answered once per run, a dry run
// books nothing, a provider down or hanging (Cal.com's fake) answers the sayable error JSON, and a
// row whose provider copy was lost in a crash gets it made again by the next agendar.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAiService, type AiService } from '../../adapters/ai/ai-service.js';
import { type BookingService, bookingService } from '../../adapters/calendar/booking-service.js';
import { settableClock } from '../../adapters/clock.js';
import type { Database } from '../../adapters/db/database.js';
import { NodeRegistry } from '../../engine/registry.js';
import type { NodeContext } from '../../engine/types.js';
import { coreNodes } from '../../nodes/index.js';
import aiAgent from '../../nodes/lead/ai-agent.js';
import { AGENDA_ERROR, type BookingEffects, bookingTools, mergeBookingEvent } from '../../nodes/lead/lib/booking-tools.js';
import { type FakeCalcom, startFakeCalcom } from '../fakes/calcom-server.js';
import { startFakeGoogleCalendar, testServiceAccount } from '../fakes/google-calendar-server.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import { openTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { runFlow, shutdownEngines, stepOutput } from '../helpers/run-flow.js';

const SP = 'America/Sao_Paulo';
/** Tuesday 1 December 2026, 08:50 in São Paulo (the first slot, 11:00, is 130 minutes ahead). */
const NOW = Date.parse('2026-12-01T08:50-03:00');
const at = (local: string) => Date.parse(`${local}-03:00`);
const HOURS = JSON.stringify({
  timezone: SP,
  seg: '08:00-12:00,13:00-18:00',
  ter: '08:00-12:00,13:00-18:00',
  qua: '08:00-12:00,13:00-18:00',
  qui: '08:00-12:00,13:00-18:00',
});
const BOOKING_PROMPT = 'Agenda de {{hunter_nome}}: {{agendamento_atual}}';
/** The first six free slots of an empty interno agenda at NOW (3 per day). */
const FIRST_SIX = [
  { inicio: '2026-12-01T11:00', texto: 'terça, 01/12 às 11:00' },
  { inicio: '2026-12-01T13:00', texto: 'terça, 01/12 às 13:00' },
  { inicio: '2026-12-01T13:30', texto: 'terça, 01/12 às 13:30' },
  { inicio: '2026-12-02T08:00', texto: 'quarta, 02/12 às 08:00' },
  { inicio: '2026-12-02T08:30', texto: 'quarta, 02/12 às 08:30' },
  { inicio: '2026-12-02T09:00', texto: 'quarta, 02/12 às 09:00' },
];

const registry = new NodeRegistry([...coreNodes, aiAgent]);
const clock = settableClock(NOW);
let openai: FakeOpenAi;
let ai: AiService;
let t: TestDatabase;
let db: Database;
let opens = 0;
let booking: BookingService;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  ai = createAiService({ OPENAI_API_KEY: 'sk-o', OPENAI_BASE_URL: openai.baseURL });
  t = await openTestDatabase('sqlite');
  db = t.db;
  const inner = bookingService(db, { clock, limits: { clock } });
  booking = {
    open(signal) {
      opens++;
      return inner.open(signal);
    },
  };
});
afterAll(async () => {
  await openai.close();
  await t.cleanup();
});
beforeEach(() => {
  clock.set(NOW);
  openai.reset();
});
afterEach(() => shutdownEngines());

let seq = 0;
async function clinicWith(agenda: unknown): Promise<{ clinic: Record<string, unknown>; leads: Array<Record<string, unknown>> }> {
  seq++;
  const clinic = await db.insert('clinicas_com_atendentes', {
    nome: `Clínica ${seq}`,
    hunter_nome: 'Rafa',
    hunter_telefone: '5511900000001',
    horario_atendimento: HOURS,
    agenda: agenda === null ? null : JSON.stringify(agenda),
  });
  const leads = [];
  for (const i of [1, 2])
    leads.push(
      await db.insert('leads', { clinica_id: clinic.id, remotejid: `5511987${String(seq).padStart(2, '0')}000${i}`, nome: `Lead ${i}` }),
    );
  return { clinic, leads };
}

const flow = (lead: Record<string, unknown>, clinic: Record<string, unknown>) => `
name: answer
steps:
  - id: agent
    type: ai.agent
    params:
      lead: { id: ${lead.id}, clinica_id: ${lead.clinica_id}, remotejid: "${lead.remotejid}", nome: "${lead.nome}" }
      clinic: { id: ${clinic.id}, nome: "${clinic.nome}", hunter_nome: Rafa }
      protocol: null
      input: quero marcar
      prompt: "{{ trigger.body.prompt }}"
      booking_prompt: "{{ trigger.body.booking_prompt }}"
      model: openai:gpt-4.1-mini
      handoff_url: http://127.0.0.1:9/handoff-agenteia
`;

async function turn(lead: Record<string, unknown>, clinic: Record<string, unknown>, dryRun = false) {
  const { record } = await runFlow(flow(lead, clinic), {
    body: { prompt: 'Clínica {{clinica_nome}}.', booking_prompt: BOOKING_PROMPT },
    engine: { registry, services: { ai, db, booking, clock } },
    ...(dryRun ? { start: { dryRun: true } } : {}),
  });
  expect(record.status).toBe('success');
  return record;
}

/** The tool results the model received in its second request, parsed. */
const toolResults = () =>
  openai
    .chatRequests()[1]
    .messages.filter((m: any) => m.role === 'tool')
    .map((m: any) => JSON.parse(m.content));

describe('ai.agent with booking', () => {
  it('a clinic without an agenda gets no booking tools, no booking prompt, and transferir keeps scheduling', async () => {
    const { clinic, leads } = await clinicWith(null);
    openai.queueChat({ text: 'Vou chamar a Rafa.' });
    const record = await turn(leads[0]!, clinic);
    const request = openai.chatRequests()[0];
    expect(request.tools.map((x: any) => x.function.name)).toEqual(['buscar_lead', 'buscar_clinica', 'buscar_protocolo', 'transferir']);
    expect(request.messages[0].content).toBe(`Clínica ${clinic.nome}.`);
    expect(request.tools.find((x: any) => x.function.name === 'transferir').function.description).toContain('o lead quer agendar');
    expect(stepOutput(record, 'agent').agendamento).toBeNull();
  });

  it('without a booking store (a host that gives none) the turn runs without booking tools', async () => {
    const { clinic, leads } = await clinicWith({ provider: 'interno' });
    openai.queueChat({ text: 'Oi!' });
    const { record } = await runFlow(flow(leads[0]!, clinic), {
      body: { prompt: 'Clínica {{clinica_nome}}.', booking_prompt: BOOKING_PROMPT },
      engine: { registry, services: { ai, db, clock } },
    });
    expect(record.status).toBe('success');
    expect(openai.chatRequests()[0].tools.map((x: any) => x.function.name)).toEqual([
      'buscar_lead',
      'buscar_clinica',
      'buscar_protocolo',
      'transferir',
    ]);
  });

  it('lists, books for the current lead only (ids the model passes ignored), states it in the next prompt, and moves it', async () => {
    const { clinic, leads } = await clinicWith({ provider: 'interno' });
    const [lead, other] = leads as [Record<string, unknown>, Record<string, unknown>];
    openai.queueChat(
      {
        tool_calls: [
          { name: 'ver_horarios', arguments: { lead_id: other.id } },
          { name: 'ver_horarios', arguments: { dia: '2026-12-02', periodo: 'tarde' } },
          { name: 'ver_horarios', arguments: { periodo: 'madrugada' } },
          { name: 'agendar', arguments: { inicio: '2026-12-01T13:00', lead_id: other.id, telefone: other.remotejid } },
          { name: 'agendar', arguments: { inicio: '2026-12-01T12:00' } },
        ],
      },
      { text: 'Marcado para terça, 01/12 às 13:00.' },
    );
    const record = await turn(lead, clinic);
    const first = openai.chatRequests()[0];
    expect(first.messages[0].content).toBe(`Clínica ${clinic.nome}.\n\nAgenda de Rafa: a pessoa não tem avaliação marcada.`);
    expect(first.tools.map((x: any) => x.function.name)).toEqual([
      'buscar_lead',
      'buscar_clinica',
      'buscar_protocolo',
      'transferir',
      'ver_horarios',
      'agendar',
      'cancelar_agendamento',
    ]);
    expect(first.tools.find((x: any) => x.function.name === 'transferir').function.description).not.toContain('o lead quer agendar');
    const rows = await db.find('agendamentos', { where: { clinica_id: clinic.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ lead_id: lead.id, status: 'marcado', origem: 'agente', provider: 'interno', external_id: null });
    const id = rows[0]!.id;
    expect(toolResults()).toEqual([
      { horarios: FIRST_SIX },
      {
        horarios: [
          { inicio: '2026-12-02T13:00', texto: 'quarta, 02/12 às 13:00' },
          { inicio: '2026-12-02T13:30', texto: 'quarta, 02/12 às 13:30' },
          { inicio: '2026-12-02T14:00', texto: 'quarta, 02/12 às 14:00' },
        ],
      },
      { horarios: [], motivo: 'Período inválido: use manha, tarde ou noite.' },
      { status: 'marcado', agendamento_id: id, inicio: '2026-12-01T13:00', texto: 'terça, 01/12 às 13:00' },
      // 12:00 is closed: not a free slot, never an error; the lead's own time stays among the alternatives.
      { status: 'indisponivel', alternativas: FIRST_SIX },
    ]);
    // Booked then refused in one run: the event is the booking.
    expect(stepOutput(record, 'agent').agendamento).toEqual({
      evento: 'marcado',
      agendamento_id: id,
      texto: 'terça, 01/12 às 13:00',
      inicio: '2026-12-01T13:00',
    });

    // Next turn: the prompt states the appointment; a move is `remarcado`, the same row.
    openai.reset();
    openai.queueChat({ tool_calls: [{ name: 'agendar', arguments: { inicio: '2026-12-02T08:30' } }] }, { text: 'Remarcado.' });
    const moved = await turn(lead, clinic);
    expect(openai.chatRequests()[0].messages[0].content).toContain(
      'Agenda de Rafa: a pessoa já tem uma avaliação marcada para terça, 01/12 às 13:00.',
    );
    expect(toolResults()).toEqual([
      { status: 'remarcado', agendamento_id: id, inicio: '2026-12-02T08:30', texto: 'quarta, 02/12 às 08:30' },
    ]);
    expect(stepOutput(moved, 'agent').agendamento).toEqual({
      evento: 'remarcado',
      agendamento_id: id,
      texto: 'quarta, 02/12 às 08:30',
      inicio: '2026-12-02T08:30',
    });
    expect(await db.find('agendamentos', { where: { clinica_id: clinic.id } })).toHaveLength(1);
    // The other lead has nothing.
    expect(await db.find('agendamentos', { where: { lead_id: other.id } })).toEqual([]);
  });

  it('answers an identical call from the first result, books then cancels in one run as no event, and cancels without one as sem_agendamento', async () => {
    const { clinic, leads } = await clinicWith({ provider: 'interno' });
    const lead = leads[0]!;
    openai.queueChat(
      {
        tool_calls: [
          { name: 'agendar', arguments: { inicio: '2026-12-01T11:00' } },
          { name: 'agendar', arguments: { inicio: '2026-12-01T11:00' } },
        ],
      },
      { tool_calls: [{ name: 'cancelar_agendamento', arguments: { motivo: 'mudou de ideia' } }] },
      { tool_calls: [{ name: 'cancelar_agendamento', arguments: {} }] },
      { text: 'Cancelado.' },
    );
    const before = opens;
    const record = await turn(lead, clinic);
    const [one, two] = toolResults();
    expect(two).toEqual(one);
    // The setup's open, then one per store call: agendar once, cancelar once (its repeat remembered).
    expect(opens - before).toBe(3);
    const tools = openai
      .chatRequests()
      .slice(2)
      .map((r: any) => JSON.parse(r.messages.at(-1).content));
    expect(tools).toEqual([{ status: 'cancelado' }, { status: 'cancelado' }]);
    expect(stepOutput(record, 'agent').agendamento).toBeNull();
    const rows = await db.find('agendamentos', { where: { clinica_id: clinic.id } });
    expect(rows.map((r) => r.status)).toEqual(['cancelado']);

    openai.reset();
    openai.queueChat({ tool_calls: [{ name: 'cancelar_agendamento', arguments: {} }] }, { text: 'Você não tem avaliação.' });
    await turn(lead, clinic);
    expect(toolResults()).toEqual([{ status: 'sem_agendamento' }]);
  });

  it('a booking made by an attempt that then failed is still reported by the retry that answers', async () => {
    const { clinic, leads } = await clinicWith({ provider: 'interno' });
    const lead = leads[0]!;
    const retrying = flow(lead, clinic).replace(
      '    type: ai.agent\n',
      '    type: ai.agent\n    retry: { attempts: 6, delay_ms: 10, when: "{{ error.name = \'AgentFailedError\' }}" }\n',
    );
    openai.queueChat(
      { tool_calls: [{ name: 'agendar', arguments: { inicio: '2026-12-01T13:30' } }] },
      ...Array.from({ length: 3 }, () => ({ status: 500 })),
      { tool_calls: [{ name: 'agendar', arguments: { inicio: '2026-12-01T13:30' } }] },
      { text: 'Marcado.' },
    );
    const { record } = await runFlow(retrying, {
      body: { prompt: 'Clínica {{clinica_nome}}.', booking_prompt: BOOKING_PROMPT },
      engine: { registry, services: { ai, db, booking, clock } },
    });
    expect(record.status, JSON.stringify(record.steps.map((x) => [x.key, x.status, x.error, x.attempt]))).toBe('success');
    const [row] = await db.find('agendamentos', { where: { lead_id: lead.id } });
    expect(stepOutput(record, 'agent')).toMatchObject({
      text: 'Marcado.',
      agendamento: { evento: 'marcado', agendamento_id: row!.id, texto: 'terça, 01/12 às 13:30', inicio: '2026-12-01T13:30' },
    });
  });

  it('a dry run books nothing and records what it would have done', async () => {
    const { clinic, leads } = await clinicWith({ provider: 'interno' });
    openai.queueChat({ tool_calls: [{ name: 'agendar', arguments: { inicio: '2026-12-01T11:00' } }] }, { text: 'Ok.' });
    const record = await turn(leads[0]!, clinic, true);
    expect(toolResults()).toEqual([{ status: 'marcado', dry_run: true, inicio: '2026-12-01T11:00' }]);
    expect(await db.find('agendamentos', { where: { clinica_id: clinic.id } })).toEqual([]);
    expect(record.outbound).toContainEqual(
      expect.objectContaining({
        kind: 'booking',
        method: 'agendar',
        performed: false,
        body: { lead_id: leads[0]!.id, clinica_id: clinic.id, inicio: '2026-12-01T11:00' },
      }),
    );
    expect(stepOutput(record, 'agent').agendamento).toBeNull();
  });
});

/** A NodeContext for the tools alone: recording logs, performing outbound calls. */
function toolContext(logs: string[] = []): NodeContext {
  return {
    signal: new AbortController().signal,
    log: (_level: string, message: string) => void logs.push(message),
    recordOutbound: () => true,
  } as unknown as NodeContext;
}

describe('booking tools against Cal.com', () => {
  let calcom: FakeCalcom;
  const SLOTS = [at('2026-12-02T10:00'), at('2026-12-02T11:00'), at('2026-12-03T10:00')];
  beforeAll(async () => {
    calcom = await startFakeCalcom({ apiKey: 'cal_live_test', slots: SLOTS, now: () => clock.now() });
  });
  afterAll(() => calcom.close());
  beforeEach(() => calcom.clearFailures?.());

  const calcomAgenda = () => ({
    provider: 'calcom',
    calcom: { api_key: 'cal_live_test', event_type_id: calcom.eventTypeId, base_url: calcom.url },
  });

  it('a provider that hangs or fails answers the sayable error JSON within the tool bound', async () => {
    const { clinic, leads } = await clinicWith(calcomAgenda());
    const effects: BookingEffects = { agendamento: null };
    const logs: string[] = [];
    const tools = bookingTools(
      { leadId: leads[0]!.id as number, clinicId: clinic.id as number, open: (s) => booking.open(s), timeoutMs: 1500 },
      toolContext(logs),
      effects,
    );
    const call = (name: string, args: Record<string, unknown>) =>
      tools.find((x) => x.name === name)!.handler(args as never, { signal: new AbortController().signal });
    calcom.fail(50, 'hang');
    expect(await call('ver_horarios', {})).toEqual(AGENDA_ERROR);
    calcom.clearFailures();
    calcom.fail(50, 503);
    expect(await call('agendar', { inicio: '2026-12-02T10:00' })).toEqual({ erro: 'não consegui ver a agenda agora' });
    calcom.clearFailures();
    expect(logs.filter((l) => l === 'booking tool failed')).toHaveLength(2);
    expect(await db.find('agendamentos', { where: { clinica_id: clinic.id } })).toEqual([]);
    expect(effects.agendamento).toBeNull();
    // A failure is not remembered: the same call again reaches the calendar.
    expect(await call('agendar', { inicio: '2026-12-02T10:00' })).toMatchObject({ status: 'marcado', texto: 'quarta, 02/12 às 10:00' });
  });

  it("a row whose Cal.com booking was lost in a crash gets it made by the lead's next agendar", async () => {
    const { clinic, leads } = await clinicWith(calcomAgenda());
    const lead = leads[0]!;
    // As a crash leaves it: the row written, the provider's answer never stored.
    const row = await rowLeftByACrash(clinic.id as number, lead.id as number, 'calcom', '2026-12-03T10:00');
    const effects: BookingEffects = { agendamento: null };
    const tools = toolsOf(lead.id as number, clinic.id as number, effects);
    const agendar = tools.find((x) => x.name === 'agendar')!;
    const result = await agendar.handler({ inicio: '2026-12-03T10:00' }, { signal: new AbortController().signal });
    expect(result).toEqual({ status: 'marcado', agendamento_id: row.id, inicio: '2026-12-03T10:00', texto: 'quinta, 03/12 às 10:00' });
    const made = calcom.bookings.filter((b) => b.metadata.leadflowAgendamento === String(row.id));
    expect(made).toHaveLength(1);
    expect(made[0]!.start).toBe(at('2026-12-03T10:00'));
    const after = await db.get('agendamentos', { id: row.id });
    expect(after!.external_id).toBe(made[0]!.uid);
    expect(effects.agendamento).toEqual({
      evento: 'marcado',
      agendamento_id: row.id,
      inicio: '2026-12-03T10:00',
      texto: 'quinta, 03/12 às 10:00',
    });
  });
});

describe('booking tools against Google Calendar', () => {
  it("a row whose Google event was lost in a crash gets it made by the lead's next cancelar_agendamento, which then deletes it", async () => {
    const account = testServiceAccount();
    const google = await startFakeGoogleCalendar({ accounts: { [account.client_email]: account.publicKey } });
    try {
      const CAL = 'agenda@clinica.test';
      google.addCalendar(CAL, { [account.client_email]: 'writer' });
      const { clinic, leads } = await clinicWith({
        provider: 'google',
        google: {
          calendar_id: CAL,
          service_account: { client_email: account.client_email, private_key: account.private_key },
          base_url: google.baseUrl,
          token_url: google.tokenUrl,
        },
      });
      const lead = leads[0]!;
      const row = await rowLeftByACrash(clinic.id as number, lead.id as number, 'google', '2026-12-02T10:00');
      const effects: BookingEffects = { agendamento: null };
      const tools = toolsOf(lead.id as number, clinic.id as number, effects);
      const cancelar = tools.find((x) => x.name === 'cancelar_agendamento')!;
      expect(await cancelar.handler({}, { signal: new AbortController().signal })).toEqual({ status: 'cancelado' });
      const after = await db.get('agendamentos', { id: row.id });
      expect(after).toMatchObject({ status: 'cancelado' });
      expect(after!.external_id).toEqual(expect.any(String));
      // Made once (by the repair), then deleted by the cancellation: no live event left.
      expect(google.events(CAL)).toEqual([]);
      expect(google.events(CAL, true).map((e) => e.id)).toEqual([after!.external_id]);
      // Booked and cancelled in one run: nothing for the Hunter.
      expect(effects.agendamento).toBeNull();
    } finally {
      await google.close();
    }
  });
});

describe('mergeBookingEvent', () => {
  const e = (evento: 'marcado' | 'remarcado' | 'cancelado', id = 1, texto = 'x') => ({ evento, agendamento_id: id, texto, inicio: 'i' });
  it('booked then moved is still booked; booked then cancelled is nothing; otherwise the latest', () => {
    expect(mergeBookingEvent(e('marcado'), e('remarcado', 1, 'y'))).toEqual(e('marcado', 1, 'y'));
    expect(mergeBookingEvent(e('marcado'), e('cancelado'))).toBeNull();
    expect(mergeBookingEvent(e('remarcado'), e('cancelado'))).toEqual(e('cancelado'));
    expect(mergeBookingEvent(null, e('remarcado'))).toEqual(e('remarcado'));
  });
});

/** An appointment as a crash between the provider's answer and storing it leaves it: marcado, one hour from `inicio` (local), no provider reference. */
function rowLeftByACrash(clinicId: number, leadId: number, provider: 'google' | 'calcom', inicio: string) {
  return db.insert('agendamentos', {
    clinica_id: clinicId,
    lead_id: leadId,
    inicio: new Date(at(inicio)).toISOString(),
    fim: new Date(at(inicio) + 3_600_000).toISOString(),
    status: 'marcado',
    origem: 'agente',
    provider,
    external_id: null,
    created_at: new Date(NOW).toISOString(),
    updated_at: new Date(NOW).toISOString(),
  });
}

/** The booking tools bound to one lead of one clinic, reporting into `effects`. */
function toolsOf(leadId: number, clinicId: number, effects: BookingEffects) {
  return bookingTools({ leadId, clinicId, open: (s) => booking.open(s) }, toolContext(), effects);
}
