// Erasure in the database execution store (`excluir`, engine/store/erasure.ts): rewriting one
// person's data in the stored payloads and journal entries, and the erasure ledger of the erasing
// store (engine/store/erasing-store.ts), the `execution_erasures` table (migration 005): a few rows at
// most, each deleted once the executions it names have ended. An erasure holds the person's data: it
// is never part of an error.
import { isDependencyUnavailable } from '../../../engine/errors/dependency-unavailable.js';
import {
  CompiledErasure,
  type Erasure,
  type ErasureEntry,
  PAYLOAD_PARTS,
  type PayloadEraseResult,
  type RecordSummary,
} from '../../../engine/store/erasure.js';
import type { JournalEntry } from '../../../engine/store/journal.js';
import type { ExecutionStatus, JsonValue } from '../../../engine/types.js';
import { type DbRow, ERASURES, escapeLike, JOURNAL, parse, TABLE } from './store-part.js';
import { FlowVersionRows } from './versions.js';

/** Text columns holding payloads, one per part of a record that holds them; `erasePayloads` searches and rewrites these. */
const PAYLOAD_COLUMNS = PAYLOAD_PARTS;
/** Payload columns stored as plain text (the others hold JSON). */
const PLAIN_TEXT_COLUMNS: ReadonlySet<string> = new Set(['stop_reason', 'concurrency_key']);

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

/**
 * The rows, cancels, leases and versions (FlowVersionRows) with payload erasure and the erasure
 * ledger (see the file comment); the contract of each method is PayloadEraser's.
 */
export class ErasureRows extends FlowVersionRows {
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
    // Compiled once: every final write of an execution reads the ledger (engine/store/erasures.ts).
    const { rows } = (await this.run(
      'store live-erasures',
      (knex, value) =>
        knex(ERASURES)
          .where('expires_at', '>', value(0))
          .orderBy([{ column: 'created_at' }, { column: 'id' }])
          .select('*'),
      [now],
    )) as { rows: DbRow[] };
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
