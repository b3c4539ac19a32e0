// What every part of the database execution store (index.ts) shares: the tables, a record's row and
// back (a record reads back exactly as written: JSON parts are stored as JSON text, optional fields
// that were absent stay absent, timestamps are ISO text with milliseconds), and the statements an
// execution runs every time, compiled once (compiled-statements.ts, keys `store …`).
import type { Knex } from 'knex';
import { stringifyRecorded } from '../../../engine/errors/value-too-deep-error.js';
import { applyJournal, type JournalEntry } from '../../../engine/store/journal.js';
import type { ExecutionRecord, ExecutionStatus, JsonValue } from '../../../engine/types.js';
import { standIns, type CompiledStatement, type Param } from '../compiled-statements.js';
import type { Database } from '../database.js';
import { runStatement, type StatementResult } from '../run-statement.js';
import { toIsoTimestamp } from '../values.js';

/** The executions (migration 002). */
export const TABLE = 'executions';
/** The erasure ledger (migration 005). */
export const ERASURES = 'execution_erasures';
/** Sources of flow versions (migration 006). */
export const VERSIONS = 'flow_versions';
/** The journal of drives in progress (migration 012). */
export const JOURNAL = 'execution_journal';

/** `text` for a LIKE pattern with escape character `!`: its `!`, `%` and `_` taken literally. */
export const escapeLike = (text: string): string => text.replace(/[!%_]/g, (c) => `!${c}`);

/** A row as knex reads and writes it: column name to value. */
export type DbRow = Record<string, unknown>;

/** Optional JSON parts: SQL NULL when absent, JSON text (possibly `null`) when present. */
const OPTIONAL_JSON = ['response', 'output', 'error', 'started_flows', 'cancelled_flows'] as const;

/** The JSON text of a record's part; a part nested too deep throws ValueTooDeepError (never a stack overflow). */
function json(value: unknown): string | null {
  return value === undefined ? null : (stringifyRecorded(value) ?? null);
}

/** `text` parsed as JSON, or `fallback` when it is not a string (SQL NULL). */
export function parse<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string') return fallback;
  return JSON.parse(text) as T;
}

/** The statement an INSERT of a row is: its key, how it is built, its values (StorePart.run). */
type InsertStatement = [string, (knex: Knex, value: Param) => Knex.QueryBuilder, unknown[]];

/**
 * The base of each part of the database execution store: the database, the compiled statements,
 * and a record's row (toRow) and back (fromRow, with its journal entries applied).
 */
export class StorePart {
  constructor(protected readonly db: Database) {}

  protected get knex(): Knex {
    return this.db.knex;
  }

  /** The statement of `key` (a `store …` key naming everything its text depends on), compiled from `build` on first use. */
  protected statement(
    key: string,
    build: (knex: Knex, value: Param) => Knex.QueryBuilder | Knex.Raw,
    knex: Knex = this.knex,
  ): CompiledStatement {
    return this.db.statements.get(key, (value) => build(knex, value));
  }

  /** Runs the statement of `key` with `values` on `knex` (this store's, or a transaction). */
  protected run(
    key: string,
    build: (knex: Knex, value: Param) => Knex.QueryBuilder | Knex.Raw,
    values: readonly unknown[],
    knex: Knex = this.knex,
  ): Promise<StatementResult> {
    return runStatement(knex, this.statement(key, build, knex), values);
  }

  toRow(r: ExecutionRecord): DbRow {
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

  fromRow(row: DbRow): ExecutionRecord {
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
  journalColumn(knex: Knex = this.knex): Knex.Raw {
    const sql =
      this.db.dialect === 'sqlite'
        ? `(select json_group_array(entry order by seq) from ${JOURNAL} j where j.execution_id = ${TABLE}.id) as journal`
        : `(select array_agg(j.entry order by j.seq) from ${JOURNAL} j where j.execution_id = ${TABLE}.id) as journal`;
    return knex.raw(sql);
  }

  /** The journal entries read with `row` (journalColumn); none when it was not read. */
  protected journalOf(row: DbRow): JournalEntry[] {
    const column = row.journal;
    const texts: unknown = typeof column === 'string' ? JSON.parse(column) : column;
    if (!Array.isArray(texts)) return [];
    return texts.map((text) => JSON.parse(String(text)) as JournalEntry);
  }

  /** The INSERT of `row` (its key, how it is built, its values), for `run`. */
  insertStatement(row: DbRow): InsertStatement {
    const columns = Object.keys(row);
    return [`store insert ${columns.join(',')}`, (knex, value) => knex(TABLE).insert(standIns(columns, value)), Object.values(row)];
  }

  /** One INSERT; an id already stored fails with "execution <id> already exists". */
  async insertRow(row: DbRow): Promise<void> {
    try {
      await this.run(...this.insertStatement(row));
    } catch (err) {
      if (await this.knex(TABLE).where({ id: row.id }).first('id')) throw new Error(`execution ${String(row.id)} already exists`);
      throw err;
    }
  }
}
