// How db.* node types reach the database: `ctx.services.db` (a Database, or a transaction-bound one
// in dry runs), never a global.
import type { TableOperations } from '../../adapters/db/table-ops.js';
import type { NodeContext } from '../../engine/types.js';

const METHODS = ['get', 'find', 'insert', 'upsert', 'update', 'delete'] as const;

/** The table operations of `ctx.services.db`; throws when the host configured no database. */
export function dbService(ctx: NodeContext): TableOperations {
  const db = ctx.services.db as Partial<TableOperations> | undefined;
  if (!db || METHODS.some((m) => typeof db[m] !== 'function')) {
    throw new Error(`step "${ctx.stepId}" needs a database, but none is configured (services.db is missing)`);
  }
  return db as TableOperations;
}
