// What LeadFlow stored of one of its executions, as JSON values: the record floor of bench/ingest.ts
// writes as much per message (bench/floor/ingest-floor.ts, FLOOR_RECORD_FILE).
import type { Knex } from 'knex';

/** One execution's stored JSON: its row's JSON columns (parsed) and its journal entries (parsed), and their size. */
export interface StoredRecord {
  id: string;
  /** `{row: {column: value}, journal: [entry, …]}`: every object or array LeadFlow stored for the execution. */
  value: { row: Record<string, unknown>; journal: unknown[] };
  /** The stored JSON texts' length in all, characters (the row's JSON columns and the journal entries). */
  chars: number;
}

/** A column's value as stored: a JSON text (SQLite, text columns) or a parsed value (PostgreSQL json/jsonb). */
function jsonValue(value: unknown): { parsed: unknown; chars: number } | undefined {
  if (value !== null && typeof value === 'object' && !(value instanceof Date) && !Buffer.isBuffer(value))
    return { parsed: value, chars: JSON.stringify(value).length };
  if (typeof value !== 'string' || !/^[[{]/.test(value)) return undefined;
  try {
    return { parsed: JSON.parse(value) as unknown, chars: value.length };
  } catch {
    return undefined;
  }
}

/**
 * What LeadFlow stored of one `waiting` execution of `flow` (the middle one by insertion order):
 * the JSON columns of its `executions` row and its `execution_journal` entries. Undefined when
 * there is none.
 */
export async function storedRecordOf(knex: Knex, flow: string): Promise<StoredRecord | undefined> {
  const counted = (await knex('executions').where({ flow, status: 'waiting' }).count({ n: '*' }).first()) as
    | { n: string | number }
    | undefined;
  const waiting = Number(counted?.n ?? 0);
  if (waiting === 0) return undefined;
  const row = (await knex('executions')
    .where({ flow, status: 'waiting' })
    .orderBy('seq')
    .offset(Math.floor(waiting / 2))
    .first()) as Record<string, unknown> | undefined;
  if (!row) return undefined;
  const id = String(row.id);
  let chars = 0;
  const columns: Record<string, unknown> = {};
  for (const [column, stored] of Object.entries(row)) {
    const json = jsonValue(stored);
    if (!json) continue;
    columns[column] = json.parsed;
    chars += json.chars;
  }
  const journal: unknown[] = [];
  for (const { entry } of (await knex('execution_journal').where({ execution_id: id }).orderBy('seq').select('entry')) as Array<{
    entry: unknown;
  }>) {
    const json = jsonValue(entry);
    if (!json) continue;
    journal.push(json.parsed);
    chars += json.chars;
  }
  return { id, value: { row: columns, journal }, chars };
}
