// The booking store (adapters/calendar/appointments.ts) on SQLite and PostgreSQL: booking re-checks the
// slot (taken, past, off the grid, malformed: indisponivel with alternatives), a lead's upcoming
// appointment is moved and never doubled, cancellation and statuses, the clinic's listing, the
// provider's copy following the row (and the row put back when the provider fails), and races for
// the last place between Databases and between processes: exactly `vagas` booked.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  type AppointmentsOptions,
  Appointments,
  bookToolResult,
  cancelToolResult,
  type BookResult,
} from '../../adapters/calendar/appointments.js';
import {
  CalendarUnavailableError,
  type CalendarProvider,
  type ProviderAppointment,
  SlotUnavailableError,
} from '../../adapters/calendar/calendar.js';
import type { Database } from '../../adapters/db/database.js';
import { forEachDatabase, type TestDatabase, useFreshDatabase } from '../helpers/databases.js';

const SP = 'America/Sao_Paulo';
/** Tuesday 1 December 2026, 09:00 in São Paulo. */
const NOW = Date.parse('2026-12-01T09:00-03:00');
const HOURS = JSON.stringify({
  timezone: SP,
  seg: '08:00-12:00,13:00-18:00',
  ter: '08:00-12:00,13:00-18:00',
  qua: '08:00-12:00,13:00-18:00',
  qui: '08:00-12:00,13:00-18:00',
  sex: '08:00-12:00,13:00-18:00',
});
const at = (local: string) => Date.parse(`${local}-03:00`);

async function setup(db: Database, agenda: Record<string, unknown> = {}, leads = 3): Promise<{ clinicId: number; leadIds: number[] }> {
  const clinic = await db.insert('clinicas_com_atendentes', {
    nome: 'Clínica Sorriso',
    hunter_telefone: '5511900000001',
    horario_atendimento: HOURS,
    agenda: JSON.stringify(agenda),
  });
  const leadIds: number[] = [];
  for (let i = 0; i < leads; i++) {
    const lead = await db.insert('leads', {
      clinica_id: clinic.id,
      remotejid: `55119876543${String(i).padStart(2, '0')}`,
      nome: `Lead ${i}`,
    });
    leadIds.push(lead.id as number);
  }
  return { clinicId: clinic.id as number, leadIds };
}

function storeOf(db: Database, options: AppointmentsOptions = {}): Appointments {
  return new Appointments(db, { clock: { now: () => NOW }, ...options });
}

/** A provider double recording its calls; `fail` makes the next create/move/cancel throw. */
function recordingCalendar(): CalendarProvider & { calls: string[]; fail: Error | null } {
  const calendar = {
    provider: 'google' as const,
    calls: [] as string[],
    fail: null as Error | null,
    /** The calendar's events by id: an outside one, and those LeadFlow made (busy times include them all). */
    events: new Map<string, { start: number; end: number }>([['outside', { start: at('2026-12-01T13:00'), end: at('2026-12-01T14:00') }]]),
    async availability() {
      return { kind: 'busy' as const, busy: [...calendar.events.values()] };
    },
    async create(a: ProviderAppointment) {
      calendar.calls.push(`create ${a.appointment_id} ${new Date(a.start).toISOString()} ${a.lead_phone} ${a.time_zone}`);
      if (calendar.fail) throw calendar.fail;
      calendar.events.set(`evt${a.appointment_id}`, { start: a.start, end: a.end });
      return { external_id: `evt${a.appointment_id}` };
    },
    async move(ref: { external_id: string | null }, a: ProviderAppointment) {
      calendar.calls.push(`move ${ref.external_id} ${new Date(a.start).toISOString()}`);
      if (calendar.fail) throw calendar.fail;
      calendar.events.delete(ref.external_id!);
      calendar.events.set(`${ref.external_id}-moved`, { start: a.start, end: a.end });
      return { external_id: `${ref.external_id}-moved` };
    },
    async cancel(ref: { external_id: string | null }, _a: ProviderAppointment, reason: string) {
      calendar.calls.push(`cancel ${ref.external_id} ${reason}`);
      if (calendar.fail) throw calendar.fail;
    },
  };
  return calendar;
}

const statuses = (results: BookResult[]) => results.map((r) => r.status).sort();

forEachDatabase('booking store', (open) => {
  const t = useFreshDatabase(open);

  it('books a free slot (marcado, local time and label), which then is no longer offered to others but still to its lead', async () => {
    const { db } = t.current;
    const { clinicId, leadIds } = await setup(db);
    const store = storeOf(db);
    const result = await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T13:00', origem: 'agente' });
    expect(bookToolResult(result)).toEqual({
      status: 'marcado',
      agendamento_id: expect.any(Number),
      inicio: '2026-12-01T13:00',
      texto: 'terça, 01/12 às 13:00',
    });
    const rows = await db.find('agendamentos');
    expect(rows).toEqual([
      expect.objectContaining({
        clinica_id: clinicId,
        lead_id: leadIds[0],
        protocolo_id: null,
        inicio: '2026-12-01T16:00:00.000Z',
        fim: '2026-12-01T17:00:00.000Z',
        status: 'marcado',
        origem: 'agente',
        provider: 'interno',
        external_id: null,
      }),
    ]);
    expect((await store.upcomingFor(clinicId, leadIds[0]!))!.id).toBe(rows[0]!.id);
    const others = (await store.horarios(clinicId, leadIds[1]!)).horarios.map((h) => h.inicio);
    expect(others.slice(0, 3)).toEqual(['2026-12-01T11:00', '2026-12-01T14:00', '2026-12-01T14:30']);
    const own = (await store.horarios(clinicId, leadIds[0]!)).horarios.map((h) => h.inicio);
    expect(own.slice(0, 3)).toEqual(['2026-12-01T11:00', '2026-12-01T13:00', '2026-12-01T13:30']);
  });

  it('anything but a free slot now is indisponivel with the earliest alternatives, never an error, and writes nothing', async () => {
    const { db } = t.current;
    const { clinicId, leadIds } = await setup(db);
    const store = storeOf(db);
    await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T13:00', origem: 'agente' });
    const alternatives = [
      '2026-12-01T11:00',
      '2026-12-01T14:00',
      '2026-12-01T14:30',
      '2026-12-02T08:00',
      '2026-12-02T08:30',
      '2026-12-02T09:00',
    ];
    for (const inicio of [
      '2026-12-01T13:00',
      '2026-12-01T13:30',
      '2026-12-01T08:00',
      '2026-12-01T10:00',
      '2026-12-01T14:10',
      '2026-12-05T10:00',
      '2026-12-30T10:00',
      'amanhã às 10',
      '2026-13-01T10:00',
      NOW - 86_400_000,
    ]) {
      const result = await store.book({ clinicId, leadId: leadIds[1]!, inicio, origem: 'agente' });
      expect({ inicio, status: result.status }).toEqual({ inicio, status: 'indisponivel' });
      expect((bookToolResult(result).alternativas as Array<{ inicio: string }>).map((a) => a.inicio)).toEqual(alternatives);
    }
    expect(await db.find('agendamentos')).toHaveLength(1);
    // The console books by instant.
    expect((await store.book({ clinicId, leadId: leadIds[1]!, inicio: at('2026-12-01T14:00'), origem: 'console' })).status).toBe('marcado');
  });

  it('a lead with an upcoming appointment has it moved (remarcado, same row, marcado again), never a second one', async () => {
    const { db } = t.current;
    const { clinicId, leadIds } = await setup(db);
    const store = storeOf(db);
    const first = await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T13:00', origem: 'agente' });
    await store.setStatus((first as { agendamento_id: number }).agendamento_id, 'confirmado');
    const moved = await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-02T10:00', origem: 'console' });
    expect(moved).toMatchObject({
      status: 'remarcado',
      inicio: '2026-12-02T10:00',
      texto: 'quarta, 02/12 às 10:00',
      previous: { inicio: at('2026-12-01T13:00'), status: 'confirmado' },
    });
    expect(bookToolResult(moved)).toEqual({
      status: 'remarcado',
      agendamento_id: (first as { agendamento_id: number }).agendamento_id,
      inicio: '2026-12-02T10:00',
      texto: 'quarta, 02/12 às 10:00',
    });
    const rows = await db.find('agendamentos');
    expect(rows.map((r) => [r.id, r.inicio, r.status, r.origem])).toEqual([
      [(first as { agendamento_id: number }).agendamento_id, '2026-12-02T13:00:00.000Z', 'marcado', 'agente'],
    ]);
    // Its old time is free again; moving onto an overlapping time of its own appointment is allowed.
    expect((await store.book({ clinicId, leadId: leadIds[1]!, inicio: '2026-12-01T13:00', origem: 'agente' })).status).toBe('marcado');
    expect((await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-02T10:30', origem: 'agente' })).status).toBe('remarcado');
    expect(await db.find('agendamentos')).toHaveLength(2);
  });

  it('a past appointment is not upcoming: the lead books a new one', async () => {
    const { db } = t.current;
    const { clinicId, leadIds } = await setup(db);
    await db.insert('agendamentos', {
      clinica_id: clinicId,
      lead_id: leadIds[0],
      inicio: at('2026-11-30T13:00'),
      fim: at('2026-11-30T14:00'),
      origem: 'agente',
    });
    const store = storeOf(db);
    expect(await store.upcomingFor(clinicId, leadIds[0]!)).toBeNull();
    expect((await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T13:00', origem: 'agente' })).status).toBe('marcado');
    expect(await db.find('agendamentos')).toHaveLength(2);
  });

  it('vagas 2: two leads share a slot, a third is refused', async () => {
    const { db } = t.current;
    const { clinicId, leadIds } = await setup(db, { vagas: 2 });
    const store = storeOf(db);
    const results = [];
    for (const leadId of leadIds)
      results.push((await store.book({ clinicId, leadId, inicio: '2026-12-01T15:00', origem: 'agente' })).status);
    expect(results).toEqual(['marcado', 'marcado', 'indisponivel']);
  });

  it('cancel: cancelado once, then sem_agendamento; the slot is free again', async () => {
    const { db } = t.current;
    const { clinicId, leadIds } = await setup(db);
    const store = storeOf(db);
    expect(await store.cancel(clinicId, leadIds[0]!)).toEqual({ status: 'sem_agendamento' });
    await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T13:00', origem: 'agente' });
    const cancelled = await store.cancel(clinicId, leadIds[0]!, 'mudou de ideia');
    expect(cancelToolResult(cancelled)).toEqual({ status: 'cancelado' });
    expect(cancelled).toMatchObject({ appointment: { status: 'cancelado', inicio: at('2026-12-01T13:00') } });
    expect(await store.cancel(clinicId, leadIds[0]!)).toEqual({ status: 'sem_agendamento' });
    expect(await store.upcomingFor(clinicId, leadIds[0]!)).toBeNull();
    expect((await store.book({ clinicId, leadId: leadIds[1]!, inicio: '2026-12-01T13:00', origem: 'agente' })).status).toBe('marcado');
  });

  it('setStatus: confirmado from marcado; compareceu and faltou from any but cancelado', async () => {
    const { db } = t.current;
    const { clinicId, leadIds } = await setup(db);
    const store = storeOf(db);
    const booked = (await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T13:00', origem: 'agente' })) as {
      agendamento_id: number;
    };
    const id = booked.agendamento_id;
    expect((await store.setStatus(id, 'confirmado'))!.status).toBe('confirmado');
    expect((await store.setStatus(id, 'faltou'))!.status).toBe('faltou');
    expect(await store.setStatus(id, 'confirmado')).toBeNull();
    expect((await store.setStatus(id, 'compareceu'))!.status).toBe('compareceu');
    expect(await store.setStatus(999, 'compareceu')).toBeNull();
    const other = (await store.book({ clinicId, leadId: leadIds[1]!, inicio: '2026-12-01T14:00', origem: 'agente' })) as {
      agendamento_id: number;
    };
    await store.cancel(clinicId, leadIds[1]!);
    expect(await store.setStatus(other.agendamento_id, 'compareceu')).toBeNull();
  });

  it("listForClinic: every status overlapping the span, by start, with the lead's name and number", async () => {
    const { db } = t.current;
    const { clinicId, leadIds } = await setup(db);
    const store = storeOf(db);
    await store.book({ clinicId, leadId: leadIds[1]!, inicio: '2026-12-02T08:00', origem: 'console' });
    await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T13:00', origem: 'agente' });
    await store.book({ clinicId, leadId: leadIds[2]!, inicio: '2026-12-01T16:00', origem: 'agente' });
    await store.cancel(clinicId, leadIds[2]!);
    const day = await store.listForClinic(clinicId, { start: at('2026-12-01T00:00'), end: at('2026-12-02T00:00') });
    expect(day.map((a) => [a.lead_nome, a.lead_remotejid, a.status, new Date(a.inicio).toISOString()])).toEqual([
      ['Lead 0', '5511987654300', 'marcado', '2026-12-01T16:00:00.000Z'],
      ['Lead 2', '5511987654302', 'cancelado', '2026-12-01T19:00:00.000Z'],
    ]);
    // Overlap, not containment: a span inside an appointment finds it.
    expect(
      (await store.listForClinic(clinicId, { start: at('2026-12-02T08:30'), end: at('2026-12-02T08:31') })).map((a) => a.lead_nome),
    ).toEqual(['Lead 1']);
  });

  it("the provider's copy follows the row: its busy times are not offered, its id is stored, moves and cancellations reach it", async () => {
    const { db } = t.current;
    const { clinicId, leadIds } = await setup(db, {
      provider: 'google',
      google: { calendar_id: 'c', service_account: { client_email: 'a@b', private_key: PEM } },
    });
    const calendar = recordingCalendar();
    const store = storeOf(db, { calendarFor: () => calendar });
    expect((await store.horarios(clinicId, leadIds[0]!)).horarios.map((h) => h.inicio).slice(0, 2)).toEqual([
      '2026-12-01T11:00',
      '2026-12-01T14:00',
    ]);
    expect((await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T13:00', origem: 'agente' })).status).toBe('indisponivel');
    const booked = (await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T14:00', origem: 'agente' })) as {
      agendamento_id: number;
    };
    const id = booked.agendamento_id;
    expect(await db.get('agendamentos', { id })).toMatchObject({ provider: 'google', external_id: `evt${id}` });
    // Its own event is busy at the provider but not against its move; another lead cannot overlap it.
    expect((await store.book({ clinicId, leadId: leadIds[1]!, inicio: '2026-12-01T14:30', origem: 'agente' })).status).toBe('indisponivel');
    expect((await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T14:30', origem: 'agente' })).status).toBe('remarcado');
    expect((await db.get('agendamentos', { id }))!.external_id).toBe(`evt${id}-moved`);
    // The same time again changes nothing and calls nobody.
    expect(await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T14:30', origem: 'agente' })).toMatchObject({
      status: 'marcado',
      unchanged: true,
      agendamento_id: id,
    });
    await store.cancel(clinicId, leadIds[0]!, 'pediu');
    expect(calendar.calls).toEqual([
      `create ${id} 2026-12-01T17:00:00.000Z 5511987654300 ${SP}`,
      `move evt${id} 2026-12-01T17:30:00.000Z`,
      `cancel evt${id}-moved pediu`,
    ]);
  });

  it('the provider failing puts the row back: a refused time is indisponivel, an unreachable provider an error; a failed cancel changes nothing', async () => {
    const { db } = t.current;
    const { clinicId, leadIds } = await setup(db, {
      provider: 'google',
      google: { calendar_id: 'c', service_account: { client_email: 'a@b', private_key: PEM } },
    });
    const calendar = recordingCalendar();
    const store = storeOf(db, { calendarFor: () => calendar });
    calendar.fail = new SlotUnavailableError('google: 409');
    const refused = await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T14:00', origem: 'agente' });
    expect(refused.status).toBe('indisponivel');
    expect((bookToolResult(refused).alternativas as Array<{ inicio: string }>).map((a) => a.inicio).slice(0, 2)).toEqual([
      '2026-12-01T11:00',
      '2026-12-01T14:30',
    ]);
    calendar.fail = new CalendarUnavailableError('google: HTTP 503');
    await expect(store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T14:00', origem: 'agente' })).rejects.toThrow(
      CalendarUnavailableError,
    );
    expect(await db.find('agendamentos')).toEqual([]);
    calendar.fail = null;
    await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T14:00', origem: 'agente' });
    calendar.fail = new CalendarUnavailableError('google: timeout after 5000 ms');
    await expect(store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T16:00', origem: 'agente' })).rejects.toThrow(
      CalendarUnavailableError,
    );
    await expect(store.cancel(clinicId, leadIds[0]!)).rejects.toThrow(CalendarUnavailableError);
    const [row] = await db.find('agendamentos');
    expect(row).toMatchObject({ inicio: '2026-12-01T17:00:00.000Z', status: 'marcado', external_id: expect.stringMatching(/^evt\d+$/) });
  });

  it('a clinic without an agenda cannot book; one without hours offers nothing', async () => {
    const { db } = t.current;
    const { clinicId, leadIds } = await setup(db);
    const store = storeOf(db);
    await db.update('clinicas_com_atendentes', { id: clinicId }, { horario_atendimento: null });
    expect(await store.horarios(clinicId, leadIds[0]!)).toEqual({ horarios: [], motivo: 'Não há horários livres nos próximos dias.' });
    expect(await store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T13:00', origem: 'agente' })).toEqual({
      status: 'indisponivel',
      alternativas: [],
    });
    await db.update('clinicas_com_atendentes', { id: clinicId }, { agenda: null });
    expect(await store.clinic(clinicId)).toBeNull();
    await expect(store.book({ clinicId, leadId: leadIds[0]!, inicio: '2026-12-01T13:00', origem: 'agente' })).rejects.toThrow(
      /has no agenda/,
    );
  });

  it('many Databases booking the last place at once: exactly vagas booked, the rest indisponivel', async () => {
    const test = t.current;
    for (const vagas of [1, 2]) {
      const { clinicId, leadIds } = await setup(test.db, { vagas }, 8);
      await test.db.update('clinicas_com_atendentes', { id: clinicId }, { nome: `Clínica ${vagas}` });
      const stores = await warmStores(test, leadIds.length);
      const results = await Promise.all(
        stores.map((store, i) => store.book({ clinicId, leadId: leadIds[i]!, inicio: '2026-12-01T15:00', origem: 'agente' })),
      );
      expect(statuses(results)).toEqual([...Array(8 - vagas).fill('indisponivel'), ...Array(vagas).fill('marcado')]);
      expect(await test.db.find('agendamentos', { where: { clinica_id: clinicId } })).toHaveLength(vagas);
    }
  });

  it('one lead booking twice at once holds one appointment', async () => {
    const test = t.current;
    const { clinicId, leadIds } = await setup(test.db);
    const times = ['2026-12-01T13:00', '2026-12-01T14:00', '2026-12-01T15:00', '2026-12-01T16:00'];
    const stores = await warmStores(test, times.length);
    const results = await Promise.all(
      times.map((inicio, i) => stores[i]!.book({ clinicId, leadId: leadIds[0]!, inicio, origem: 'agente' })),
    );
    expect(statuses(results)).toEqual(['marcado', 'remarcado', 'remarcado', 'remarcado']);
    expect(await test.db.find('agendamentos')).toHaveLength(1);
  });

  it('processes booking the last place at once: one marcado', async () => {
    const test = t.current;
    const { clinicId, leadIds } = await setup(test.db, {}, 4);
    const bookAt = Date.now() + 2500;
    const results = await Promise.all(
      leadIds.map((leadId) => bookInChild(test.options, { clinicId, leadId, inicio: '2026-12-01T15:00', origem: 'agente' }, bookAt)),
    );
    expect(results.sort()).toEqual(['indisponivel', 'indisponivel', 'indisponivel', 'marcado']);
    expect(await test.db.find('agendamentos')).toHaveLength(1);
  });
});

/** `n` stores, each on a Database of its own whose connection is open (so their bookings overlap rather than queue behind connecting). */
async function warmStores(test: TestDatabase, n: number): Promise<Appointments[]> {
  const dbs = Array.from({ length: n }, () => test.openAnother());
  await Promise.all(dbs.map((db) => db.knex.raw('select 1')));
  return dbs.map((db) => storeOf(db));
}

/** Books in a child process (fixtures/book-child.ts) at `bookAt`; resolves with the result's status. */
function bookInChild(options: object, request: object, bookAt: number): Promise<string> {
  const script = join(import.meta.dirname, 'fixtures/book-child.ts');
  const env = {
    ...process.env,
    LEADFLOW_TEST_DB: JSON.stringify(options),
    BOOK_REQUEST: JSON.stringify(request),
    BOOK_NOW: String(NOW),
    BOOK_AT: String(bookAt),
  };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', script], { env, timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve((JSON.parse(stdout) as { status: string }).status);
    });
  });
}

const PEM = (await import('node:crypto'))
  .generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
