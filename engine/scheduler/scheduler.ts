/**
 * Wakes waiting executions. `schedule` may be called again for the same id (the later time wins);
 * the handler is called at most once per schedule. In-process timers now; a Redis-backed scheduler
 * implements the same interface for several processes.
 */
export interface Scheduler {
  /** Calls the handler for `executionId` at `wakeAt` (ms since epoch; in the past: as soon as possible). */
  schedule(executionId: string, wakeAt: number): void;
  cancel(executionId: string): void;
  start(handler: (executionId: string) => Promise<void>): void;
  /** Stops firing; pending schedules are dropped (the store still holds the waits). */
  stop(): void;
  /** True when schedules outlive this process (a queue on Redis): `schedule` still works after `stop`. */
  readonly durable?: boolean;
}
