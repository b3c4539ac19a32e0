// Rows as the db.* node types return them: without the table's credential columns (TableSpec
// `credentials`, adapters/db/tables.ts: an instance's token, app secret and verify token). A step's
// output is recorded with its execution and shown by `executions show` and the console, so a
// credential never enters it; the adapters that need one (the instance directory, the inbound
// checks) read it themselves.
import { isTableName, TABLES, type TableSpec } from '../../../adapters/db/tables.js';
import type { Row } from '../../../adapters/db/table-ops.js';

/** `row` without the credential columns of `table` (the same object when the table has none, or `row` is null). */
export function withoutCredentials<R extends Row | null>(table: string, row: R): R {
  const hidden = isTableName(table) ? (TABLES[table] as TableSpec).credentials : undefined;
  if (!row || !hidden || hidden.length === 0) return row;
  return Object.fromEntries(Object.entries(row).filter(([column]) => !hidden.includes(column))) as R;
}
