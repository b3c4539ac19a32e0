/**
 * Wakes waiting executions. `schedule` may be called again for the same id (the later time wins);
 * the handler is called at most once per schedule. In-process timers (InProcessScheduler) or a
 * Redis-backed queue (adapters/) for several processes. No method throws; a handler's rejection is
 * the scheduler's to swallow or retry.
 *
 * @example
 * const scheduler: Scheduler = new InProcessScheduler();
 * scheduler.start((id) => engine.resume(id).then(() => undefined));
 * scheduler.schedule(record.id, Date.now() + 60_000); // resumed in a minute
 * scheduler.stop();
 */
export interface Scheduler {
  /** Calls the handler for `executionId` at `wakeAt` (ms since epoch; in the past: as soon as possible). Before `start`: kept until then. */
  schedule(executionId: string, wakeAt: number): void;
  /** Drops the pending schedule of `executionId` where it can (a queue may still fire it: the wake then finds nothing to do). */
  cancel(executionId: string): void;
  /** Begins firing: `handler` is called with each execution id whose time has come. */
  start(handler: (executionId: string) => Promise<void>): void;
  /** Stops firing; pending schedules are dropped (the store still holds the waits). */
  stop(): void;
  /** True when schedules outlive this process (a queue on Redis): `schedule` still works after `stop`. */
  readonly durable?: boolean;
}
