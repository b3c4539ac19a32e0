// Tables in this process's memory behind the database's TableOperations (adapters/db/table-ops.ts),
// for benchmarks that measure the engine with no I/O at all (bench/agent-drive.ts). Not a database:
// no schema, types or constraints beyond what the agent flow's steps rely on — equality, null and
// `{in: [...]}` conditions (any other operator throws), `id` ascending order, an `id` counter per
// table, `created_at` / `updated_at` filled on insert, and upserts matched on their conflict columns
// through an index (so a table growing by one row a message keeps its upsert cost flat), built from
// the table's rows on the first upsert on those columns and dropped by a delete.
// Every answer is a copy: a step never holds a row the table still holds.
import type { FindOptions, OrderBy, Row, TableOperations, UpsertOptions, Where } from '../../adapters/db/table-ops.js';
import type { JsonValue } from '../../engine/types.js';

/** One condition of `where` holds for `value` (see the file comment for what is understood). */
function holds(value: JsonValue | undefined, condition: unknown): boolean {
  if (condition === null) return value === null || value === undefined;
  if (typeof condition !== 'object' || condition instanceof Date) return value === condition;
  const ops = condition as Record<string, unknown>;
  for (const [op, operand] of Object.entries(ops)) {
    if (op === 'eq' && value !== operand) return false;
    else if (op === 'in' && !(operand as unknown[]).includes(value)) return false;
    else if (op !== 'eq' && op !== 'in') throw new Error(`memory tables: operator "${op}" is not supported`);
  }
  return true;
}

const matches = (row: Row, where: Where = {}) => Object.entries(where).every(([column, condition]) => holds(row[column], condition));
const copy = (row: Row): Row => ({ ...row });

/** TableOperations over plain arrays of rows, one per table, created on first use. */
export class MemoryTables implements TableOperations {
  private readonly tables = new Map<string, Row[]>();
  private readonly nextIds = new Map<string, number>();
  /** Per table and conflict columns (`table|a,b`): each row by the JSON text of its values there. */
  private readonly conflictIndexes = new Map<string, Map<string, Row>>();

  /** The rows of `table` (created empty on first use), as stored. */
  rows(table: string): Row[] {
    let rows = this.tables.get(table);
    if (!rows) {
      rows = [];
      this.tables.set(table, rows);
    }
    return rows;
  }

  async get(table: string, where?: Where, _orderBy?: OrderBy[]): Promise<Row | null> {
    const row = this.rows(table).find((r) => matches(r, where));
    return row ? copy(row) : null;
  }

  async find(table: string, options: FindOptions = {}): Promise<Row[]> {
    return this.rows(table)
      .filter((r) => matches(r, options.where))
      .slice(0, options.limit ?? 100)
      .map(copy);
  }

  async insert(table: string, values: Record<string, unknown>): Promise<Row> {
    const id = this.nextIds.get(table) ?? 1;
    this.nextIds.set(table, id + 1);
    const now = new Date().toISOString();
    const row = { id, created_at: now, updated_at: now, ...(values as Row) };
    this.rows(table).push(row);
    return copy(row);
  }

  async upsert(table: string, values: Record<string, unknown>, options: UpsertOptions): Promise<{ row: Row; inserted: boolean }> {
    const index = this.conflictIndex(table, options.conflict);
    const key = JSON.stringify(options.conflict.map((c) => values[c] ?? null));
    const existing = index.get(key);
    if (!existing) {
      const row = await this.insert(table, values);
      index.set(key, this.rows(table).at(-1)!);
      return { row, inserted: true };
    }
    if (options.on_conflict !== 'keep') Object.assign(existing, values);
    return { row: copy(existing), inserted: false };
  }

  /** The index of `table` on `columns`, built from its rows on first use. */
  private conflictIndex(table: string, columns: string[]): Map<string, Row> {
    const name = `${table}|${columns.join(',')}`;
    let index = this.conflictIndexes.get(name);
    if (!index) {
      index = new Map(this.rows(table).map((r) => [JSON.stringify(columns.map((c) => r[c] ?? null)), r]));
      this.conflictIndexes.set(name, index);
    }
    return index;
  }

  async update(table: string, where: Where, values: Record<string, unknown>): Promise<{ count: number; rows: Row[] }> {
    const changed = this.rows(table).filter((r) => matches(r, where));
    for (const row of changed) Object.assign(row, values);
    return { count: changed.length, rows: changed.map(copy) };
  }

  async delete(table: string, where: Where): Promise<{ count: number }> {
    const rows = this.rows(table);
    const kept = rows.filter((r) => !matches(r, where));
    this.tables.set(table, kept);
    for (const name of [...this.conflictIndexes.keys()]) if (name.startsWith(`${table}|`)) this.conflictIndexes.delete(name);
    return { count: rows.length - kept.length };
  }
}
