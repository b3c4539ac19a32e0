// The execution store on the database (SQLite or PostgreSQL): the ExecutionStore and PayloadEraser
// contracts, made of one part per concern, each in its own file:
//  - rows.ts: records in the `executions` table and the journal of drives in progress
//    (`execution_journal`); lists, summaries, waits, pruning finished executions;
//  - cancels-and-leases.ts: cancels by key and by id, and the leases of running executions;
//  - versions.ts: the sources of flow versions (`flow_versions`);
//  - erasure-rows.ts: erasing a person's payloads, and the erasure ledger (`execution_erasures`).
// store-part.ts holds what they share: a record's row and back, the compiled statements.
import type { Database } from '../database.js';
import type {
  CancelledFrom,
  ClaimResult,
  ExecutionStore,
  Lease,
  ListOptions,
  RunningExecution,
  StoredFlowVersion,
} from '../../../engine/store/execution-store.js';
import type { Erasure, ErasureEntry, PayloadEraser, PayloadEraseResult, RecordSummary } from '../../../engine/store/erasure.js';
import type { ExecutionSummary } from '../../../engine/store/execution-summary.js';
import type { JournalEntry } from '../../../engine/store/journal.js';
import type { ExecutionRecord, ExecutionStatus } from '../../../engine/types.js';
import { CancelsAndLeases } from './cancels-and-leases.js';
import { ErasureRows } from './erasure-rows.js';
import { ExecutionRows } from './rows.js';
import { FlowVersionRows } from './versions.js';

/**
 * What the database execution store is: the whole ExecutionStore and PayloadEraser contracts, as a
 * type any store of the same contracts (e.g. the erasing store over it) satisfies.
 */
export type DbExecutionStore = ExecutionStore & PayloadEraser;

/** The database execution store: each call handed to the part of its concern (see the file comment). */
class DatabaseExecutionStore implements ExecutionStore, PayloadEraser {
  private readonly rows: ExecutionRows;
  private readonly cancels: CancelsAndLeases;
  private readonly versions: FlowVersionRows;
  private readonly erasures: ErasureRows;

  constructor(db: Database) {
    this.rows = new ExecutionRows(db);
    this.cancels = new CancelsAndLeases(db, this.rows);
    this.versions = new FlowVersionRows(db);
    this.erasures = new ErasureRows(db);
  }

  insert(record: ExecutionRecord): Promise<void> {
    return this.rows.insert(record);
  }
  update(record: ExecutionRecord): Promise<void> {
    return this.rows.update(record);
  }
  appendJournal(entry: JournalEntry): Promise<ExecutionStatus | undefined> {
    return this.rows.appendJournal(entry);
  }
  statusOf(id: string): Promise<ExecutionStatus | undefined> {
    return this.rows.statusOf(id);
  }
  get(id: string): Promise<ExecutionRecord | undefined> {
    return this.rows.get(id);
  }
  list(options?: ListOptions): Promise<ExecutionRecord[]> {
    return this.rows.list(options);
  }
  listSummaries(options?: ListOptions): Promise<ExecutionSummary[]> {
    return this.rows.listSummaries(options);
  }
  listWaiting(): Promise<Array<{ id: string; wake_at: number | null }>> {
    return this.rows.listWaiting();
  }
  resolveId(prefix: string): Promise<string | undefined> {
    return this.rows.resolveId(prefix);
  }
  /** Finished executions (rows.ts), then the expired ledger entries and the unused flow versions. */
  async prune(olderThanDays: number, now: number = Date.now()): Promise<number> {
    const deleted = await this.rows.pruneFinished(olderThanDays, now);
    await this.erasures.pruneErasures(now);
    await this.versions.pruneFlowVersions(now);
    return deleted;
  }
  insertLeased(record: ExecutionRecord, lease: Lease): Promise<void> {
    return this.cancels.insertLeased(record, lease);
  }
  claim(id: string, lease: Lease, takeOverFrom?: string): Promise<ClaimResult> {
    return this.cancels.claim(id, lease, takeOverFrom);
  }
  renewLease(id: string, lease: Lease): Promise<boolean> {
    return this.cancels.renewLease(id, lease);
  }
  listRunning(): Promise<RunningExecution[]> {
    return this.cancels.listRunning();
  }
  insertReplacing(record: ExecutionRecord, lease?: Lease): Promise<string[]> {
    return this.cancels.insertReplacing(record, lease);
  }
  cancelByKey(flow: string, key: string, reason: string, by?: string): Promise<string[]> {
    return this.cancels.cancelByKey(flow, key, reason, by);
  }
  cancelById(id: string, reason: string): Promise<CancelledFrom | undefined> {
    return this.cancels.cancelById(id, reason);
  }
  saveFlowVersion(version: StoredFlowVersion): Promise<void> {
    return this.versions.saveFlowVersion(version);
  }
  getFlowVersion(flow: string, version: string): Promise<string | undefined> {
    return this.versions.getFlowVersion(flow, version);
  }
  pruneFlowVersions(now?: number): Promise<number> {
    return this.versions.pruneFlowVersions(now);
  }
  erasePayloads(erasure: Erasure, spare?: (record: RecordSummary) => boolean): Promise<PayloadEraseResult> {
    return this.erasures.erasePayloads(erasure, spare);
  }
  recordErasure(entry: ErasureEntry): Promise<void> {
    return this.erasures.recordErasure(entry);
  }
  liveErasures(now: number): Promise<ErasureEntry[]> {
    return this.erasures.liveErasures(now);
  }
  dropErasure(id: string): Promise<boolean> {
    return this.erasures.dropErasure(id);
  }
  pruneErasures(now: number): Promise<number> {
    return this.erasures.pruneErasures(now);
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
