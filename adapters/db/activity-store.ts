// The console's overview events in the database (`activity_events`, migration 010): written by the
// activity recorder of `serve` and `worker` (console/server/activity-recorder.ts), read by
// GET /admin/overview (console/server/overview-query.ts), pruned with the executions. Not a table
// flows can reach (adapters/db/tables.ts does not list it). See the migration for each kind's meaning.
import { standIns } from './compiled-statements.js';
import type { Database } from './database.js';
import { runStatement } from './run-statement.js';

/** The table of the console's overview events (migration 010). */
export const ACTIVITY_TABLE = 'activity_events';

/** What a row records; see migrations/010_activity.ts. */
export type ActivityKind = 'execution' | 'first_contact' | 'ai_call' | 'followup_sent';

/** One row to write. Absent fields are stored as NULL. */
export interface ActivityEvent {
  /** When it happened, ms since the epoch. */
  at: number;
  kind: ActivityKind;
  /** The clinic (`clinicas_com_atendentes.id`), or null when unknown. */
  clinica_id: number | null;
  /** Flow name (execution) or `provider:model` (ai_call); at most 200 characters. */
  label?: string | null;
  /** Final status (execution) or ok | error | rate_limited (ai_call). */
  outcome?: string | null;
  /** A whole number ≥ 0: ms, tokens or a count, by kind. */
  value?: number | null;
  /** A second whole number ≥ 0 (ai_call: output tokens). */
  value2?: number | null;
  execution_id?: string | null;
}

/** The columns an event's row writes, in the order of its compiled INSERT's values. */
const COLUMNS = ['at', 'kind', 'clinica_id', 'label', 'outcome', 'value', 'value2', 'execution_id'] as const;

/** Rows per INSERT statement (SQLite allows 999 bound values; 8 columns each): up to it, one compiled statement. */
export const ACTIVITY_ROWS_PER_INSERT = 100;
const DAY_MS = 86_400_000;

/** A whole number ≥ 0, or null (fractions rounded, negative or not finite: null). */
function count(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
}

/** Writes, reads and prunes the overview events of `activity_events` through one Database. */
export class ActivityStore {
  constructor(private readonly db: Database) {}

  /** Writes the rows (nothing for an empty list), in one transaction. */
  async insert(events: readonly ActivityEvent[]): Promise<void> {
    if (events.length === 0) return;
    const rows = events.map((e) => ({
      at: new Date(e.at).toISOString(),
      kind: e.kind,
      clinica_id: e.clinica_id,
      label: e.label ? e.label.slice(0, 200) : null,
      outcome: e.outcome ? e.outcome.slice(0, 32) : null,
      value: count(e.value),
      value2: count(e.value2),
      execution_id: e.execution_id ? e.execution_id.slice(0, 64) : null,
    }));
    if (rows.length <= ACTIVITY_ROWS_PER_INSERT) {
      // One row per execution, mostly: the statement is compiled once per row count (compiled-statements.ts).
      const statement = this.db.statements.get(`activity insert ${rows.length}`, (value) =>
        this.db.knex(ACTIVITY_TABLE).insert(rows.map((_, r) => standIns(COLUMNS, value, r * COLUMNS.length))),
      );
      await runStatement(
        this.db.knex,
        statement,
        rows.flatMap((row) => COLUMNS.map((column) => row[column])),
      );
      return;
    }
    await this.db.knex.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += ACTIVITY_ROWS_PER_INSERT)
        await trx(ACTIVITY_TABLE).insert(rows.slice(i, i + ACTIVITY_ROWS_PER_INSERT));
    });
  }

  /** Deletes the rows older than `olderThanDays` days; resolves with how many went. */
  async prune(olderThanDays: number, now: number = Date.now()): Promise<number> {
    if (!Number.isFinite(olderThanDays) || olderThanDays < 0)
      throw new Error(`prune: olderThanDays must be a number >= 0, got ${olderThanDays}`);
    const cutoff = new Date(now - olderThanDays * DAY_MS).toISOString();
    return Number(await this.db.knex(ACTIVITY_TABLE).where('at', '<', cutoff).del());
  }
}
