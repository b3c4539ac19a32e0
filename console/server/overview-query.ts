// The SQL behind GET /admin/overview: the figures of a time range, per clinic, counted in the
// database per 15-minute bucket of UTC time (`bucket`: the bucket's start, ms since the epoch), so
// overview.ts can regroup the buckets into the local days of any time zone (every zone's offset is a
// whole number of quarter hours). The same SQL on PostgreSQL (timestamptz: `extract(epoch …)`) and
// SQLite (ISO 8601 text: `strftime('%s', …)`); the range is [from, to) on the indexed columns.
//   leads            leads.created_at                          (count)
//   handoffs         leads.handoff_at                          (count)
//   optouts          leads.optout_at                           (count)
//   messages         wf_chat_histories.created_at, by type     (count; `key` lead | agent | operator)
//   followups        activity_events followup_sent             (sum of value)
//   ai               activity_events ai_call, by label, outcome (count, sums of value and value2)
//   failed           activity_events execution, outcome failed, by label (flow) (count)
//   firstContacts    activity_events first_contact: each value (percentiles need them all)
//   appointments     agendamentos.inicio, by status                (count; the day of the appointment)
import type { Knex } from 'knex';
import { ACTIVITY_TABLE } from '../../adapters/db/activity-store.js';
import type { Database } from '../../adapters/db/database.js';

/** Length of a bucket, ms (15 minutes). */
export const BUCKET_MS = 900_000;

/** One bucket's figure for one clinic (and key, outcome where the figure has them). */
export interface BucketRow {
  clinica_id: number | null;
  /** Start of the 15-minute bucket, ms since the epoch (UTC). */
  bucket: number;
  /** Chat message type, model or flow, by figure. */
  key?: string;
  outcome?: string;
  /** Rows in the bucket. */
  n: number;
  /** Sum of `value` (followups: follow-ups; ai: input tokens). */
  sum: number;
  /** Sum of `value2` (ai: output tokens). */
  sum2: number;
}

/** One first-contact time. */
export interface FirstContactRow {
  clinica_id: number | null;
  bucket: number;
  value: number;
}

/** What overviewRows reads for a time range, one list per figure (see the header for each). */
export interface OverviewRows {
  leads: BucketRow[];
  handoffs: BucketRow[];
  optouts: BucketRow[];
  messages: BucketRow[];
  followups: BucketRow[];
  ai: BucketRow[];
  failed: BucketRow[];
  firstContacts: FirstContactRow[];
  /** By `key` = status. */
  appointments: BucketRow[];
}

/** SQL of the bucket number (epoch seconds / 900, truncated) of the timestamp column bound as `??`. */
function bucketSql(db: Database): string {
  return db.dialect === 'postgres' ? 'floor(extract(epoch from ??) / 900)::bigint' : "(cast(strftime('%s', ??) as integer) / 900)";
}

const toNumber = (value: unknown): number => (value === null || value === undefined ? 0 : Number(value));
const toClinic = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

interface Counted {
  table: string;
  column: string;
  /** Extra filter on the rows. */
  where?: (q: Knex.QueryBuilder) => void;
  /** Column grouped as `key`, and as `outcome`. */
  key?: string;
  outcome?: string;
  /** Summed columns (`sum`, `sum2`). */
  sums?: [string, string?];
}

async function bucketed(db: Database, from: string, to: string, spec: Counted): Promise<BucketRow[]> {
  const q = db.knex(spec.table).where(spec.column, '>=', from).where(spec.column, '<', to);
  spec.where?.(q);
  const selects: Array<string | Knex.Raw> = [
    'clinica_id',
    db.knex.raw(`${bucketSql(db)} as bucket`, [spec.column]),
    db.knex.raw('count(*) as n'),
  ];
  q.groupBy('clinica_id').groupByRaw(bucketSql(db), [spec.column]);
  if (spec.key) {
    selects.push(`${spec.key} as key`);
    q.groupBy(spec.key);
  }
  if (spec.outcome) {
    selects.push(`${spec.outcome} as outcome`);
    q.groupBy(spec.outcome);
  }
  if (spec.sums?.[0]) selects.push(db.knex.raw('sum(??) as sum', [spec.sums[0]]));
  if (spec.sums?.[1]) selects.push(db.knex.raw('sum(??) as sum2', [spec.sums[1]]));
  const rows = (await q.select(selects)) as Array<Record<string, unknown>>;
  return rows.map((r) => ({
    clinica_id: toClinic(r.clinica_id),
    bucket: toNumber(r.bucket) * BUCKET_MS,
    ...(spec.key ? { key: String(r.key ?? '') } : {}),
    ...(spec.outcome ? { outcome: String(r.outcome ?? '') } : {}),
    n: toNumber(r.n),
    sum: toNumber(r.sum),
    sum2: toNumber(r.sum2),
  }));
}

/** Every figure of [from, to) (ISO 8601 instants), per clinic and bucket. */
export async function overviewRows(db: Database, from: string, to: string): Promise<OverviewRows> {
  const activity = (kind: string) => (q: Knex.QueryBuilder) => void q.where('kind', kind);
  const [leads, handoffs, optouts, messages, followups, ai, failed, firstContacts, appointments] = await Promise.all([
    bucketed(db, from, to, { table: 'leads', column: 'created_at' }),
    bucketed(db, from, to, { table: 'leads', column: 'handoff_at' }),
    bucketed(db, from, to, { table: 'leads', column: 'optout_at' }),
    bucketed(db, from, to, { table: 'wf_chat_histories', column: 'created_at', key: 'type' }),
    bucketed(db, from, to, { table: ACTIVITY_TABLE, column: 'at', where: activity('followup_sent'), sums: ['value'] }),
    bucketed(db, from, to, {
      table: ACTIVITY_TABLE,
      column: 'at',
      where: activity('ai_call'),
      key: 'label',
      outcome: 'outcome',
      sums: ['value', 'value2'],
    }),
    bucketed(db, from, to, {
      table: ACTIVITY_TABLE,
      column: 'at',
      where: (q) => void q.where('kind', 'execution').where('outcome', 'failed'),
      key: 'label',
    }),
    db
      .knex(ACTIVITY_TABLE)
      .where('kind', 'first_contact')
      .where('at', '>=', from)
      .where('at', '<', to)
      .whereNotNull('value')
      .select('clinica_id', db.knex.raw(`${bucketSql(db)} as bucket`, ['at']), 'value') as Promise<Array<Record<string, unknown>>>,
    bucketed(db, from, to, { table: 'agendamentos', column: 'inicio', key: 'status' }),
  ]);
  return {
    leads,
    handoffs,
    optouts,
    messages,
    followups,
    ai,
    failed,
    appointments,
    firstContacts: firstContacts.map((r) => ({
      clinica_id: toClinic(r.clinica_id),
      bucket: toNumber(r.bucket) * BUCKET_MS,
      value: toNumber(r.value),
    })),
  };
}
