// The execution store handed to the engine, with erasure (data protection, `excluir`): a delegating
// store over any store that can rewrite its records (PayloadEraser: the database and the in-memory
// store). The erasures themselves are applied by erasures.ts.
//
// An execution that erases a person (the `executions.erase` node) is still running: the engine
// saves its in-memory record again after each step and when it ends, with the data the erasure just
// removed. So `eraseExecutions` does two things:
//  1. now: rewrites every stored record of the person (erasure.ts), except executions still running
//     or waiting (other than the eraser and its children), which need their data to go on;
//  2. later: from then on, every record the erasing execution writes, and every record of an
//     execution it starts (children, at any depth), is scrubbed on its way to the store, whatever its
//     status; the person's executions spared in 1 are scrubbed when they are written with a final
//     status (success, failed, stopped, cancelled).
//
// Step 2 holds across processes and restarts through the erasure ledger of the store
// (`recordErasure` ...; the database's is the `execution_erasures` table, shared by every
// `serve` and `worker`). The contract:
//  - `eraseExecutions` arms the erasure in this process's memory, does 1, then records a ledger
//    entry: the Erasure, the eraser's id and the ids of the executions it spared;
//  - every write of a record with a final status reads the live entries (one small query, started
//    after the write was asked for and shared by the final writes asked meanwhile: shared-reads.ts;
//    writes of other statuses read nothing) and scrubs the record when an entry names it, or its
//    parent or an ancestor: whatever it holds when the eraser is among them, else when it is the
//    person's. The ledger is the truth: this holds for a write in any process, whatever its memory
//    knows. Writes of other statuses are scrubbed by this process's memory only (for `ttlMs`): an
//    execution resumed elsewhere may hold the person's data while it runs, never once it has ended;
//  - after such a write of an execution the entry names (and once when erasing), when every
//    execution the entry names has ended (or is gone), their records are scrubbed once more where
//    they still hold the person's data (a write that raced with the erasure) and the entry is
//    deleted. `prune` does the same for every live entry (a backstop for such races) and deletes
//    the expired ones. So the ledger holds the person's data only while some of their executions
//    are unfinished, `ttlMs` (default 24 h) at most; an execution that ends after that is not
//    scrubbed.
//
// A journal entry (appendJournal, a save of a drive in progress: never a final status) is scrubbed by
// this process's armed erasures like a write of its execution with status `running`.
//
// Every other member of the wrapped store (list, get, leases ...) is the wrapped store's own,
// unchanged, so the erasing store can stand wherever the store stood; `prune` also settles the
// ledger as said above, and so do `cancelById` and `cancelByKey` for the executions they cancelled
// (a cancel ends an execution without writing its record through this store).
import type { ExecutionRecord, ExecutionStatus } from '../types.js';
import { DelegatingExecutionStore } from './delegating-store.js';
import type { CancelledFrom, ExecutionStore, Lease, ParkedState } from './execution-store.js';
import type { Erasure, ErasureEntry, PayloadEraser, PayloadEraseResult, RecordSummary } from './erasure.js';
import { type ErasingStoreOptions, Erasures } from './erasures.js';
import type { JournalEntry } from './journal.js';

/** What the `executions.erase` node asks of the store (handed to nodes as `services.executions`). */
export interface ExecutionEraser {
  /**
   * Erases the person `erasure` describes from every stored execution now and from what
   * `executionId` (the caller's own execution) and its children write later; see the file comment.
   * `erased`: records rewritten now; `pending`: the person's executions still running or waiting,
   * erased when they end.
   */
  eraseExecutions(executionId: string, erasure: Erasure): Promise<{ erased: number; pending: number }>;
}

/**
 * `inner` with erasure (see the file comment): the writes (insert, update, insertLeased,
 * insertReplacing) and journal entries go through the armed erasures and the ledger,
 * `eraseExecutions` arms one, and `cancelById`, `cancelByKey` and `prune` settle the ledger too.
 * Everything else is `inner`'s.
 *
 * @example
 * const store = new ErasingStore(new MemoryExecutionStore());
 * const engine = new Engine({ registry, flows, store, services: { executions: store } });
 * // the `executions.erase` node of an execution calls:
 * await store.eraseExecutions(executionId, erasure); // { erased, pending }
 */
export class ErasingStore extends DelegatingExecutionStore implements PayloadEraser, ExecutionEraser {
  private readonly erasures: Erasures;

  constructor(
    protected override readonly inner: ExecutionStore & PayloadEraser,
    options: ErasingStoreOptions = {},
  ) {
    super(inner);
    this.erasures = new Erasures(inner, options);
  }

  eraseExecutions(executionId: string, erasure: Erasure): Promise<{ erased: number; pending: number }> {
    return this.erasures.erase(executionId, erasure);
  }

  override async insert(record: ExecutionRecord): Promise<void> {
    await this.erasures.write(record, (out) => this.inner.insert(out));
  }

  override async update(record: ExecutionRecord): Promise<void> {
    await this.erasures.write(record, (out) => this.inner.update(out));
  }

  override async insertLeased(record: ExecutionRecord, lease: Lease): Promise<void> {
    await this.erasures.write(record, (out) => this.inner.insertLeased(out, lease));
  }

  /** Resolves to the ids it cancelled, whose ledger entries are settled (a cancel writes no record here). */
  override async insertReplacing(record: ExecutionRecord, lease?: Lease): Promise<string[]> {
    let ids: string[] = [];
    await this.erasures.write(record, async (out) => {
      ids = await this.inner.insertReplacing(out, lease);
    });
    await this.erasures.afterCancel(ids);
    return ids;
  }

  override appendJournal(entry: JournalEntry): Promise<ExecutionStatus | undefined> {
    return this.inner.appendJournal(this.erasures.prepareEntry(entry));
  }

  /** Parks with the entry scrubbed as appendJournal's (a wait is never a final status). */
  override park(entry: JournalEntry, wake: ParkedState): Promise<boolean> {
    return this.inner.park(this.erasures.prepareEntry(entry), wake);
  }

  override async cancelById(id: string, reason: string): Promise<CancelledFrom | undefined> {
    const from = await this.inner.cancelById(id, reason);
    if (from !== undefined) await this.erasures.afterCancel([id]);
    return from;
  }

  override async cancelByKey(flow: string, key: string, reason: string, by?: string): Promise<string[]> {
    const ids = await this.inner.cancelByKey(flow, key, reason, by);
    await this.erasures.afterCancel(ids);
    return ids;
  }

  /** Pruning (serve, hourly): also ends the ledger entries whose executions have all ended. */
  override async prune(olderThanDays: number, now?: number): Promise<number> {
    const pruned = await this.inner.prune(olderThanDays, now);
    await this.erasures.settleAll();
    return pruned;
  }

  erasePayloads(erasure: Erasure, spare?: (record: RecordSummary) => boolean): Promise<PayloadEraseResult> {
    return this.inner.erasePayloads(erasure, spare);
  }

  recordErasure(entry: ErasureEntry): Promise<void> {
    return this.inner.recordErasure(entry);
  }

  liveErasures(now: number): Promise<ErasureEntry[]> {
    return this.inner.liveErasures(now);
  }

  dropErasure(id: string): Promise<boolean> {
    return this.inner.dropErasure(id);
  }

  pruneErasures(now: number): Promise<number> {
    return this.inner.pruneErasures(now);
  }
}

/** `inner` with erasure: an ErasingStore over it (see the file comment). */
export function withErasure(inner: ExecutionStore & PayloadEraser, options: ErasingStoreOptions = {}): ErasingStore {
  return new ErasingStore(inner, options);
}
