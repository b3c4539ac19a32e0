// Appointment reminders and what surrounds them (CONTRACT.md §12), end to end on the shipped flows
// (test/e2e/stack.ts) and both backends. Appointments are written straight into `agendamentos` (their
// instants a few seconds ahead, off any grid: the reminders do not care) or, for the erasure, booked
// through the booking store against a fake Google Calendar; the reminders flow is started through
// the engine under the appointment's key (`agendamento:<id>`), as agent.yaml starts it. Time is real:
// LEADFLOW_REMINDERS_BEFORE_MS is a few seconds, so each reminder is due seconds after the start.
//   - each reminder goes at its instant (never before), kept in memory as an agent row, lembrete_at set;
//     "1" then confirms (confirmado, "Presença confirmada ✅"), and the later reminder is not sent;
//   - a reminder of an appointment cancelled (or moved) meanwhile is dropped; none to an opted-out lead;
//     no follow-up to a lead with an upcoming appointment; a confirmation word with no reminded
//     appointment is an ordinary message (the agent answers it);
//   - Cloud API: a lead who never wrote gets the `lembrete_consulta` template (first name, clinic,
//     when, address), and memory keeps its rendered text;
//   - `excluir` and the console's erase (flows/lead-action.yaml) of a lead with a Google appointment:
//     the row is gone, the reminders cancelled (a cancelled execution never resumes), the Google
//     event deleted, and no trace of the lead in the database or the key-value store;
//   - GET /metrics: leadflow_reminders_sent_total and leadflow_appointments{status}.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { brazilianVariants } from '../../adapters/phones/index.js';
import { parseLocalSlot, slotLabel } from '../../adapters/calendar/slot-grid.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { startFakeCalcom } from '../fakes/calcom-server.js';
import { type FakeGoogleCalendar, startFakeGoogleCalendar, testServiceAccount } from '../fakes/google-calendar-server.js';
import { dumpDatabase, dumpKeyValues, expectNoTraces, tracesIn } from '../helpers/erasure-dump.js';
import { parseMetrics, sampleValue } from '../helpers/metrics-text.js';
import { pollFor } from '../helpers/poll.js';
import { CLOUD_CASE, send, sent } from './providers.js';
import { type Backend, forEachBackend, insertLead, startStack, type Stack } from './stack.js';

/** The reminders' delays before the appointment, ms: the first due 3 s before it, the second 1 s before. */
const FIRST_BEFORE_MS = 3000;
const SECOND_BEFORE_MS = 1000;
/** How far ahead the test appointments start, ms: the first reminder is due 1.5 s after booking. */
const AHEAD_MS = 4500;
const ZONE = 'America/Sao_Paulo';
const CONFIRMED = 'Presença confirmada ✅';

let phoneSeq = 0;
/** A fresh lead phone per test, so keys and memory never mix. */
const nextPhone = () => `55219${String(71000000 + ++phoneSeq * 1717).padStart(8, '0')}`;

/** The reminder line (flows/reminders.yaml) for the seeded clinic. */
const reminderLine = (first: string, inicio: number) =>
  `Olá, ${first}! Lembrete da sua avaliação na Clínica Sorriso: ${slotLabel(inicio, ZONE)}, Av. Paulista, 1000, São Paulo. Responda 1 para confirmar ou 2 para remarcar.`;

/** What the tests do on a stack. */
function actions(stack: () => Stack) {
  const db = () => stack().runtime.db;
  return {
    db,
    sends: (phone: string) => sent(stack()).filter((m) => m.number === phone),
    memory: async (phone: string) =>
      (await db().find('wf_chat_histories', { where: { clinica_id: stack().clinic.id, session_id: phone } })).sort(
        (a, b) => Number(a.id) - Number(b.id),
      ),
    /** A lead row, as the form leaves it (nothing planned). */
    lead: async (phone: string, fields: Record<string, unknown> = {}) =>
      Number((await insertLead(stack(), phone, { nome: 'Maria Souza', ...fields })).id),
    /** An appointment `marcado` starting `inicio` (ms), written straight into the table. */
    appointment: async (leadId: number, inicio: number) =>
      Number(
        (
          await db().insert('agendamentos', {
            clinica_id: stack().clinic.id,
            lead_id: leadId,
            inicio,
            fim: inicio + 3_600_000,
            status: 'marcado',
            origem: 'agente',
            provider: 'interno',
          })
        ).id,
      ),
    /** The reminders flow of appointment `id`, started as agent.yaml starts it. */
    remind: async (id: number) =>
      (await stack().engine.start('reminders', { body: { agendamento_id: id } }, { key: `agendamento:${id}` })).id,
    end: (executionId: string) => stack().engine.waitForEnd(executionId),
    metric: async (name: string, labels?: Record<string, string>) =>
      sampleValue(parseMetrics(await (await fetch(`${stack().url}/metrics`)).text()), name, labels),
  };
}

forEachBackend('appointment reminders', (backend) => {
  let stack: Stack;
  const { db, sends, memory, lead, appointment, remind, end, metric } = actions(() => stack);

  beforeAll(async () => {
    stack = await startStack({
      backend,
      env: {
        LEADFLOW_REMINDERS_BEFORE_MS: `${FIRST_BEFORE_MS},${SECOND_BEFORE_MS}`,
        LEADFLOW_DEBOUNCE_MS: backend === 'postgres+redis' ? '400' : '150',
      },
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('each reminder goes at its instant and is kept in memory; "1" then confirms, and no reminder is left', async () => {
    const phone = nextPhone();
    const leadId = await lead(phone);
    const inicio = Date.now() + AHEAD_MS;
    const id = await appointment(leadId, inicio);
    const sentBefore = await metric('leadflow_reminders_sent_total');
    const execution = await remind(id);

    const first = await pollFor('the first reminder', async () => sends(phone)[0], AHEAD_MS + 5000);
    expect(first.at).toBeGreaterThanOrEqual(inicio - FIRST_BEFORE_MS);
    expect(first.text).toBe(reminderLine('Maria', inicio));
    await pollFor('lembrete_at', async () => (await db().get('agendamentos', { id }))?.lembrete_at);
    expect((await memory(phone)).map((r) => [r.type, r.content])).toEqual([['agent', reminderLine('Maria', inicio)]]);

    // Before the second reminder is due, the lead confirms.
    expect(Date.now()).toBeLessThan(inicio - SECOND_BEFORE_MS);
    const answer = await send(stack, { phone, text: ' Sím ' });
    expect(answer.json).toEqual({ status: 'ignored', reason: 'appointment confirmed' });
    await pollFor('the confirmation', async () => sends(phone).length >= 2);
    expect(sends(phone)[1]!.text).toBe(CONFIRMED);
    expect(await db().get('agendamentos', { id })).toMatchObject({ status: 'confirmado' });

    // The second reminder's instant passes: the execution stops, nothing more is sent.
    const done = await end(execution);
    expect(done).toMatchObject({ status: 'stopped', stop_reason: 'appointment confirmed: no reminder left', vars: { sent: 1 } });
    expect(Date.now()).toBeGreaterThanOrEqual(inicio - SECOND_BEFORE_MS);
    await stack.idle();
    expect(sends(phone).map((m) => m.text)).toEqual([reminderLine('Maria', inicio), CONFIRMED]);
    expect((await memory(phone)).map((r) => [r.type, r.content])).toEqual([
      ['agent', reminderLine('Maria', inicio)],
      ['lead', ' Sím '],
      ['agent', CONFIRMED],
    ]);
    // No AI call was made for the confirmation.
    expect(stack.openai.chatRequests().filter((r) => JSON.stringify(r.messages).includes('Sím'))).toEqual([]);
    expect(await metric('leadflow_reminders_sent_total')).toBe((sentBefore ?? 0) + 1);
    expect(await metric('leadflow_appointments', { status: 'confirmado' })).toBeGreaterThanOrEqual(1);
  });

  it('after a move (its reminders started again), a reminder of the earlier time confirms nothing: the word is an ordinary message', async () => {
    const phone = nextPhone();
    const leadId = await lead(phone);
    const id = await appointment(leadId, Date.now() + 86_400_000);
    // Reminded for its earlier time, then moved: agent.yaml starts its reminders again.
    await db().update('agendamentos', { id }, { lembrete_at: new Date().toISOString() });
    await remind(id);
    await pollFor('lembrete_at cleared', async () => (await db().get('agendamentos', { id }))?.lembrete_at === null);
    stack.openai.queueChat({ text: 'Oi, Maria! Como posso ajudar?' });
    expect((await send(stack, { phone, text: 'sim' })).json).toEqual({ status: 'queued' });
    await pollFor("the agent's reply", async () => sends(phone).length >= 1);
    expect(sends(phone)[0]!.text).toBe('Oi, Maria! Como posso ajudar?');
    expect(await db().get('agendamentos', { id })).toMatchObject({ status: 'marcado' });
  });

  it('a reminder of an appointment cancelled or moved meanwhile is dropped; none goes to a lead who opted out', async () => {
    const cancelled = { phone: nextPhone() } as { phone: string; id: number; execution: string };
    const moved = { phone: nextPhone() } as typeof cancelled;
    const optedOut = { phone: nextPhone() } as typeof cancelled;
    const inicio = Date.now() + AHEAD_MS;
    for (const one of [cancelled, moved, optedOut]) {
      const leadId = await lead(one.phone, one === optedOut ? { optout_at: new Date().toISOString() } : {});
      one.id = await appointment(leadId, inicio);
      one.execution = await remind(one.id);
    }
    await db().update('agendamentos', { id: cancelled.id }, { status: 'cancelado' });
    await db().update('agendamentos', { id: moved.id }, { inicio: inicio + 86_400_000, fim: inicio + 90_000_000 });

    expect(await end(cancelled.execution)).toMatchObject({ status: 'stopped', stop_reason: 'appointment cancelled or erased' });
    expect(await end(moved.execution)).toMatchObject({
      status: 'stopped',
      stop_reason: 'appointment moved (the run started for its new time plans its reminders)',
    });
    expect(await end(optedOut.execution)).toMatchObject({ status: 'stopped', stop_reason: 'lead opted out' });
    expect(Date.now()).toBeGreaterThanOrEqual(inicio - FIRST_BEFORE_MS);
    await stack.idle();
    for (const one of [cancelled, moved, optedOut]) {
      expect(sends(one.phone)).toEqual([]);
      expect(await memory(one.phone)).toEqual([]);
      expect((await db().get('agendamentos', { id: one.id }))?.lembrete_at).toBeNull();
    }
  });

  it('no follow-up goes to a lead with an upcoming appointment', async () => {
    const phone = nextPhone();
    const leadId = await lead(phone);
    await appointment(leadId, Date.now() + 86_400_000);
    const handle = await stack.engine.start('followup', {
      body: {
        lead_id: leadId,
        clinica_id: stack.clinic.id,
        remotejid: phone,
        instance_id: stack.clinic.instanceId,
        sent_at: new Date(Date.now() - 400_000_000).toISOString(),
      },
    });
    expect(await end(handle.id)).toMatchObject({ status: 'stopped', stop_reason: 'lead has an upcoming appointment' });
    expect(sends(phone)).toEqual([]);
  });
});

forEachBackend('appointment reminders [cloud]', (backend) => {
  let stack: Stack;
  const { sends, memory, lead, appointment, remind, end, db } = actions(() => stack);

  beforeAll(async () => {
    stack = await startStack({ backend, provider: CLOUD_CASE, env: { LEADFLOW_REMINDERS_BEFORE_MS: String(FIRST_BEFORE_MS) } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('a lead outside the 24-hour window gets the lembrete_consulta template, and memory keeps what it rendered', async () => {
    const phone = nextPhone();
    const leadId = await lead(phone);
    const inicio = Date.now() + AHEAD_MS;
    const id = await appointment(leadId, inicio);
    expect(await end(await remind(id))).toMatchObject({ status: 'success', output: { sent: 1 } });
    const when = slotLabel(inicio, ZONE);
    expect(sends(phone).map((m) => m.text)).toEqual([
      `template:lembrete_consulta_v1(Maria|Clínica Sorriso|${when}|Av. Paulista, 1000, São Paulo)`,
    ]);
    expect((await memory(phone)).map((r) => [r.type, r.content])).toEqual([
      [
        'agent',
        `Olá, Maria! Lembrete da sua avaliação na Clínica Sorriso: ${when}, Av. Paulista, 1000, São Paulo. Responda 1 para confirmar ou 2 para remarcar.`,
      ],
    ]);
    expect((await db().get('agendamentos', { id }))?.lembrete_at).not.toBeNull();
  });
});

forEachBackend('erasure of a lead with a Google appointment', (backend) => erasureSuite(backend));

/** `excluir` and the console's erase, each of a lead with a Google appointment and its reminders waiting. */
function erasureSuite(backend: Backend) {
  const CALENDAR = 'agenda@clinica-sorriso.example';
  const account = testServiceAccount();
  let google: FakeGoogleCalendar;
  let stack: Stack;
  const { db, sends, lead, remind } = actions(() => stack);

  beforeAll(async () => {
    google = await startFakeGoogleCalendar({ accounts: { [account.client_email]: account.publicKey } });
    google.addCalendar(CALENDAR, { [account.client_email]: 'writer' });
    // A reminder a minute before: the first slot is at least 5 minutes ahead (antecedencia_min), so it waits.
    stack = await startStack({ backend, env: { LEADFLOW_REMINDERS_BEFORE_MS: '60000' } });
    const allDay = '00:00-23:30';
    const agenda = {
      provider: 'google',
      duracao_min: 30,
      intervalo_min: 30,
      antecedencia_min: 5,
      dias: 2,
      vagas: 5,
      horario: { timezone: ZONE, seg: allDay, ter: allDay, qua: allDay, qui: allDay, sex: allDay, sab: allDay, dom: allDay },
      google: {
        calendar_id: CALENDAR,
        service_account: { client_email: account.client_email, private_key: account.private_key },
        base_url: google.baseUrl,
        token_url: google.tokenUrl,
      },
    };
    await db().update('clinicas_com_atendentes', { id: stack.clinic.id }, { agenda: JSON.stringify(agenda) });
  });
  afterAll(async () => {
    await stack?.close();
    await google?.close();
  });

  /** A lead booked through the booking store (the Google event made), its reminders started. */
  async function booked(phone: string, name: string) {
    const leadId = await lead(phone, { nome: name });
    const store = stack.runtime.services.booking.open();
    const { horarios } = await store.horarios(stack.clinic.id, leadId);
    // A slot a minute past the 5 min notice: the first may fall inside it by the time it is booked.
    const slot = horarios.find((h) => parseLocalSlot(h.inicio, ZONE)! >= Date.now() + 6 * 60_000);
    if (!slot) throw new Error(`no slot a minute past the notice among ${JSON.stringify(horarios)}`);
    const result = await store.book({ clinicId: stack.clinic.id, leadId, inicio: slot.inicio, origem: 'agente' });
    if (result.status !== 'marcado') throw new Error(`not booked: ${JSON.stringify(result)}`);
    const execution = await remind(result.agendamento_id);
    const record = await pollFor('the reminders to wait', async () => {
      const r = await stack.runtime.store.get(execution);
      return r?.status === 'waiting' ? r : undefined;
    });
    return { leadId, id: result.agendamento_id, execution: record as ExecutionRecord, eventId: result.appointment.external_id };
  }

  it('excluir and the console erase delete the appointment, cancel its reminders and delete the Google event; nothing of the lead remains', async () => {
    const viaChat = { phone: nextPhone(), name: 'Joana Prado' };
    const viaConsole = { phone: nextPhone(), name: 'Helena Vasconcelos' };
    const kept = { phone: nextPhone(), name: 'Rita Lobo' };
    const a = await booked(viaChat.phone, viaChat.name);
    const b = await booked(viaConsole.phone, viaConsole.name);
    const c = await booked(kept.phone, kept.name);
    expect(
      google
        .events(CALENDAR)
        .map((e) => e.id)
        .sort(),
    ).toEqual([a.eventId, b.eventId, c.eventId].sort());
    const traces = (one: { phone: string; name: string }) => [...brazilianVariants(one.phone), ...one.name.split(' ')];
    const before = `${(await dumpDatabase(db())).text}\n${(await dumpKeyValues(stack.runtime.services.kv)).text}`;
    // What is looked for afterwards is there now (so its absence later means something).
    for (const one of [viaChat, viaConsole]) {
      const present = [one.phone, ...one.name.split(' ')];
      expect(tracesIn(present, before)).toEqual(present);
    }

    // The operator types `excluir` in one lead's chat; the console erases the other.
    expect((await send(stack, { phone: viaChat.phone, text: 'excluir', from: 'operator' })).json).toEqual({
      status: 'ignored',
      reason: 'command excluir',
    });
    const erase = await stack.engine.start('lead-action', { body: { lead_id: b.leadId, action: 'erase' } });
    expect((await stack.engine.waitForEnd(erase.id)).status).toBe('success');
    await pollFor('the excluir to end', async () => !(await db().get('leads', { id: a.leadId })));

    for (const one of [a, b]) {
      expect(await db().get('agendamentos', { id: one.id })).toBeNull();
      expect((await stack.runtime.store.get(one.execution.id))?.status).toBe('cancelled');
    }
    // The Google events of the erased leads are deleted; the kept lead's stays.
    expect(google.events(CALENDAR).map((e) => e.id)).toEqual([c.eventId]);
    expect(google.requests.filter((r) => r.method === 'DELETE').map((r) => [r.path.split('/').at(-1), r.status])).toEqual([
      [a.eventId, 204],
      [b.eventId, 204],
    ]);

    // A cancelled execution is never resumed: nothing goes to the erased leads but the operator's confirmation.
    await stack.idle();
    expect(sends(viaChat.phone).map((m) => m.text)).toEqual(['Contato excluído ✅']);
    expect(sends(viaConsole.phone)).toEqual([]);
    expect((await stack.runtime.store.get(c.execution.id))?.status).toBe('waiting');

    const dbDump = await dumpDatabase(db());
    const kvDump = await dumpKeyValues(stack.runtime.services.kv);
    for (const one of [viaChat, viaConsole]) {
      expectNoTraces(traces(one), dbDump, 'the database');
      expectNoTraces(traces(one), kvDump, 'the key-value store');
    }
    const atGoogle = JSON.stringify(google.events(CALENDAR, true));
    for (const one of [viaChat, viaConsole])
      expect(tracesIn(traces(one), atGoogle), 'the Google calendar, deleted events included').toEqual([]);
    expect(tracesIn([kept.phone, ...kept.name.split(' ')], dbDump.text)).toEqual([kept.phone, ...kept.name.split(' ')]);
    expect(await db().get('agendamentos', { id: c.id })).toMatchObject({ status: 'marcado' });
  });

  it('the console erase of a lead with a Cal.com appointment cancels the booking (Cal.com keeps cancelled bookings), the row and its reminders', async () => {
    const calcom = await startFakeCalcom({ slots: [0, 1, 2].map((k) => Date.now() + 3_600_000 * (k + 2) - (Date.now() % 1_800_000)) });
    try {
      await db().update(
        'clinicas_com_atendentes',
        { id: stack.clinic.id },
        {
          agenda: JSON.stringify({
            provider: 'calcom',
            dias: 2,
            calcom: { api_key: calcom.apiKey, event_type_id: calcom.eventTypeId, base_url: calcom.url },
          }),
        },
      );
      const one = await booked(nextPhone(), 'Clara Nunes');
      expect(calcom.booking(one.eventId!)).toMatchObject({ status: 'accepted' });
      const erase = await stack.engine.start('lead-action', { body: { lead_id: one.leadId, action: 'erase' } });
      expect((await stack.engine.waitForEnd(erase.id)).status).toBe('success');
      expect(calcom.booking(one.eventId!)).toMatchObject({ status: 'cancelled' });
      expect(await db().get('agendamentos', { id: one.id })).toBeNull();
      expect((await stack.runtime.store.get(one.execution.id))?.status).toBe('cancelled');
    } finally {
      await calcom.close();
    }
  });
}
