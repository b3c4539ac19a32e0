// The rows and the journal of the database execution store: records in the `executions` table
// (migration 002), read as their row with the journal of a drive in progress applied
// (engine/store/journal.ts; the `execution_journal` table, migration 012) in the same query; `update`
// deletes the entries in the same statement. Lists, summaries, waits and pruning of finished ones.
import type { Knex } from 'knex';
import type { ListOptions, ParkedState } from '../../../engine/store/execution-store.js';
import { type ExecutionSummary, summaryOfRecord } from '../../../engine/store/execution-summary.js';
import type { JournalEntry } from '../../../engine/store/journal.js';
import { stringifyRecorded } from '../../../engine/errors/value-too-deep-error.js';
import { FINAL_STATUSES } from '../../../engine/statuses.js';
import type { ExecutionRecord, ExecutionStatus } from '../../../engine/types.js';
import { standIns, type CompiledStatement } from '../compiled-statements.js';
import { runStatement } from '../run-statement.js';
import { sqliteAtomically } from '../sqlite-atomic.js';
import { toIsoTimestamp } from '../values.js';
import { type DbRow, escapeLike, JOURNAL, StorePart, TABLE } from './store-part.js';

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
/** Default and largest page of `list`. */
const DEFAULT_LIST_LIMIT = 20;
const MAX_LIST_LIMIT = 1000;
const DAY_MS = 86_400_000;
/** Columns a cancellation owns: a write of a cancelled execution keeps them (see `update`). */
const CANCEL_COLUMNS = ['status', 'stop_reason', 'replaced_by', 'finished_at', 'wake_at', 'lease_owner', 'lease_until'];
/**
 * Columns fixed when an execution is inserted, which no write of it changes (ExecutionStore.update):
 * `update` leaves them out of its SET, so the four indexes on them are not rewritten (on SQLite an
 * UPDATE rewrites the entry of every index on a column it sets, changed or not). An insert writes them.
 */
const INSERTED_ONLY_COLUMNS = new Set(['flow', 'parent_id', 'flow_version', 'created_at']);

/** The records and their journal (see the file comment); the contract of each method is ExecutionStore's. */
export class ExecutionRows extends StorePart {
  async insert(record: ExecutionRecord): Promise<void> {
    await this.insertRow(this.toRow(record));
  }

  /**
   * Writes the record over its row and deletes its journal entries (it holds them), atomically: on
   * PostgreSQL the first statement (the DELETE in a WITH of the UPDATE, run whether or not the row
   * matched), on SQLite one transaction (sqlite-atomic.ts). A cancelled row keeps its cancellation
   * (CANCEL_COLUMNS); a row not there is inserted. The columns INSERTED_ONLY_COLUMNS are written
   * only by that insert.
   */
  async update(record: ExecutionRecord): Promise<void> {
    const row = this.toRow(record);
    // `id` first, then the columns an update sets: `values[0]` is the id, `values[1 + i]` the value
    // of `changed[i]`; the insert of a row not there takes `columns` and `insertValues`.
    const columns = Object.keys(row);
    const changed = columns.slice(1).filter((column) => !INSERTED_ONLY_COLUMNS.has(column));
    const values = [row.id, ...changed.map((column) => row[column])];
    const insertValues = Object.values(row);
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
    /** The row is not there (any more): inserted, or merged should it be back (with `insertValues`). */
    const upsert = () =>
      this.statement(`store update-insert ${shape}`, (knex, value) =>
        knex(TABLE)
          .insert(standIns(columns, value))
          .onConflict('id')
          .merge(standIns(columns.slice(1), value, 1)),
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
        run(upsert(), insertValues);
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
    await runStatement(this.knex, upsert(), insertValues);
  }

  /**
   * One INSERT of the entry, with the row's status read in the same statement (PostgreSQL: a SELECT
   * after the INSERT in a WITH; SQLite: a subquery in its RETURNING). The row's cancellation is
   * untouched, whatever it is.
   */
  async appendJournal(entry: JournalEntry): Promise<ExecutionStatus | undefined> {
    const text = stringifyRecorded(entry) as string;
    const result = await this.run(
      'store journal-append-status',
      (knex, value) =>
        this.db.dialect === 'sqlite'
          ? knex.raw(
              `insert into ${JOURNAL} (execution_id, entry) values (?, ?) returning (select status from ${TABLE} where ${TABLE}.id = ${JOURNAL}.execution_id) as status`,
              [value(0), value(1)],
            )
          : knex.raw(
              `with appended as (insert into ${JOURNAL} (execution_id, entry) values (?, ?)) select status from ${TABLE} where id = ?`,
              [value(0), value(1), value(0)],
            ),
      [entry.id, text],
    );
    const status = result.rows[0]?.status;
    return typeof status === 'string' ? (status as ExecutionStatus) : undefined;
  }

  /**
   * ExecutionStore.park: the entry appended and the row marked waiting, atomically: on PostgreSQL one
   * statement (the INSERT in a WITH of the UPDATE), on SQLite one transaction (sqlite-atomic.ts). A
   * row not marked (cancelled, or not there) is then looked up: false only when it is not there.
   */
  async park(entry: JournalEntry, wake: ParkedState): Promise<boolean> {
    const text = stringifyRecorded(entry) as string;
    const values = [entry.id, text, wake.wake_at, toIsoTimestamp(wake.updated_at) ?? wake.updated_at];
    let marked: boolean;
    if (this.db.dialect === 'sqlite') {
      const append = this.statement('store park-append', (knex, value) =>
        knex(JOURNAL).insert({ execution_id: value(0), entry: value(1) }),
      );
      const mark = this.statement('store park-mark', (knex, value) =>
        knex(TABLE)
          .where({ id: value(0) })
          .whereNot('status', 'cancelled')
          .update({ status: 'waiting', wake_at: value(2), updated_at: value(3) }),
      );
      marked = await sqliteAtomically(this.knex, (run) => {
        run(append, values);
        return run(mark, values) === 1;
      });
    } else {
      const result = await this.run(
        'store park',
        (knex, value) =>
          knex.raw(
            `with appended as (insert into ${JOURNAL} (execution_id, entry) values (?, ?)) update ${TABLE} set status = 'waiting', wake_at = ?, updated_at = ? where id = ? and status <> 'cancelled' returning id`,
            [value(0), value(1), value(2), value(3), value(0)],
          ),
        values,
      );
      marked = result.rows.length === 1;
    }
    return marked || (await this.statusOf(entry.id)) !== undefined;
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
   * runs on any more (`pruneFlowVersions`): those are the other parts', index.ts calls them after.
   */
  async pruneFinished(olderThanDays: number, now: number = Date.now()): Promise<number> {
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
    return Number(deleted);
  }
}
