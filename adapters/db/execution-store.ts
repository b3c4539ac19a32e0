// Execution records in the `executions` table (migration 002), on SQLite or PostgreSQL. A record
// reads back exactly as written: JSON parts are stored as JSON text, optional fields that were
// absent stay absent, timestamps are ISO text with milliseconds. The erasure ledger of `excluir`
// (engine/store/erasing-store.ts) is the `execution_erasures` table (migration 005); the sources of
// flow versions are the `flow_versions` table (migration 006). The journal of drives in progress
// (engine/store/journal.ts) is the `execution_journal` table (migration 012): a record is read as its
// row with its entries applied, in the same query; `update` deletes them in the same statement.
// The statements an execution runs every time (insert, read, status, journal append, the final write,
// cancels by key) are compiled once (compiled-statements.ts, keys `store …`); the rest are built by
// knex per call.
import type { Knex } from 'knex';
import type {
  CancelledFrom,
  ClaimResult,
  ExecutionStore,
  Lease,
  ListOptions,
  RunningExecution,
  StoredFlowVersion,
} from '../../engine/store/execution-store.js';
import { isDependencyUnavailable } from '../../engine/errors/dependency-unavailable.js';
import { stringifyRecorded } from '../../engine/errors/value-too-deep-error.js';
import {
  CompiledErasure,
  type Erasure,
  type ErasureEntry,
  type PayloadEraser,
  PAYLOAD_PARTS,
  type PayloadEraseResult,
  type RecordSummary,
} from '../../engine/store/erasure.js';
import { type ExecutionSummary, summaryOfRecord } from '../../engine/store/execution-summary.js';
import { applyJournal, type JournalEntry } from '../../engine/store/journal.js';
import { FINAL_STATUSES } from '../../engine/statuses.js';
import type { ExecutionRecord, ExecutionStatus, JsonValue } from '../../engine/types.js';
import { standIns, type CompiledStatement, type Param } from './compiled-statements.js';
import type { Database } from './database.js';
import { runStatement, type StatementResult } from './run-statement.js';
import { sqliteAtomically } from './sqlite-atomic.js';
import { toIsoTimestamp } from './values.js';

const TABLE = 'executions';
/** The erasure ledger (migration 005). */
const ERASURES = 'execution_erasures';
/** Sources of flow versions (migration 006). */
const VERSIONS = 'flow_versions';
/** The journal of drives in progress (migration 012). */
const JOURNAL = 'execution_journal';
/** A version no unfinished execution runs on is pruned once unused this long, ms (a process re-marks its versions hourly). */
const VERSION_UNUSED_MS = 86_400_000;
/** `text` for a LIKE pattern with escape character `!`: its `!`, `%` and `_` taken literally. */
const escapeLike = (text: string): string => text.replace(/[!%_]/g, (c) => `!${c}`);

/** Columns `list({containing})` searches: the trigger, the vars and the key. */
const CONTAINING_COLUMNS = ['trigger', 'vars', 'concurrency_key'] as const;
/** The columns a summary is made of (listSummaries), besides the step count. */
const SUMMARY_COLUMNS = [
  'id',
  'flow',
  'status',
  'created_at',
  'updated_at',
  'finished_at',
  'dry_run',
  'parent_id',
  'flow_version',
  'stop_reason',
  'concurrency_key',
  'replaced_by',
  'error',
] as const;

/** Text columns holding payloads, one per part of a record that holds them; `erasePayloads` searches and rewrites these. */
const PAYLOAD_COLUMNS = PAYLOAD_PARTS;
/** Payload columns stored as plain text (the others hold JSON). */
const PLAIN_TEXT_COLUMNS: ReadonlySet<string> = new Set(['stop_reason', 'concurrency_key']);
/** Default and largest page of `list`. */
const DEFAULT_LIST_LIMIT = 20;
const MAX_LIST_LIMIT = 1000;
const DAY_MS = 86_400_000;

type DbRow = Record<string, unknown>;

/** Optional JSON parts: SQL NULL when absent, JSON text (possibly `null`) when present. */
const OPTIONAL_JSON = ['response', 'output', 'error', 'started_flows', 'cancelled_flows'] as const;
/** Columns a cancellation owns: a write of a cancelled execution keeps them (see `update`). */
const CANCEL_COLUMNS = ['status', 'stop_reason', 'replaced_by', 'finished_at', 'wake_at', 'lease_owner', 'lease_until'];

/** How often cancelById tries again when the row moved between its two conditional UPDATEs. */
const CANCEL_BY_ID_ROUNDS = 5;

/** The columns a cancellation at `now` (ISO) sets: status, stop reason, finished, no wake time, no lease. */
function cancelledColumns(reason: unknown, now: unknown): DbRow {
  return {
    status: 'cancelled',
    stop_reason: reason,
    finished_at: now,
    updated_at: now,
    wake_at: null,
    lease_owner: null,
    lease_until: null,
  };
}

/** The JSON text of a record's part; a part nested too deep throws ValueTooDeepError (never a stack overflow). */
function json(value: unknown): string | null {
  return value === undefined ? null : (stringifyRecorded(value) ?? null);
}

function parse<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string') return fallback;
  return JSON.parse(text) as T;
}

/**
 * The error of a query whose bound values hold a person's data (an erasure's needles), without
 * them: knex writes the query with its values into its error messages, and a step's error is
 * logged and recorded. Keeps the name and code, so a lost connection still parks the step.
 */
function withoutValues(what: string, err: unknown): Error {
  const e = (err ?? {}) as { name?: unknown; code?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const reason = isDependencyUnavailable(err) ? 'Connection terminated or unreachable' : 'database error';
  const out = new Error(`${what} failed: ${reason}${code ? ` (${code})` : ''}`) as Error & { code?: string };
  if (typeof e.name === 'string') out.name = e.name;
  if (code) out.code = code;
  return out;
}

export class DbExecutionStore implements ExecutionStore, PayloadEraser {
  constructor(private readonly db: Database) {}

  private get knex(): Knex {
    return this.db.knex;
  }

  /** The statement of `key` (a `store …` key naming everything its text depends on), compiled from `build` on first use. */
  private statement(
    key: string,
    build: (knex: Knex, value: Param) => Knex.QueryBuilder | Knex.Raw,
    knex: Knex = this.knex,
  ): CompiledStatement {
    return this.db.statements.get(key, (value) => build(knex, value));
  }

  /** Runs the statement of `key` with `values` on `knex` (this store's, or a transaction). */
  private run(
    key: string,
    build: (knex: Knex, value: Param) => Knex.QueryBuilder | Knex.Raw,
    values: readonly unknown[],
    knex: Knex = this.knex,
  ): Promise<StatementResult> {
    return runStatement(knex, this.statement(key, build, knex), values);
  }

  private toRow(r: ExecutionRecord): DbRow {
    const row: DbRow = {
      id: r.id,
      flow: r.flow,
      status: r.status,
      wake_at: r.wake_at ?? null,
      parent_id: r.parent_id ?? null,
      flow_version: r.flow_version ?? null,
      dry_run: this.db.dialect === 'sqlite' ? (r.dry_run ? 1 : 0) : r.dry_run,
      created_at: toIsoTimestamp(r.created_at) ?? r.created_at,
      updated_at: toIsoTimestamp(r.updated_at) ?? r.updated_at,
      finished_at: r.finished_at === undefined ? null : (toIsoTimestamp(r.finished_at) ?? r.finished_at),
      trigger: json(r.trigger),
      vars: json(r.vars),
      steps: json(r.steps),
      outbound: json(r.outbound),
      stop_reason: r.stop_reason ?? null,
      concurrency_key: r.concurrency_key ?? null,
      replaced_by: r.replaced_by ?? null,
    };
    for (const key of OPTIONAL_JSON) row[key] = json(r[key]);
    return row;
  }

  private fromRow(row: DbRow): ExecutionRecord {
    const record: ExecutionRecord = {
      id: String(row.id),
      flow: String(row.flow),
      status: row.status as ExecutionStatus,
      trigger: parse(row.trigger, {}),
      vars: parse(row.vars, {}),
      steps: parse(row.steps, []),
      outbound: parse(row.outbound, []),
      dry_run: row.dry_run === true || row.dry_run === 1,
      created_at: toIsoTimestamp(row.created_at) ?? String(row.created_at),
      updated_at: toIsoTimestamp(row.updated_at) ?? String(row.updated_at),
    };
    if (row.wake_at !== null && row.wake_at !== undefined) record.wake_at = Number(row.wake_at);
    if (row.parent_id !== null && row.parent_id !== undefined) record.parent_id = String(row.parent_id);
    if (row.flow_version !== null && row.flow_version !== undefined) record.flow_version = String(row.flow_version);
    if (row.finished_at !== null && row.finished_at !== undefined)
      record.finished_at = toIsoTimestamp(row.finished_at) ?? String(row.finished_at);
    if (row.stop_reason !== null && row.stop_reason !== undefined) record.stop_reason = String(row.stop_reason);
    if (typeof row.response === 'string') record.response = JSON.parse(row.response) as ExecutionRecord['response'];
    if (typeof row.output === 'string') record.output = JSON.parse(row.output) as JsonValue;
    if (typeof row.error === 'string') record.error = JSON.parse(row.error) as ExecutionRecord['error'];
    if (typeof row.concurrency_key === 'string') record.concurrency_key = row.concurrency_key;
    if (typeof row.replaced_by === 'string') record.replaced_by = row.replaced_by;
    if (typeof row.started_flows === 'string') record.started_flows = JSON.parse(row.started_flows) as ExecutionRecord['started_flows'];
    if (typeof row.cancelled_flows === 'string')
      record.cancelled_flows = JSON.parse(row.cancelled_flows) as ExecutionRecord['cancelled_flows'];
    return applyJournal(record, this.journalOf(row));
  }

  /**
   * A column of the record's journal entries in `seq` order, read in the same query as its row:
   * PostgreSQL gives an array of texts (null: none), SQLite the JSON text of one.
   */
  private journalColumn(knex: Knex = this.knex): Knex.Raw {
    const sql =
      this.db.dialect === 'sqlite'
        ? `(select json_group_array(entry order by seq) from ${JOURNAL} j where j.execution_id = ${TABLE}.id) as journal`
        : `(select array_agg(j.entry order by j.seq) from ${JOURNAL} j where j.execution_id = ${TABLE}.id) as journal`;
    return knex.raw(sql);
  }

  /** The journal entries read with `row` (journalColumn); none when it was not read. */
  private journalOf(row: DbRow): JournalEntry[] {
    const column = row.journal;
    const texts: unknown = typeof column === 'string' ? JSON.parse(column) : column;
    if (!Array.isArray(texts)) return [];
    return texts.map((text) => JSON.parse(String(text)) as JournalEntry);
  }

  async insert(record: ExecutionRecord): Promise<void> {
    await this.insertRow(this.toRow(record));
  }

  /**
   * Writes the record over its row and deletes its journal entries (it holds them), atomically: on
   * PostgreSQL the first statement (the DELETE in a WITH of the UPDATE, run whether or not the row
   * matched), on SQLite one transaction (sqlite-atomic.ts). A cancelled row keeps its cancellation
   * (CANCEL_COLUMNS); a row not there is inserted.
   */
  async update(record: ExecutionRecord): Promise<void> {
    const row = this.toRow(record);
    // toRow's columns, `id` first: `values[0]` is the id, `values[1 + i]` the value of `changed[i]`.
    const columns = Object.keys(row);
    const changed = columns.slice(1);
    const values = Object.values(row);
    const shape = columns.join(',');
    /** The row was cancelled meanwhile: the write without CANCEL_COLUMNS, with its values. */
    const keepCancelled = (): [CompiledStatement, unknown[]] => {
      const kept = changed.filter((column) => !CANCEL_COLUMNS.includes(column));
      const statement = this.statement(`store update-cancelled ${shape}`, (knex, value) =>
        knex(TABLE)
          .where({ id: value(0) })
          .where({ status: 'cancelled' })
          .update(standIns(kept, value, 1)),
      );
      return [statement, [values[0], ...kept.map((column) => row[column])]];
    };
    /** The row is not there (any more): inserted, or merged should it be back. */
    const upsert = () =>
      this.statement(`store update-insert ${shape}`, (knex, value) =>
        knex(TABLE)
          .insert(standIns(columns, value))
          .onConflict('id')
          .merge(standIns(changed, value, 1)),
      );
    if (this.db.dialect === 'sqlite') {
      const dropJournal = this.statement('store drop-journal', (knex, value) =>
        knex(JOURNAL)
          .where({ execution_id: value(0) })
          .del(),
      );
      const write = this.statement(`store update ${shape}`, (knex, value) =>
        knex(TABLE)
          .where({ id: value(0) })
          .whereNot('status', 'cancelled')
          .update(standIns(changed, value, 1)),
      );
      await sqliteAtomically(this.knex, (run) => {
        run(dropJournal, values);
        if (run(write, values) === 1) return;
        if (run(...keepCancelled()) === 1) return;
        run(upsert(), values);
      });
      return;
    }
    const written = await this.run(
      `store update-dropping-journal ${shape}`,
      (knex, value) =>
        knex(TABLE)
          .where({ id: value(0) })
          .with('dropped', knex.raw(`delete from ${JOURNAL} where execution_id = ?`, [value(0)]))
          .whereNot('status', 'cancelled')
          .update(standIns(changed, value, 1)),
      values,
    );
    if (written.count === 1) return;
    if ((await runStatement(this.knex, ...keepCancelled())).count === 1) return;
    await runStatement(this.knex, upsert(), values);
  }

  /**
   * One INSERT of the entry (PostgreSQL: with the status read in the same statement). The row's
   * cancellation is untouched, whatever it is.
   */
  async appendJournal(entry: JournalEntry): Promise<ExecutionStatus | undefined> {
    const text = stringifyRecorded(entry) as string;
    if (this.db.dialect === 'sqlite') {
      await this.run('store journal-append', (knex, value) => knex(JOURNAL).insert({ execution_id: value(0), entry: value(1) }), [
        entry.id,
        text,
      ]);
      return this.statusOf(entry.id);
    }
    const result = await this.run(
      'store journal-append-status',
      (knex, value) =>
        knex.raw(`with appended as (insert into ${JOURNAL} (execution_id, entry) values (?, ?)) select status from ${TABLE} where id = ?`, [
          value(0),
          value(1),
          value(0),
        ]),
      [entry.id, text],
    );
    const status = result.rows[0]?.status;
    return typeof status === 'string' ? (status as ExecutionStatus) : undefined;
  }

  async statusOf(id: string): Promise<ExecutionStatus | undefined> {
    const row = (
      await this.run(
        'store status',
        (knex, value) =>
          knex(TABLE)
            .where({ id: value(0) })
            .first('status'),
        [id],
      )
    ).rows[0];
    return typeof row?.status === 'string' ? (row.status as ExecutionStatus) : undefined;
  }

  /**
   * Inserts the record, then cancels the unfinished executions of its flow and key inserted before
   * it (lower `seq`): whatever the interleaving, the last one inserted is never cancelled and
   * cancels every other. SQLite has one writer at a time, so `seq` is the order of the writes;
   * PostgreSQL, where a sequence number is not the order of commits, does both in one transaction
   * holding an advisory lock on (flow, key). (Flow names have no `:`, so `flow:key` names one pair.)
   */
  async insertReplacing(record: ExecutionRecord, lease?: Lease): Promise<string[]> {
    const key = record.concurrency_key;
    if (key === undefined) throw new Error(`execution ${record.id} has no key`);
    const row = { ...this.toRow(record), ...(lease ? { lease_owner: lease.owner, lease_until: lease.until } : {}) };
    const replace = async (q: Knex) => {
      await this.run(...this.insertStatement(row), q);
      return this.cancelUnfinished(q, record.flow, key, `replaced by execution ${record.id}`, record.id, record.id);
    };
    if (this.db.dialect === 'sqlite') return replace(this.knex);
    return this.knex.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`${record.flow}:${key}`]);
      return replace(trx);
    });
  }

  /**
   * One UPDATE (atomic against a claim of the same row); with `by`, on PostgreSQL in one statement
   * with the look for what `by` cancelled before (which sees the rows as they were before the UPDATE,
   * so none is listed twice), on SQLite that look follows when the UPDATE changed nothing.
   */
  async cancelByKey(flow: string, key: string, reason: string, by?: string): Promise<string[]> {
    if (by === undefined) return this.cancelUnfinished(this.knex, flow, key, reason);
    if (this.db.dialect === 'sqlite') {
      const ids = await this.cancelUnfinished(this.knex, flow, key, reason, undefined, undefined, by);
      if (ids.length > 0) return ids;
      return this.cancelledBefore(flow, key, by);
    }
    const now = new Date().toISOString();
    const result = await this.run(
      'store cancel-by-key-remembering',
      (knex, value) => {
        const columns = { ...cancelledColumns(value(2), value(3)), cancelled_by: value(4) };
        const cancel = knex(TABLE)
          .where({ flow: value(0), concurrency_key: value(1) })
          .whereIn('status', ['running', 'waiting'])
          .update(columns, ['id']);
        const { sql, bindings } = cancel.toSQL();
        return knex.raw(
          `with cancelled as (${sql}) select id, 1 as now from cancelled union all select id, 0 as now from ${TABLE} where flow = ? and concurrency_key = ? and status = 'cancelled' and cancelled_by = ?`,
          [...bindings, value(0), value(1), value(4)],
        );
      },
      [flow, key, reason, now, by],
    );
    const fresh = result.rows.filter((r) => Number(r.now) === 1).map((r) => String(r.id));
    return fresh.length > 0 ? fresh : result.rows.map((r) => String(r.id));
  }

  /** The executions of `flow` under `key` that `by` cancelled (cancelByKey). */
  private async cancelledBefore(flow: string, key: string, by: string): Promise<string[]> {
    const { rows } = await this.run(
      'store cancelled-before',
      (knex, value) =>
        knex(TABLE)
          .where({ flow: value(0), concurrency_key: value(1), status: 'cancelled', cancelled_by: value(2) })
          .select('id'),
      [flow, key, by],
    );
    return rows.map((r) => String(r.id));
  }

  /**
   * One conditional UPDATE per status it may be cancelled from (waiting, then running), each atomic
   * against a claim of the row; when neither matched but the row moved between them (a claim, a
   * park), they are tried again. Resolves to the status the UPDATE that matched required.
   */
  async cancelById(id: string, reason: string): Promise<CancelledFrom | undefined> {
    for (let round = 0; round < CANCEL_BY_ID_ROUNDS; round++) {
      for (const from of ['waiting', 'running'] as const) {
        const now = new Date().toISOString();
        const changed = await this.knex(TABLE).where({ id, status: from }).update(cancelledColumns(reason, now));
        if (changed === 1) return from;
      }
      const row = (await this.knex(TABLE).where({ id }).first('status')) as DbRow | undefined;
      if (row?.status !== 'waiting' && row?.status !== 'running') return undefined;
    }
    return undefined;
  }

  /**
   * One UPDATE: status `cancelled` for the running and waiting executions of the flow and key (only
   * those with a `seq` below that of the execution `beforeId`, when given). Returns the ids it changed.
   */
  private async cancelUnfinished(
    q: Knex,
    flow: string,
    key: string,
    reason: string,
    replacedBy?: string,
    beforeId?: string,
    cancelledBy?: string,
  ): Promise<string[]> {
    const now = new Date().toISOString();
    const shape = [replacedBy !== undefined && 'replaced', beforeId !== undefined && 'before', cancelledBy !== undefined && 'by'];
    const { rows } = await this.run(
      `store cancel-unfinished ${shape.filter(Boolean).join(' ')}`,
      (knex, value) => {
        const query = knex(TABLE)
          .where({ flow: value(0), concurrency_key: value(1) })
          .whereIn('status', ['running', 'waiting']);
        if (beforeId !== undefined)
          query.where(
            'seq',
            '<',
            knex(TABLE)
              .where({ id: value(5) })
              .select('seq'),
          );
        return query.update(
          {
            ...cancelledColumns(value(2), value(3)),
            ...(replacedBy !== undefined ? { replaced_by: value(4) } : {}),
            ...(cancelledBy !== undefined ? { cancelled_by: value(6) } : {}),
          },
          ['id'],
        );
      },
      [flow, key, reason, now, replacedBy, beforeId, cancelledBy],
      q,
    );
    return rows.map((r) => String(r.id));
  }

  async insertLeased(record: ExecutionRecord, lease: Lease): Promise<void> {
    await this.insertRow({ ...this.toRow(record), lease_owner: lease.owner, lease_until: lease.until });
  }

  /** The INSERT of `row` (its key, how it is built, its values), for `run`. */
  private insertStatement(row: DbRow): [string, (knex: Knex, value: Param) => Knex.QueryBuilder, unknown[]] {
    const columns = Object.keys(row);
    return [`store insert ${columns.join(',')}`, (knex, value) => knex(TABLE).insert(standIns(columns, value)), Object.values(row)];
  }

  /** One INSERT; an id already stored fails with "execution <id> already exists". */
  private async insertRow(row: DbRow): Promise<void> {
    try {
      await this.run(...this.insertStatement(row));
    } catch (err) {
      if (await this.knex(TABLE).where({ id: row.id }).first('id')) throw new Error(`execution ${String(row.id)} already exists`);
      throw err;
    }
  }

  /** One conditional UPDATE, so two processes can never both take the same execution. */
  async claim(id: string, lease: Lease, takeOverFrom?: string): Promise<ClaimResult> {
    const now = Date.now();
    const taken = await this.knex(TABLE)
      .where({ id })
      .andWhere((q) =>
        q.where('status', 'waiting').orWhere((r) =>
          r.where('status', 'running').andWhere((l) =>
            l
              .whereNull('lease_until')
              .orWhere('lease_until', '<', now)
              .orWhereIn('lease_owner', takeOverFrom ? [lease.owner, takeOverFrom] : [lease.owner]),
          ),
        ),
      )
      .update({ status: 'running', lease_owner: lease.owner, lease_until: lease.until });
    if (taken === 1) return { record: await this.get(id) };
    const row = (await this.knex(TABLE).where({ id }).first('status', 'lease_until')) as DbRow | undefined;
    if (row?.status === 'running' && row.lease_until !== null && row.lease_until !== undefined)
      return { heldUntil: Number(row.lease_until) };
    return {};
  }

  async renewLease(id: string, lease: Lease): Promise<boolean> {
    const kept = await this.knex(TABLE).where({ id, status: 'running', lease_owner: lease.owner }).update({ lease_until: lease.until });
    return kept === 1;
  }

  async listRunning(): Promise<RunningExecution[]> {
    const rows = (await this.knex(TABLE)
      .where('status', 'running')
      .select('id', 'flow', 'lease_until', 'lease_owner')
      .orderBy('seq')) as DbRow[];
    return rows.map((r) => ({
      id: String(r.id),
      flow: String(r.flow),
      lease_until: r.lease_until === null || r.lease_until === undefined ? null : Number(r.lease_until),
      lease_owner: r.lease_owner === null || r.lease_owner === undefined ? null : String(r.lease_owner),
    }));
  }

  async get(id: string): Promise<ExecutionRecord | undefined> {
    const { rows } = await this.run(
      'store get',
      (knex, value) =>
        knex(TABLE)
          .where({ id: value(0) })
          .first('*', this.journalColumn(knex)),
      [id],
    );
    return rows[0] ? this.fromRow(rows[0]) : undefined;
  }

  /** Newest first (by created_at, then insertion order); default 20, at most 1000. */
  async list(options: ListOptions = {}): Promise<ExecutionRecord[]> {
    const rows = (await this.listQuery(options).select('*', this.journalColumn())) as DbRow[];
    return rows.map((r) => this.fromRow(r));
  }

  /**
   * What list(options) gives, as summaries: the summary columns and the steps counted in SQL
   * (`json_array_length`), so no payload is read or parsed however large the recorded bodies. A record
   * with journal entries (a drive in progress, or one cut off) is read whole, as its steps are its
   * stored ones with the entries applied.
   */
  async listSummaries(options: ListOptions = {}): Promise<ExecutionSummary[]> {
    const steps = this.db.dialect === 'sqlite' ? 'steps' : 'steps::json';
    const rows = (await this.listQuery(options).select(
      ...SUMMARY_COLUMNS,
      this.knex.raw(`coalesce(json_array_length(${steps}), 0) as step_count`),
      this.knex.raw(`exists (select 1 from ${JOURNAL} j where j.execution_id = ${TABLE}.id) as has_journal`),
    )) as DbRow[];
    return Promise.all(
      rows.map(async (r) => {
        if (r.has_journal === true || r.has_journal === 1) {
          const whole = await this.get(String(r.id));
          if (whole) return summaryOfRecord(whole);
        }
        return this.summaryFromRow(r);
      }),
    );
  }

  /** The executions matching `options`, newest first (by created_at, then insertion order), limited; columns chosen by the caller. */
  private listQuery(options: ListOptions): Knex.QueryBuilder {
    const limit = Math.min(Math.max(1, Math.floor(options.limit ?? DEFAULT_LIST_LIMIT)), MAX_LIST_LIMIT);
    const query = this.knex(TABLE).orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'seq', order: 'desc' },
    ]);
    if (options.flow) query.where('flow', options.flow);
    if (options.status) query.where('status', options.status);
    if (options.version) query.whereRaw('substr(flow_version, 1, ?) = ?', [options.version.length, options.version]);
    const needles = (options.containing ?? []).filter((n) => n !== '');
    if (needles.length > 0)
      query.where((q) => {
        for (const n of needles) {
          for (const column of CONTAINING_COLUMNS) q.orWhereRaw(`?? like ? escape '!'`, [column, `%${escapeLike(n)}%`]);
          // A drive in progress: its journal entries' text, whole.
          q.orWhereExists((j) =>
            j
              .select(this.knex.raw('1'))
              .from(JOURNAL)
              .whereRaw(`${JOURNAL}.execution_id = ${TABLE}.id`)
              .whereRaw(`${JOURNAL}.entry like ? escape '!'`, [`%${escapeLike(n)}%`]),
          );
        }
      });
    return query.limit(limit);
  }

  /**
   * The summary of a row of listSummaries (no journal entries: its stored columns are the record's):
   * the row read as a record without its payload columns (fromRow gives them their empty defaults),
   * with the step count SQL gave.
   */
  private summaryFromRow(row: DbRow): ExecutionSummary {
    return { ...summaryOfRecord(this.fromRow(row)), step_count: Number(row.step_count) };
  }

  async listWaiting(): Promise<Array<{ id: string; wake_at: number | null }>> {
    const rows = (await this.knex(TABLE).where('status', 'waiting').select('id', 'wake_at').orderBy('seq')) as DbRow[];
    return rows.map((r) => ({ id: String(r.id), wake_at: r.wake_at === null || r.wake_at === undefined ? null : Number(r.wake_at) }));
  }

  /**
   * The id of the execution whose id starts with `prefix` (the full id works too); undefined when
   * none or several match.
   */
  async resolveId(prefix: string): Promise<string | undefined> {
    if (prefix === '') return undefined;
    if (await this.knex(TABLE).where({ id: prefix }).first('id')) return prefix;
    const rows = (await this.knex(TABLE).whereRaw('substr(id, 1, ?) = ?', [prefix.length, prefix]).select('id').limit(2)) as DbRow[];
    return rows.length === 1 ? String(rows[0]!.id) : undefined;
  }

  /**
   * Deletes finished executions (success, failed, stopped, cancelled) that finished more than `olderThanDays`
   * days ago (LEADFLOW_EXECUTIONS_RETAIN_DAYS), except children of an execution still running or
   * waiting (it reads their result when it resumes). Returns how many were deleted. Expired entries
   * of the erasure ledger go too (`pruneErasures`), and the flow versions no unfinished execution
   * runs on any more (`pruneFlowVersions`).
   */
  async prune(olderThanDays: number, now: number = Date.now()): Promise<number> {
    if (!Number.isFinite(olderThanDays) || olderThanDays < 0)
      throw new Error(`prune: olderThanDays must be a number >= 0, got ${olderThanDays}`);
    const cutoff = new Date(now - olderThanDays * DAY_MS).toISOString();
    const deleted = await this.knex(TABLE)
      .whereIn('status', FINAL_STATUSES)
      .where((q) => q.where('finished_at', '<', cutoff).orWhere((q2) => q2.whereNull('finished_at').where('updated_at', '<', cutoff)))
      .whereNotExists((q) =>
        q
          .select(this.knex.raw('1'))
          .from(`${TABLE} as parent`)
          .whereRaw('parent.id = executions.parent_id')
          .whereIn('parent.status', ['running', 'waiting']),
      )
      .del();
    await this.knex(JOURNAL)
      .whereNotExists((q) => q.select(this.knex.raw('1')).from(TABLE).whereRaw(`${TABLE}.id = ${JOURNAL}.execution_id`))
      .del();
    await this.pruneErasures(now);
    await this.pruneFlowVersions(now);
    return Number(deleted);
  }

  async saveFlowVersion(v: StoredFlowVersion): Promise<void> {
    const now = Date.now();
    await this.knex(VERSIONS)
      .insert({ flow: v.flow, version: v.version, source: v.source, created_at: now, used_at: now })
      .onConflict(['flow', 'version'])
      .merge({ used_at: now });
  }

  async getFlowVersion(flow: string, version: string): Promise<string | undefined> {
    const row = (await this.knex(VERSIONS).where({ flow, version }).first('source')) as DbRow | undefined;
    return typeof row?.source === 'string' ? row.source : undefined;
  }

  /**
   * Deletes the flow versions no unfinished execution runs on and no process marked used within a
   * day of `now` (ms); returns how many went.
   */
  async pruneFlowVersions(now: number = Date.now()): Promise<number> {
    const deleted = await this.knex(VERSIONS)
      .where('used_at', '<', now - VERSION_UNUSED_MS)
      .whereNotExists((q) =>
        q
          .select(this.knex.raw('1'))
          .from(TABLE)
          .whereRaw(`${TABLE}.flow = ${VERSIONS}.flow`)
          .whereRaw(`${TABLE}.flow_version = ${VERSIONS}.version`)
          .whereNotIn(`${TABLE}.status`, FINAL_STATUSES),
      )
      .del();
    return Number(deleted);
  }

  /**
   * Erases one person's data from stored payloads (`excluir`, engine/store/erasure.ts): every
   * execution whose trigger, vars, steps, outbound calls, response, output, error or stop reason
   * contains one of the erasure's needles is rewritten scrubbed, unless `spare` keeps it (an
   * execution still running or waiting needs its data). Needles are first looked up in the stored
   * JSON text, so they should be text JSON writes as is (phone digits, a chat id). A running
   * execution saves its in-memory record again after its next step: the erasing store decorator
   * (engine/store/erasing-store.ts) scrubs those writes.
   */
  async erasePayloads(erasure: Erasure, spare: (record: RecordSummary) => boolean = () => false): Promise<PayloadEraseResult> {
    const compiled = new CompiledErasure(erasure);
    const result: PayloadEraseResult = { erased: [], spared: [] };
    if (compiled.needles.length === 0) return result;
    let rows: DbRow[];
    try {
      rows = (await this.knex(TABLE)
        .where((q) => {
          for (const column of PAYLOAD_COLUMNS)
            for (const n of compiled.needles) q.orWhereRaw(`?? like ? escape '!'`, [column, `%${escapeLike(n)}%`]);
        })
        .orderBy('seq')
        .select('id', 'status', 'parent_id', ...PAYLOAD_COLUMNS)) as DbRow[];
    } catch (err) {
      throw withoutValues('looking for the records to erase', err);
    }
    for (const row of rows) {
      if (!PAYLOAD_COLUMNS.some((c) => typeof row[c] === 'string' && compiled.hits(row[c]))) continue;
      const summary: RecordSummary = { id: String(row.id), status: row.status as ExecutionStatus };
      if (row.parent_id !== null && row.parent_id !== undefined) summary.parent_id = String(row.parent_id);
      if (spare(summary)) {
        result.spared.push(summary.id);
        continue;
      }
      const changes: DbRow = {};
      for (const column of PAYLOAD_COLUMNS) {
        const text = row[column];
        if (typeof text !== 'string') continue;
        const scrubbed = PLAIN_TEXT_COLUMNS.has(column)
          ? compiled.replaceText(text)
          : JSON.stringify(compiled.scrub(JSON.parse(text) as JsonValue));
        if (scrubbed !== text) changes[column] = scrubbed;
      }
      if (Object.keys(changes).length === 0) continue;
      await this.knex(TABLE).where({ id: row.id }).update(changes);
      result.erased.push(summary.id);
    }
    await this.eraseJournal(compiled, spare, result);
    return result;
  }

  /** erasePayloads for the journal entries of drives in progress: each entry holding a needle is rewritten scrubbed, unless its execution is spared. */
  private async eraseJournal(
    compiled: CompiledErasure,
    spare: (record: RecordSummary) => boolean,
    result: PayloadEraseResult,
  ): Promise<void> {
    let rows: DbRow[];
    try {
      rows = (await this.knex(`${JOURNAL} as j`)
        .leftJoin(`${TABLE} as e`, 'e.id', 'j.execution_id')
        .where((q) => {
          for (const n of compiled.needles) q.orWhereRaw(`j.entry like ? escape '!'`, [`%${escapeLike(n)}%`]);
        })
        .orderBy('j.seq')
        .select('j.seq', 'j.execution_id', 'j.entry', 'e.status', 'e.parent_id')) as DbRow[];
    } catch (err) {
      throw withoutValues('looking for the journal entries to erase', err);
    }
    const decided = new Map<string, boolean>();
    for (const row of rows) {
      const text = String(row.entry);
      if (!compiled.hits(text)) continue;
      const id = String(row.execution_id);
      let spared = decided.get(id);
      if (spared === undefined) {
        const summary: RecordSummary = { id, status: (row.status ?? 'failed') as ExecutionStatus };
        if (row.parent_id !== null && row.parent_id !== undefined) summary.parent_id = String(row.parent_id);
        spared = result.spared.includes(id) || spare(summary);
        decided.set(id, spared);
        if (spared && !result.spared.includes(id)) result.spared.push(id);
      }
      if (spared) continue;
      const entry = JSON.parse(text) as JournalEntry;
      const scrubbed = { ...(compiled.scrub(entry as unknown as JsonValue) as object), id: entry.id } as JournalEntry;
      if (entry.parent_id !== undefined) scrubbed.parent_id = entry.parent_id;
      await this.knex(JOURNAL)
        .where({ seq: row.seq })
        .update({ entry: JSON.stringify(scrubbed) });
      if (!result.erased.includes(id)) result.erased.push(id);
    }
  }

  // The erasure ledger (engine/store/erasing-store.ts): a few rows at most, each deleted once the
  // executions it names have ended. `erasure` holds the person's data: it is never part of an error.

  async recordErasure(entry: ErasureEntry): Promise<void> {
    try {
      await this.knex(ERASURES).insert({
        id: entry.id,
        erasure: JSON.stringify(entry.erasure),
        eraser_id: entry.eraser_id,
        execution_ids: JSON.stringify(entry.execution_ids),
        created_at: entry.created_at,
        expires_at: entry.expires_at,
      });
    } catch (err) {
      throw withoutValues('recording the erasure', err);
    }
  }

  async liveErasures(now: number): Promise<ErasureEntry[]> {
    const rows = (await this.knex(ERASURES)
      .where('expires_at', '>', now)
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select('*')) as DbRow[];
    return rows.map((row) => ({
      id: String(row.id),
      erasure: parse<Erasure>(row.erasure, { needles: [], replace: [] }),
      eraser_id: String(row.eraser_id),
      execution_ids: parse<string[]>(row.execution_ids, []),
      created_at: Number(row.created_at),
      expires_at: Number(row.expires_at),
    }));
  }

  async dropErasure(id: string): Promise<boolean> {
    return Number(await this.knex(ERASURES).where({ id }).del()) > 0;
  }

  async pruneErasures(now: number): Promise<number> {
    return Number(await this.knex(ERASURES).where('expires_at', '<=', now).del());
  }
}
