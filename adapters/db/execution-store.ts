// Execution records in the `executions` table (migration 002), on SQLite or PostgreSQL. A record
// reads back exactly as written: JSON parts are stored as JSON text, optional fields that were
// absent stay absent, timestamps are ISO text with milliseconds.
import type { Knex } from 'knex';
import type { ExecutionStore, ListOptions } from '../../engine/store/execution-store.js';
import type { ExecutionRecord, ExecutionStatus, JsonValue } from '../../engine/types.js';
import type { Database } from './database.js';
import { toIsoTimestamp } from './values.js';

const TABLE = 'executions';
/** Text columns holding payloads; `erasePayloads` searches and rewrites these. */
const PAYLOAD_COLUMNS = ['trigger', 'vars', 'steps', 'outbound', 'response', 'output', 'error', 'stop_reason'] as const;
/** What replaces an erased value. */
export const ERASED = '[erased]';
const FINAL: ExecutionStatus[] = ['success', 'failed', 'stopped'];
/** Default and largest page of `list`. */
const DEFAULT_LIST_LIMIT = 20;
const MAX_LIST_LIMIT = 1000;
const DAY_MS = 86_400_000;

type DbRow = Record<string, unknown>;

/** Optional JSON parts: SQL NULL when absent, JSON text (possibly `null`) when present. */
const OPTIONAL_JSON = ['response', 'output', 'error'] as const;

function json(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

function parse<T>(text: unknown, fallback: T): T {
  if (typeof text !== 'string') return fallback;
  return JSON.parse(text) as T;
}

export class DbExecutionStore implements ExecutionStore {
  constructor(private readonly db: Database) {}

  private get knex(): Knex {
    return this.db.knex;
  }

  private toRow(r: ExecutionRecord): DbRow {
    const row: DbRow = {
      id: r.id,
      flow: r.flow,
      status: r.status,
      wake_at: r.wake_at ?? null,
      parent_id: r.parent_id ?? null,
      dry_run: this.db.dialect === 'sqlite' ? (r.dry_run ? 1 : 0) : r.dry_run,
      created_at: toIsoTimestamp(r.created_at) ?? r.created_at,
      updated_at: toIsoTimestamp(r.updated_at) ?? r.updated_at,
      finished_at: r.finished_at === undefined ? null : (toIsoTimestamp(r.finished_at) ?? r.finished_at),
      trigger: json(r.trigger),
      vars: json(r.vars),
      steps: json(r.steps),
      outbound: json(r.outbound),
      stop_reason: r.stop_reason ?? null,
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
    if (row.finished_at !== null && row.finished_at !== undefined) record.finished_at = toIsoTimestamp(row.finished_at) ?? String(row.finished_at);
    if (row.stop_reason !== null && row.stop_reason !== undefined) record.stop_reason = String(row.stop_reason);
    if (typeof row.response === 'string') record.response = JSON.parse(row.response) as ExecutionRecord['response'];
    if (typeof row.output === 'string') record.output = JSON.parse(row.output) as JsonValue;
    if (typeof row.error === 'string') record.error = JSON.parse(row.error) as ExecutionRecord['error'];
    return record;
  }

  async insert(record: ExecutionRecord): Promise<void> {
    const existing = await this.knex(TABLE).where({ id: record.id }).first('id');
    if (existing) throw new Error(`execution ${record.id} already exists`);
    try {
      await this.knex(TABLE).insert(this.toRow(record));
    } catch (err) {
      // Lost a race with another insert of the same id.
      if (await this.knex(TABLE).where({ id: record.id }).first('id')) throw new Error(`execution ${record.id} already exists`);
      throw err;
    }
  }

  /** Writes the record, inserting it when it is not stored yet. */
  async update(record: ExecutionRecord): Promise<void> {
    const row = this.toRow(record);
    const { id: _id, ...changes } = row;
    await this.knex(TABLE).insert(row).onConflict('id').merge(changes);
  }

  async get(id: string): Promise<ExecutionRecord | undefined> {
    const row = (await this.knex(TABLE).where({ id }).first()) as DbRow | undefined;
    return row ? this.fromRow(row) : undefined;
  }

  /** Newest first (by created_at, then insertion order); default 20, at most 1000. */
  async list(options: ListOptions = {}): Promise<ExecutionRecord[]> {
    const limit = Math.min(Math.max(1, Math.floor(options.limit ?? DEFAULT_LIST_LIMIT)), MAX_LIST_LIMIT);
    const query = this.knex(TABLE).select('*').orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'seq', order: 'desc' },
    ]);
    if (options.flow) query.where('flow', options.flow);
    if (options.status) query.where('status', options.status);
    const rows = (await query.limit(limit)) as DbRow[];
    return rows.map((r) => this.fromRow(r));
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
   * Deletes finished executions (success, failed, stopped) that finished more than `olderThanDays`
   * days ago (LEADFLOW_EXECUTIONS_RETAIN_DAYS), except children of an execution still running or
   * waiting (it reads their result when it resumes). Returns how many were deleted.
   */
  async prune(olderThanDays: number, now: number = Date.now()): Promise<number> {
    if (!Number.isFinite(olderThanDays) || olderThanDays < 0) throw new Error(`prune: olderThanDays must be a number >= 0, got ${olderThanDays}`);
    const cutoff = new Date(now - olderThanDays * DAY_MS).toISOString();
    const deleted = await this.knex(TABLE)
      .whereIn('status', FINAL)
      .where((q) => q.where('finished_at', '<', cutoff).orWhere((q2) => q2.whereNull('finished_at').where('updated_at', '<', cutoff)))
      .whereNotExists((q) => q.select(this.knex.raw('1')).from(`${TABLE} as parent`).whereRaw('parent.id = executions.parent_id').whereIn('parent.status', ['running', 'waiting']))
      .del();
    return Number(deleted);
  }

  /**
   * Erases personal data from stored payloads (`excluir`): in every execution whose trigger, vars,
   * steps, outbound calls, response, output, error or stop reason contains one of `needles`, each
   * string or number (and object key) containing a needle becomes "[erased]". Returns how many
   * executions changed. Needles are first looked up in the stored JSON text, so use text without
   * quotes or backslashes (phone digits, a chat id). A running execution saves its in-memory record again after its next step:
   * erase once it has ended.
   */
  async erasePayloads(needles: string[]): Promise<number> {
    const wanted = needles.filter((n) => n !== '');
    if (wanted.length === 0) return 0;
    const escape = (n: string) => n.replace(/[!%_]/g, (c) => `!${c}`);
    const rows = (await this.knex(TABLE)
      .where((q) => {
        for (const column of PAYLOAD_COLUMNS) for (const n of wanted) q.orWhereRaw(`?? like ? escape '!'`, [column, `%${escape(n)}%`]);
      })
      .select('id', ...PAYLOAD_COLUMNS)) as DbRow[];
    const hit = (text: string) => wanted.some((n) => text.includes(n));
    const scrub = (value: unknown): unknown => {
      if (typeof value === 'string') return hit(value) ? ERASED : value;
      if (typeof value === 'number') return hit(String(value)) ? ERASED : value;
      if (Array.isArray(value)) return value.map(scrub);
      if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [hit(k) ? ERASED : k, scrub(v)]));
      return value;
    };
    let changed = 0;
    for (const row of rows) {
      const changes: DbRow = {};
      for (const column of PAYLOAD_COLUMNS) {
        const text = row[column];
        if (typeof text !== 'string' || !hit(text)) continue;
        changes[column] = column === 'stop_reason' ? ERASED : JSON.stringify(scrub(JSON.parse(text)));
      }
      if (Object.keys(changes).length === 0) continue;
      await this.knex(TABLE).where({ id: row.id }).update(changes);
      changed += 1;
    }
    return changed;
  }
}
