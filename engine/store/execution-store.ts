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
}
