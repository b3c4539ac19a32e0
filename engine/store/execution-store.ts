import type { ExecutionRecord, ExecutionStatus } from '../types.js';

export interface ListOptions {
  /** Newest first; default 20. */
  limit?: number;
  flow?: string;
  status?: ExecutionStatus;
}

/**
 * Where executions live. Implementations must store records as JSON (no shared references with the
 * caller) and return `list` newest first. The in-memory store is the default in tests and the CLI's
 * `run`; the database store (same interface) serves `serve`.
 */
export interface ExecutionStore {
  insert(record: ExecutionRecord): Promise<void>;
  update(record: ExecutionRecord): Promise<void>;
  get(id: string): Promise<ExecutionRecord | undefined>;
  list(options?: ListOptions): Promise<ExecutionRecord[]>;
  /** Executions in status `waiting`, with their wake time (null: waiting to be woken by another execution). */
  listWaiting(): Promise<Array<{ id: string; wake_at: number | null }>>;

  // Leases (several processes on one store). Optional: without them the engine drives whatever it
  // finds waiting, which is right for one process only.

  /** Writes a new record holding `lease` (a running record driven at once by its creator). */
  insertLeased?(record: ExecutionRecord, lease: Lease): Promise<void>;
  /**
   * Atomically takes the execution for `lease.owner` when it is `waiting`, or `running` with its lease
   * passed (or never taken): sets status `running` and the lease. Returns the record taken, or
   * `heldUntil` when a live lease of another owner holds it, or nothing when it is not there to take
   * (finished, unknown). `takeOverFrom`: also take it from that owner's live lease (known dead).
   */
  claim?(id: string, lease: Lease, takeOverFrom?: string): Promise<ClaimResult>;
  /** Extends the lease while `owner` holds it and the execution runs; false when it was lost. */
  renewLease?(id: string, lease: Lease): Promise<boolean>;
  /** Running executions with their flow and lease (null: none), to take over those whose holder died. */
  listRunning?(): Promise<RunningExecution[]>;
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

export interface ClaimResult {
  record?: ExecutionRecord;
  /** Set when another owner's live lease holds the execution: when that lease lapses. */
  heldUntil?: number;
}
