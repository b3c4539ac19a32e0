// GET /admin/overview?days=<1..31, default 7>&tz=<IANA zone, default America/Sao_Paulo>
//   -> OverviewResponse (api-types.ts): per clinic and for all clinics, the figures of each local
//   day of the last `days` days in `tz` (today last, today's figures so far) and their totals for
//   today and for the period. 422 {error: "invalid query", details: [{path, message}]} on a
//   malformed, out-of-range or repeated parameter (`path` names it; every problem listed).
// The database counts per 15-minute UTC bucket (overview-query.ts); the buckets are regrouped here
// into local days with luxon (daylight saving and half-hour zones handled). First-contact
// percentiles are nearest-rank over every first contact of the day or period.
// Roles (CONTRACT.md §13): an equipe or hunter account gets its clinics' series only, and `all` adds
// up those (the rows of no clinic are the admins').
import type { RequestHandler } from 'express';
import { DateTime, IANAZone } from 'luxon';
import type { Database } from '../../adapters/db/database.js';
import type { OverviewAiModel, OverviewAppointments, OverviewFigures, OverviewResponse, OverviewSeries } from './api-types.js';
import { type InputProblem, sendInvalid } from './lead-rows.js';
import { type BucketRow, type OverviewRows, overviewRows } from './overview-query.js';
import { clinicVisibleTo } from './lead-scope.js';
import { isAdmin, type Principal, principalOf, TOKEN_PRINCIPAL } from './principal.js';

/** Days covered when `days` is not given, today included. */
export const DEFAULT_OVERVIEW_DAYS = 7;
/** The largest `days` accepted. */
export const MAX_OVERVIEW_DAYS = 31;
/** The time zone of the local days when `tz` is not given. */
export const DEFAULT_OVERVIEW_TZ = 'America/Sao_Paulo';
/** Rule 1: the first message within two minutes, ms. */
export const FIRST_CONTACT_LIMIT_MS = 120_000;

interface OverviewParams {
  days: number;
  tz: string;
}

/** The query parameters, or every problem with them (each naming its parameter). */
export function parseOverviewQuery(query: Record<string, unknown>): OverviewParams | { problems: InputProblem[] } {
  const { days, tz } = query;
  const problems: InputProblem[] = [];
  const n = days === undefined ? DEFAULT_OVERVIEW_DAYS : typeof days === 'string' && /^[0-9]{1,2}$/.test(days) ? Number(days) : Number.NaN;
  if (!(n >= 1 && n <= MAX_OVERVIEW_DAYS))
    problems.push({ path: 'days', message: `must be given once, an integer from 1 to ${MAX_OVERVIEW_DAYS}` });
  const zone = tz ?? DEFAULT_OVERVIEW_TZ;
  if (typeof zone !== 'string' || zone.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(zone) || !IANAZone.isValidZone(zone))
    problems.push({ path: 'tz', message: 'must be given once, an IANA time zone, e.g. America/Sao_Paulo' });
  return problems.length > 0 ? { problems } : { days: n, tz: zone as string };
}

/** What one day (or period) of one clinic adds up to, before it becomes OverviewFigures. */
interface Tally {
  leads_in: number;
  firstContacts: number[];
  lead_messages: number;
  agent_replies: number;
  handoffs: number;
  followups: number;
  optouts: number;
  ai: Map<string, OverviewAiModel>;
  failed: Map<string, number>;
  /** Appointments starting that day, by status. */
  appointments: Map<string, number>;
}

const emptyTally = (): Tally => ({
  leads_in: 0,
  firstContacts: [],
  lead_messages: 0,
  agent_replies: 0,
  handoffs: 0,
  followups: 0,
  optouts: 0,
  ai: new Map(),
  failed: new Map(),
  appointments: new Map(),
});

function addTally(into: Tally, from: Tally): void {
  for (const key of ['leads_in', 'lead_messages', 'agent_replies', 'handoffs', 'followups', 'optouts'] as const) into[key] += from[key];
  into.firstContacts.push(...from.firstContacts);
  for (const [model, m] of from.ai) {
    const to = into.ai.get(model) ?? { model, calls: 0, failures: 0, input_tokens: 0, output_tokens: 0 };
    to.calls += m.calls;
    to.failures += m.failures;
    to.input_tokens += m.input_tokens;
    to.output_tokens += m.output_tokens;
    into.ai.set(model, to);
  }
  for (const [flow, count] of from.failed) into.failed.set(flow, (into.failed.get(flow) ?? 0) + count);
  for (const [status, count] of from.appointments) into.appointments.set(status, (into.appointments.get(status) ?? 0) + count);
}

/** The appointments' figures of a tally: booked (all but cancelled), by status, and the show rate. */
function appointmentFigures(counts: Map<string, number>): OverviewAppointments {
  const n = (status: string) => counts.get(status) ?? 0;
  const attended = n('compareceu');
  const noShow = n('faltou');
  return {
    booked: n('marcado') + n('confirmado') + attended + noShow,
    confirmed: n('confirmado'),
    attended,
    no_show: noShow,
    cancelled: n('cancelado'),
    show_rate: attended + noShow === 0 ? null : attended / (attended + noShow),
  };
}

/** The nearest-rank `p`-th percentile of ascending `sorted`, or null when empty. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;
}

function figures(tally: Tally): OverviewFigures {
  const sorted = [...tally.firstContacts].sort((a, b) => a - b);
  return {
    leads_in: tally.leads_in,
    first_contact: {
      count: sorted.length,
      p50_ms: percentile(sorted, 50),
      p95_ms: percentile(sorted, 95),
      over_2min: sorted.filter((ms) => ms > FIRST_CONTACT_LIMIT_MS).length,
    },
    lead_messages: tally.lead_messages,
    agent_replies: tally.agent_replies,
    handoffs: tally.handoffs,
    followups: tally.followups,
    optouts: tally.optouts,
    ai: [...tally.ai.values()].sort((a, b) => b.calls - a.calls || a.model.localeCompare(b.model)),
    failed_executions: [...tally.failed.entries()]
      .map(([flow, count]) => ({ flow, count }))
      .sort((a, b) => b.count - a.count || a.flow.localeCompare(b.flow)),
    appointments: appointmentFigures(tally.appointments),
  };
}

/** The local days an overview covers, oldest first, and their UTC range. */
interface Period {
  /** ISO dates (`2026-11-28`), today last. */
  dates: string[];
  /** Index in `dates` by ISO date. */
  dayIndex: Map<string, number>;
  /** Start of the first day, ISO timestamp (inclusive). */
  from: string;
  /** Start of the day after today, ISO timestamp (exclusive). */
  to: string;
}

/** The last `params.days` local days in `params.tz` at `now` (ms), today included. */
function periodOf(params: OverviewParams, now: number): Period {
  const today = DateTime.fromMillis(now, { zone: params.tz }).startOf('day');
  const first = today.minus({ days: params.days - 1 });
  const dates = Array.from({ length: params.days }, (_, i) => first.plus({ days: i }).toISODate()!);
  return {
    dates,
    dayIndex: new Map(dates.map((date, i) => [date, i])),
    from: new Date(first.toMillis()).toISOString(),
    to: new Date(today.plus({ days: 1 }).toMillis()).toISOString(),
  };
}

/** One clinic's tallies, one per day of the period (clinica_id null: rows of no clinic). */
interface ClinicDays {
  clinica_id: number | null;
  nome: string | null;
  days: Tally[];
}

/** Tallies per clinic (key: its id, or 'none') and local day, filled from the database's 15-minute buckets. */
class ClinicTallies {
  private readonly byClinic = new Map<string, ClinicDays>();

  constructor(
    private readonly period: Period,
    private readonly tz: string,
  ) {}

  /** The clinic's tallies, created (named null, every day empty) on first use. */
  of(clinica_id: number | null): ClinicDays {
    const key = clinica_id === null ? 'none' : String(clinica_id);
    let clinic = this.byClinic.get(key);
    if (!clinic) {
      clinic = { clinica_id, nome: null, days: this.period.dates.map(emptyTally) };
      this.byClinic.set(key, clinic);
    }
    return clinic;
  }

  /** The tally of the local day holding `bucket` (ms), or undefined when that day is outside the period. */
  at(clinica_id: number | null, bucket: number): Tally | undefined {
    const i = this.period.dayIndex.get(DateTime.fromMillis(bucket, { zone: this.tz }).toISODate() ?? '');
    return i === undefined ? undefined : this.of(clinica_id).days[i];
  }

  /** Adds each row to its clinic's day with `add`. */
  count(list: BucketRow[], add: (tally: Tally, row: BucketRow) => void): void {
    for (const row of list) {
      const tally = this.at(row.clinica_id, row.bucket);
      if (tally) add(tally, row);
    }
  }

  /** Every clinic by id, the rows of no clinic last. */
  ordered(): ClinicDays[] {
    return [...this.byClinic.values()].sort((a, b) =>
      a.clinica_id === null ? 1 : b.clinica_id === null ? -1 : a.clinica_id - b.clinica_id,
    );
  }
}

/** Adds the database's rows (overview-query.ts) to the tallies. */
function countRows(tallies: ClinicTallies, rows: OverviewRows): void {
  tallies.count(rows.leads, (t, r) => {
    t.leads_in += r.n;
  });
  tallies.count(rows.handoffs, (t, r) => {
    t.handoffs += r.n;
  });
  tallies.count(rows.optouts, (t, r) => {
    t.optouts += r.n;
  });
  tallies.count(rows.messages, (t, r) => {
    if (r.key === 'lead') t.lead_messages += r.n;
    else if (r.key === 'agent') t.agent_replies += r.n;
  });
  tallies.count(rows.followups, (t, r) => {
    t.followups += r.sum;
  });
  tallies.count(rows.ai, (t, r) => {
    const model = r.key ?? '';
    const m = t.ai.get(model) ?? { model, calls: 0, failures: 0, input_tokens: 0, output_tokens: 0 };
    m.calls += r.n;
    if (r.outcome !== 'ok') m.failures += r.n;
    m.input_tokens += r.sum;
    m.output_tokens += r.sum2;
    t.ai.set(model, m);
  });
  tallies.count(rows.appointments, (t, r) => {
    t.appointments.set(r.key ?? '', (t.appointments.get(r.key ?? '') ?? 0) + r.n);
  });
  tallies.count(rows.failed, (t, r) => {
    t.failed.set(r.key ?? '', (t.failed.get(r.key ?? '') ?? 0) + r.n);
  });
  for (const row of rows.firstContacts) tallies.at(row.clinica_id, row.bucket)?.firstContacts.push(row.value);
}

/** One series of the answer: each day's figures, today's (the last day) and the period's. */
function toSeries(dates: string[], { clinica_id, nome, days }: ClinicDays): OverviewSeries {
  const period = emptyTally();
  for (const day of days) addTally(period, day);
  return {
    clinica_id,
    nome,
    days: days.map((day, i) => ({ date: dates[i]!, ...figures(day) })),
    today: figures(days[days.length - 1]!),
    period: figures(period),
  };
}

/** The overview of `params` at `now` (ms), of the clinics `principal` may see. */
export async function queryOverview(
  db: Database,
  params: OverviewParams,
  now: number = Date.now(),
  principal: Principal = TOKEN_PRINCIPAL,
): Promise<OverviewResponse> {
  const period = periodOf(params, now);
  const [rows, clinicRows] = await Promise.all([
    overviewRows(db, period.from, period.to),
    db.find('clinicas_com_atendentes', { order_by: [{ column: 'id', direction: 'asc' }], limit: 1000 }),
  ]);
  const tallies = new ClinicTallies(period, params.tz);
  for (const c of clinicRows) tallies.of(Number(c.id)).nome = String(c.nome);
  countRows(tallies, rows);
  const ordered = tallies.ordered().filter((c) => (c.clinica_id === null ? isAdmin(principal) : clinicVisibleTo(principal, c.clinica_id)));
  const allDays = period.dates.map((_, i) => {
    const day = emptyTally();
    for (const clinic of ordered) addTally(day, clinic.days[i]!);
    return day;
  });
  return {
    days: params.days,
    tz: params.tz,
    dates: period.dates,
    generated_at: new Date(now).toISOString(),
    first_contact_limit_ms: FIRST_CONTACT_LIMIT_MS,
    all: toSeries(period.dates, { clinica_id: null, nome: null, days: allDays }),
    clinics: ordered.map((clinic) => toSeries(period.dates, clinic)),
  };
}

/** `GET /admin/overview`: the overview of the last `days` local days in `tz`, not cached; 422 on a bad parameter. */
export function getOverview(db: Database): RequestHandler {
  return async (req, res) => {
    const parsed = parseOverviewQuery(req.query as Record<string, unknown>);
    if ('problems' in parsed) return sendInvalid(res, 'invalid query', parsed.problems);
    res.set('Cache-Control', 'no-store');
    res.json(await queryOverview(db, parsed, Date.now(), principalOf(res)));
  };
}
