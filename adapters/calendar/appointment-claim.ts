// The moment of booking (CONTRACT.md §12 "two bookings of the last free place at the same moment, in
// any processes, give one marcado and one indisponivel"): under a per-clinic lock, read the clinic's
// appointments holding a place and the lead's upcoming one, re-compute the free slots
// (slot-grid.ts) and, when the asked start is one of them, write the row — a new one, or the lead's
// upcoming appointment moved (a lead never holds two). All in one transaction:
//   - PostgreSQL: `SELECT … FOR UPDATE` on the clinic's row serialises bookings of one clinic across
//     connections and processes (READ COMMITTED: the reads after the lock see every booking committed
//     before it); other clinics book in parallel.
//   - SQLite: one IMMEDIATE transaction run synchronously on the connection (better-sqlite3): the
//     write lock is taken before the reads, and nothing else of this process runs until COMMIT, so
//     another Database or process waits (busy_timeout) instead of deadlocking. Needs a Database not
//     bound to a transaction.
// The same SQL runs on both (`?` bindings, timestamps bound as ISO text, RETURNING).
import type { Knex } from 'knex';
import type { Database } from '../db/database.js';
import type { BusinessHours } from '../hours/business-hours.js';
import type { CalendarProviderName } from './agenda-config.js';
import { type Appointment, type AppointmentOrigin, appointmentOf, spanOf } from './appointment-rows.js';
import type { Availability, Interval } from './calendar.js';
import { freeSlots, type GridRules, slotSpan } from './slot-grid.js';

/** What a booking asks for, with everything the re-check needs. */
export interface ClaimRequest {
  clinicId: number;
  leadId: number;
  protocoloId: number | null;
  origem: AppointmentOrigin;
  provider: CalendarProviderName;
  /** The asked start, ms since the epoch; null when the asked text names no instant (malformed). */
  start: number | null;
  now: number;
  rules: GridRules;
  hours: BusinessHours | null;
  /** The calendar's IANA zone (its hours'). */
  timezone: string;
  /** What the provider said just before (calendar.ts). */
  availability: Availability;
}

/**
 * What the claim did: inserted a row, moved the lead's upcoming one, found it already at the asked
 * start (nothing written), or refused (not a free slot now); with the free slots it saw.
 */
export type ClaimOutcome =
  | { kind: 'inserted'; appointment: Appointment; free: Interval[] }
  | { kind: 'unchanged'; appointment: Appointment; free: Interval[] }
  | { kind: 'moved'; appointment: Appointment; previous: Appointment; free: Interval[] }
  | { kind: 'refused'; free: Interval[] };

interface ClaimState {
  booked: Appointment[];
  upcoming: Appointment | null;
}

const SELECT_BOOKED =
  "select * from agendamentos where clinica_id = ? and status in ('marcado', 'confirmado') and inicio < ? and fim > ? order by inicio, id";
const SELECT_UPCOMING =
  "select * from agendamentos where clinica_id = ? and lead_id = ? and status in ('marcado', 'confirmado') and inicio > ? order by inicio, id limit 1";
const INSERT =
  "insert into agendamentos (clinica_id, lead_id, protocolo_id, inicio, fim, status, origem, provider, external_id, created_at, updated_at) values (?, ?, ?, ?, ?, 'marcado', ?, ?, null, ?, ?) returning *";
const MOVE = "update agendamentos set inicio = ?, fim = ?, status = 'marcado', updated_at = ? where id = ? returning *";

const iso = (ms: number) => new Date(ms).toISOString();

/** The statements of one claim: the state's reads and the write `decide` asked for, as [sql, bindings]. */
function stateQueries(req: ClaimRequest): { booked: [string, unknown[]]; upcoming: [string, unknown[]] } {
  const span = slotSpan(req.rules, req.now, req.timezone);
  return {
    booked: [SELECT_BOOKED, [req.clinicId, iso(span.end), iso(span.start)]],
    upcoming: [SELECT_UPCOMING, [req.clinicId, req.leadId, iso(req.now)]],
  };
}

type Decision =
  | { kind: 'refused'; free: Interval[] }
  | { kind: 'unchanged'; appointment: Appointment; free: Interval[] }
  | { kind: 'insert'; sql: string; bindings: unknown[]; free: Interval[] }
  | { kind: 'move'; previous: Appointment; sql: string; bindings: unknown[]; free: Interval[] };

/** Whether the asked start is free now (the lead's own upcoming appointment not counting against it), and the write if so. */
function decide(state: ClaimState, req: ClaimRequest): Decision {
  const own = state.upcoming;
  const booked = state.booked.filter((a) => a.id !== own?.id).map(spanOf);
  const free = freeSlots({
    hours: req.hours,
    timezone: req.timezone,
    rules: req.rules,
    now: req.now,
    booked,
    ours: state.booked.map(spanOf),
    availability: req.availability,
  });
  const start = req.start;
  // The lead's own upcoming time is theirs, whether or not the provider still lists it (Cal.com does
  // not list a slot its own booking holds).
  if (start !== null && own && own.inicio === start) return { kind: 'unchanged', appointment: own, free };
  if (start === null || !free.some((s) => s.start === start)) return { kind: 'refused', free };
  const end = start + req.rules.duracao_min * 60_000;
  const written = iso(Date.now());
  if (own) return { kind: 'move', previous: own, sql: MOVE, bindings: [iso(start), iso(end), written, own.id], free };
  const values = [req.clinicId, req.leadId, req.protocoloId, iso(start), iso(end), req.origem, req.provider, written, written];
  return { kind: 'insert', sql: INSERT, bindings: values, free };
}

function outcomeOf(decision: Decision, row: Record<string, unknown> | undefined): ClaimOutcome {
  if (decision.kind === 'refused' || decision.kind === 'unchanged') return decision;
  if (!row) throw new Error('agendamentos: the booking wrote no row');
  const appointment = appointmentOf(row);
  if (decision.kind === 'move') return { kind: 'moved', appointment, previous: decision.previous, free: decision.free };
  return { kind: 'inserted', appointment, free: decision.free };
}

/** Re-checks the asked start under the clinic's lock and books it (see the file comment). */
export function claimSlot(db: Database, req: ClaimRequest): Promise<ClaimOutcome> {
  return db.dialect === 'postgres' ? claimPostgres(db, req) : claimSqlite(db, req);
}

async function claimPostgres(db: Database, req: ClaimRequest): Promise<ClaimOutcome> {
  return db.knex.transaction(async (trx) => {
    const rows = async (sql: string, bindings: unknown[]) =>
      ((await trx.raw(sql, bindings as Knex.RawBinding[])) as { rows: Array<Record<string, unknown>> }).rows;
    const locked = await rows('select id from clinicas_com_atendentes where id = ? for update', [req.clinicId]);
    if (locked.length === 0) throw new Error(`clinic ${req.clinicId} does not exist`);
    const q = stateQueries(req);
    const booked = (await rows(...q.booked)).map(appointmentOf);
    const [upcoming] = (await rows(...q.upcoming)).map(appointmentOf);
    const decision = decide({ booked, upcoming: upcoming ?? null }, req);
    if (decision.kind === 'refused' || decision.kind === 'unchanged') return decision;
    return outcomeOf(decision, (await rows(decision.sql, decision.bindings))[0]);
  });
}

/** The part of a better-sqlite3 connection used here. */
interface SqliteConnection {
  prepare(sql: string): { all(...bindings: unknown[]): unknown[]; get(...bindings: unknown[]): unknown };
  transaction<T>(fn: () => T): { immediate(): T };
}

async function claimSqlite(db: Database, req: ClaimRequest): Promise<ClaimOutcome> {
  if (db.inTransaction) throw new Error('claimSlot needs a Database not bound to a transaction on SQLite');
  const client = db.knex.client as {
    acquireConnection(): Promise<SqliteConnection>;
    releaseConnection(c: SqliteConnection): Promise<unknown>;
  };
  const conn = await client.acquireConnection();
  try {
    const all = (sql: string, bindings: unknown[]) => conn.prepare(sql).all(...bindings) as Array<Record<string, unknown>>;
    return conn
      .transaction(() => {
        const q = stateQueries(req);
        const booked = all(...q.booked).map(appointmentOf);
        const [upcoming] = all(...q.upcoming).map(appointmentOf);
        const decision = decide({ booked, upcoming: upcoming ?? null }, req);
        if (decision.kind === 'refused' || decision.kind === 'unchanged') return decision;
        return outcomeOf(decision, conn.prepare(decision.sql).get(...decision.bindings) as Record<string, unknown> | undefined);
      })
      .immediate();
  } finally {
    await client.releaseConnection(conn);
  }
}
