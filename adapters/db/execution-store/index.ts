// The execution store on the database (SQLite or PostgreSQL): the ExecutionStore and PayloadEraser
// contracts, one concern a file, each a layer of one class (so the store is one object, and no call
// is forwarded), each layer extending the one before:
//  - store-part.ts: what every layer shares: a record's row and back, the compiled statements;
//  - rows.ts: records in the `executions` table and the journal of drives in progress
//    (`execution_journal`); lists, summaries, waits, pruning finished executions;
//  - cancels-and-leases.ts: cancels by key and by id, and the leases of running executions;
//  - versions.ts: the sources of flow versions (`flow_versions`);
//  - erasure-rows.ts: erasing a person's payloads, and the erasure ledger (`execution_erasures`).
import type { ExecutionStore } from '../../../engine/store/execution-store.js';
import type { PayloadEraser } from '../../../engine/store/erasure.js';
import type { Database } from '../database.js';
import { ErasureRows } from './erasure-rows.js';

/**
 * What the database execution store is: the whole ExecutionStore and PayloadEraser contracts, as a
 * type any store of the same contracts (e.g. the erasing store over it) satisfies.
 */
export type DbExecutionStore = ExecutionStore & PayloadEraser;

/** The database execution store: every layer (see the file comment), and `prune`, which spans them. */
class DatabaseExecutionStore extends ErasureRows implements ExecutionStore, PayloadEraser {
  /** Finished executions (rows.ts), then the expired ledger entries and the unused flow versions. */
  async prune(olderThanDays: number, now: number = Date.now()): Promise<number> {
    const deleted = await this.pruneFinished(olderThanDays, now);
    await this.pruneErasures(now);
    await this.pruneFlowVersions(now);
    return deleted;
  }
}

/**
 * The execution store on the database handed in (see the file comment). Its type, DbExecutionStore,
 * is the contracts it keeps, so a store wrapping it (withErasure) stands wherever it stood.
 *
 * @example
 * const store = new DbExecutionStore(databaseFromEnv(process.env));
 * const engine = new Engine({ registry, flows, store: withErasure(store) });
 * await store.prune(30); // finished executions older than 30 days
 */
export const DbExecutionStore: new (db: Database) => DbExecutionStore = DatabaseExecutionStore;
