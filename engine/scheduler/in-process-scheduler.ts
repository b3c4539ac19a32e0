import type { Scheduler } from './scheduler.js';

/** setTimeout cannot exceed 2^31-1 ms; longer waits are re-armed in chunks. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Timers in this process (waits of any length: longer than 2^31-1 ms are re-armed in chunks). Not
 * durable: the timers die with the process, and the sweep at start (Engine.sweep) schedules them again.
 */
export class InProcessScheduler implements Scheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private handler: ((id: string) => Promise<void>) | null = null;
  private readonly pending = new Map<string, number>();

  start(handler: (executionId: string) => Promise<void>): void {
    this.handler = handler;
    for (const [id, wakeAt] of this.pending) this.schedule(id, wakeAt);
    this.pending.clear();
  }

  schedule(executionId: string, wakeAt: number): void {
    this.cancel(executionId);
    if (!this.handler) {
      this.pending.set(executionId, wakeAt);
      return;
    }
    const delay = Math.max(0, wakeAt - Date.now());
    const timer = setTimeout(
      () => {
        this.timers.delete(executionId);
        if (wakeAt > Date.now()) return this.schedule(executionId, wakeAt);
        this.handler?.(executionId).catch(() => undefined);
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    this.timers.set(executionId, timer);
  }

  cancel(executionId: string): void {
    const timer = this.timers.get(executionId);
    if (timer) clearTimeout(timer);
    this.timers.delete(executionId);
    this.pending.delete(executionId);
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.handler = null;
  }

  /** Number of armed timers (for tests and metrics). */
  get size(): number {
    return this.timers.size;
  }
}
