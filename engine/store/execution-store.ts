import type { ExecutionRecord, ExecutionStatus } from '../types.js';
import type { ExecutionSummary } from './execution-summary.js';
import type { JournalEntry } from './journal.js';

/** What a flow version filter (ListOptions.version) may be: 1 to 64 lower-case hex digits, a prefix of the version. */
export const FLOW_VERSION_PREFIX = /^[0-9a-f]{1,64}$/;

/** Filters of ExecutionStore.list; every member is optional. */
export interface ListOptions {
  /** Most records returned, newest first; default 20 (stores may cap it, the database at 1000). */
  limit?: number;
  /** Only executions of this flow. */
  flow?: string;
  /** Only executions in this status. */
  status?: ExecutionStatus;
  /** Only executions on a flow version starting with this (hex, 1 to 64 characters). */
  version?: string;
  /**
   * Only executions whose trigger, vars or key contain one of these texts (taken literally, case
   * sensitive; empty ones ignored), e.g. every form of a phone. Searches those parts' stored text
   * (and, for a drive in progress, its journal entries' text whole): the database walks records
   * newest first until `limit` match, so keep the limit small.
   */
  containing?: string[];
}

/** What ExecutionStore.park stores besides the journal entry. */
export interface ParkedState {
  /** When the wait ends, ms since the epoch; null: it ends when something wakes it. */
  wake_at: number | null;
  /** The record's `updated_at` (ISO). */
  updated_at: string;
}

/**
 * Where executions live. Implementations must store records as JSON (no shared references with the
 * caller) and return `list` newest first. The in-memory store is the default in tests and the CLI's
 * `run`; the database store (same interface) serves `serve`. Every method is required: both stores
 * do all of it, so the engine never asks what a store can do. Every method rejects when the store
 * cannot be reached (an error isDependencyUnavailable recognises, for the database store).
 *
 * @example
 * const store: ExecutionStore = new MemoryExecutionStore();
 * await store.insert(record); // a new id; update() writes it again as it runs
 * const failed = await store.list({ flow: 'intake', status: 'failed', limit: 50 });
 * for (const { id, wake_at } of await store.listWaiting()) if (wake_at !== null) scheduler.schedule(id, wake_at);
 */
export interface ExecutionStore {
  /** Writes a new record (its `id` not stored yet). */
  insert(record: ExecutionRecord): Promise<void>;
  /**
   * Replaces the stored record of `record.id` with `record`, whole, except when the stored one is
   * `cancelled` (cancelByKey, cancelById, insertReplacing may have done it in any process): its status, stop
   * reason, `replaced_by` and `finished_at` are then kept, only what its run recorded (steps,
   * outbound calls, vars, output, response, started and cancelled flows) is written. The driving
   * process reads the record back after writing it (executions with a key only) to stop. The
   * record's journal entries (appendJournal, park) are dropped in the same write: the record holds them.
   * A record's `flow`, `parent_id`, `flow_version` and `created_at` are those it was inserted with
   * (nothing changes them): a store may leave them out of the write.
   */
  update(record: ExecutionRecord): Promise<void>;
  /**
   * Appends a save of a drive in progress to the stored record of `entry.id` (engine/store/journal.ts):
   * from then on the record reads with the entry applied. A cancellation stored meanwhile is kept.
   * Resolves to the stored status (undefined: no such execution).
   */
  appendJournal(entry: JournalEntry): Promise<ExecutionStatus | undefined>;
  /**
   * Parks a drive in progress at a wait, in one write: appends `entry` (as appendJournal) and stores
   * the record's status as `waiting`, its `wake_at` (ms; null: none) and `updated_at`. The record
   * then reads as `update` of it would have written it; its entries are dropped by its next
   * `update`. A cancellation stored meanwhile is kept (the entry is still appended). Resolves false,
   * having changed nothing the record reads as, when there is no such execution (the caller then
   * writes it whole with `update`).
   */
  park(entry: JournalEntry, wake: ParkedState): Promise<boolean>;
  /** The stored status of `id` (undefined: no such execution), without reading the record. */
  statusOf(id: string): Promise<ExecutionStatus | undefined>;
  /** A copy of the stored record, or undefined when there is none with that id. */
  get(id: string): Promise<ExecutionRecord | undefined>;
  /** Stored records matching `options`, newest (`created_at`) first. */
  list(options?: ListOptions): Promise<ExecutionRecord[]>;
  /** What list(options) gives, as summaries (execution-summary.ts), read without the records' payloads where the store can. */
  listSummaries(options?: ListOptions): Promise<ExecutionSummary[]>;
  /** Executions in status `waiting`, with their wake time (null: waiting to be woken by another execution). */
  listWaiting(): Promise<Array<{ id: string; wake_at: number | null }>>;

  /** The id of the execution whose id starts with `prefix` (a full id works too); undefined when none or several match, or `prefix` is empty. */
  resolveId(prefix: string): Promise<string | undefined>;
  /**
   * Deletes finished executions (success, failed, stopped, cancelled) that finished more than
   * `olderThanDays` days before `now` (ms, default the current time), except children of an
   * execution still running or waiting (it reads their result when it resumes); then the expired
   * erasure ledger entries and the flow versions pruneFlowVersions deletes. Resolves to how many
   * executions were deleted. Rejects when `olderThanDays` is not a number >= 0.
   */
  prune(olderThanDays: number, now?: number): Promise<number>;

  // Leases: several processes on one store (the memory store has them too, for one process).

  /** Writes a new record holding `lease` (a running record driven at once by its creator). */
  insertLeased(record: ExecutionRecord, lease: Lease): Promise<void>;
  /**
   * Atomically takes the execution for `lease.owner` when it is `waiting`, or `running` with its lease
   * passed (or never taken): sets status `running` and the lease. Returns the record taken, or
   * `heldUntil` when a live lease of another owner holds it, or nothing when it is not there to take
   * (finished, unknown). `takeOverFrom`: also take it from that owner's live lease (known dead).
   */
  claim(id: string, lease: Lease, takeOverFrom?: string): Promise<ClaimResult>;
  /** Extends the lease while `owner` holds it and the execution runs; false when it was lost. */
  renewLease(id: string, lease: Lease): Promise<boolean>;
  /** Running executions with their flow and lease (null: none), to take over those whose holder died. */
  listRunning(): Promise<RunningExecution[]>;

  // Flow versions: an execution resumes on the version it started on, whatever this process loaded.

  /**
   * Stores the source of a flow version unless it is stored already (same flow and version: same
   * source), and marks it used now: a version is kept while an unfinished execution runs on it, and
   * for at least a day after its last use here (pruning). Call it before inserting an execution on it.
   */
  saveFlowVersion(version: StoredFlowVersion): Promise<void>;
  /** The stored source of that version of the flow (StoredFlowVersion.source), or undefined when it is not stored. */
  getFlowVersion(flow: string, version: string): Promise<string | undefined>;

  /**
   * Deletes the flow versions no unfinished execution runs on and none marked used (saveFlowVersion)
   * within a day of `now` (ms, default the current time); resolves to how many went.
   */
  pruneFlowVersions(now?: number): Promise<number>;

  // Keys (flow `concurrency:`, flow.start / flow.cancel) and cancels.

  /**
   * Atomically, even across processes: cancels every running or waiting execution of `record.flow`
   * whose key is `record.concurrency_key` (status `cancelled`, `replaced_by` = `record.id`, stop
   * reason saying so), then writes `record` (holding `lease` when given, like insertLeased). Two
   * calls for one flow and key never both leave their record unfinished. Resolves to the ids
   * cancelled. Throws when `record` has no key.
   */
  insertReplacing(record: ExecutionRecord, lease?: Lease): Promise<string[]>;
  /**
   * Atomically cancels the running or waiting executions of `flow` under `key` (status `cancelled`,
   * `reason` as stop reason, `finished_at` now); a claim racing with it never takes one it
   * cancelled. A running one is stopped by its driving process before its next step (see update).
   * Resolves to the ids cancelled (empty when none). `by`: the execution whose step cancels; kept
   * on those it cancels, and when it finds none unfinished it resolves to those `by` cancelled under
   * that flow and key before (so the step, run again after a crash, gives the same answer).
   */
  cancelByKey(flow: string, key: string, reason: string, by?: string): Promise<string[]>;
  /**
   * Atomically, even across processes: cancels the execution `id` when it is running or waiting
   * (status `cancelled`, `reason` as stop reason, `finished_at` now, no wake time, no lease), with
   * the guarantees of cancelByKey: a claim racing with it never takes it once cancelled, and a
   * running one is stopped by its driving process (see update). Resolves to the status it was
   * cancelled from, or undefined when nothing was cancelled (no such id, or another status).
   */
  cancelById(id: string, reason: string): Promise<CancelledFrom | undefined>;
}

/** The statuses an execution can be cancelled from (ExecutionStore.cancelById). */
export type CancelledFrom = 'running' | 'waiting';

/** One stored flow version. */
export interface StoredFlowVersion {
  /** The flow's name. */
  flow: string;
  /** The version (LoadedFlow.sourceHash). */
  version: string;
  /** What loads it again: JSON text of the flow's file name and FlowSource (see engine/run/flow-versions.ts). */
  source: string;
}

/** A running execution as `listRunning` tells it. */
export interface RunningExecution {
  id: string;
  flow: string;
  /** Ms since epoch when its lease lapses; null: never leased. */
  lease_until: number | null;
  lease_owner: string | null;
}

/** A process's hold on a running execution. */
export interface Lease {
  /** Who holds it (host, pid and a random part). */
  owner: string;
  /** Ms since epoch when it lapses unless renewed. */
  until: number;
}

/** What ExecutionStore.claim did: took the record, found it held (`heldUntil`), or neither (not there to take). */
export interface ClaimResult {
  /** The record taken, now `running` under the caller's lease. */
  record?: ExecutionRecord;
  /** Set when another owner's live lease holds the execution: when that lease lapses. */
  heldUntil?: number;
}
