// An execution store that hands every call to another one, unchanged. What a store that changes a
// few calls (the erasing store, a view that hides the waits) extends, overriding only those.
import type * as Store from './execution-store.js';
import type { ExecutionSummary } from './execution-summary.js';
import type { JournalEntry } from './journal.js';
import type { ExecutionRecord, ExecutionStatus } from '../types.js';

/**
 * Every ExecutionStore method handed to `inner` as it is, with its result; subclasses override the
 * calls they change. The contract of each method is ExecutionStore's.
 *
 * @example
 * // The store, with no wait listed (a replay resumes its own execution only).
 * class OwnWaitsOnly extends DelegatingExecutionStore {
 *   override async listWaiting() {
 *     return [];
 *   }
 * }
 * const engine = new Engine({ registry, flows, store: new OwnWaitsOnly(store) });
 */
export class DelegatingExecutionStore implements Store.ExecutionStore {
  constructor(protected readonly inner: Store.ExecutionStore) {}

  insert(record: ExecutionRecord): Promise<void> {
    return this.inner.insert(record);
  }
  update(record: ExecutionRecord): Promise<void> {
    return this.inner.update(record);
  }
  appendJournal(entry: JournalEntry): Promise<ExecutionStatus | undefined> {
    return this.inner.appendJournal(entry);
  }
  park(entry: JournalEntry, wake: Store.ParkedState): Promise<boolean> {
    return this.inner.park(entry, wake);
  }
  statusOf(id: string): Promise<ExecutionStatus | undefined> {
    return this.inner.statusOf(id);
  }
  get(id: string): Promise<ExecutionRecord | undefined> {
    return this.inner.get(id);
  }
  list(options?: Store.ListOptions): Promise<ExecutionRecord[]> {
    return this.inner.list(options);
  }
  listSummaries(options?: Store.ListOptions): Promise<ExecutionSummary[]> {
    return this.inner.listSummaries(options);
  }
  listWaiting(): Promise<Array<{ id: string; wake_at: number | null }>> {
    return this.inner.listWaiting();
  }
  resolveId(prefix: string): Promise<string | undefined> {
    return this.inner.resolveId(prefix);
  }
  prune(olderThanDays: number, now?: number): Promise<number> {
    return this.inner.prune(olderThanDays, now);
  }
  insertLeased(record: ExecutionRecord, lease: Store.Lease): Promise<void> {
    return this.inner.insertLeased(record, lease);
  }
  claim(id: string, lease: Store.Lease, takeOverFrom?: string): Promise<Store.ClaimResult> {
    return this.inner.claim(id, lease, takeOverFrom);
  }
  renewLease(id: string, lease: Store.Lease): Promise<boolean> {
    return this.inner.renewLease(id, lease);
  }
  listRunning(): Promise<Store.RunningExecution[]> {
    return this.inner.listRunning();
  }
  saveFlowVersion(version: Store.StoredFlowVersion): Promise<void> {
    return this.inner.saveFlowVersion(version);
  }
  getFlowVersion(flow: string, version: string): Promise<string | undefined> {
    return this.inner.getFlowVersion(flow, version);
  }
  pruneFlowVersions(now?: number): Promise<number> {
    return this.inner.pruneFlowVersions(now);
  }
  insertReplacing(record: ExecutionRecord, lease?: Store.Lease): Promise<string[]> {
    return this.inner.insertReplacing(record, lease);
  }
  cancelByKey(flow: string, key: string, reason: string, by?: string): Promise<string[]> {
    return this.inner.cancelByKey(flow, key, reason, by);
  }
  cancelById(id: string, reason: string): Promise<Store.CancelledFrom | undefined> {
    return this.inner.cancelById(id, reason);
  }
}
