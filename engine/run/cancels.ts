// Cancelling executions in the store, by flow and key or by id, in whatever process they run, and
// what follows in this process: their timers dropped, who awaits their end told, their parents woken.
import type { CancelOutcome } from '../engine-options.js';
import type { Logger } from '../logger.js';
import { notifyObserver, type EngineObserver } from '../observer.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import type { ExecutionStore } from '../store/execution-store.js';
import type { EndWaiters } from './end-waiters.js';

/** What cancelling needs of the engine. */
export interface CancelHost {
  readonly store: ExecutionStore;
  readonly scheduler: Scheduler;
  readonly waiters: EndWaiters;
  readonly observer: EngineObserver | undefined;
  readonly logger: Logger;
  /**
   * Tells the engine `id` was cancelled in the store: an execution driven or being claimed here
   * stops before its next step. True when it is driven here (its drive's end tells the waiters).
   */
  noticeCancel(id: string): boolean;
}

/**
 * Engine.cancel and Engine.cancelExecution, and what follows any cancel made here (`after`). Every
 * execution this process cancels (by key, by id, or replaced by a newer one of its key), waiting or
 * running, is told to the observer once, here (executionCancelled): a waiting one has no drive to
 * end it, and the process that cancels it may not be the one that drives it.
 */
export class Cancels {
  constructor(private readonly host: CancelHost) {}

  /** Engine.cancel: ExecutionStore.cancelByKey, then `after`. Resolves to the ids cancelled. */
  async byKey(flowName: string, key: string, reason: string, by?: string): Promise<string[]> {
    // With `by`, the store answers a step run again after a crash with what that step cancelled the
    // first time: those ended before this call, and were told then.
    const since = Date.now();
    const ids = await this.host.store.cancelByKey(flowName, key, reason, by);
    await this.after(ids, by === undefined ? undefined : since);
    return ids;
  }

  /** Engine.cancelExecution: ExecutionStore.cancelById, then `after`. */
  async byId(id: string, reason: string): Promise<CancelOutcome> {
    const { store, logger } = this.host;
    const from = await store.cancelById(id, reason);
    if (from === undefined) {
      const record = await store.get(id);
      return record ? { cancelled: false, record } : { cancelled: false };
    }
    await this.after([id]);
    const record = (await store.get(id))!;
    logger.info({ execution: id, flow: record.flow, was: from }, 'execution cancelled');
    return { cancelled: true, record };
  }

  /**
   * After executions were cancelled in the store by this process: drop their timers, tell who awaits
   * their end here, wake their parents, and tell the observer (executionCancelled). `since` (ms since
   * epoch): only those whose stored `finished_at` is not earlier are told (cancelled by this call).
   */
  async after(ids: string[], since?: number): Promise<void> {
    const { store, observer, logger } = this.host;
    for (const id of ids) {
      this.host.scheduler.cancel(id);
      // Driven here now: its drive sees the cancel and ends it (finish), telling who awaits it. Being
      // taken here: its drive, if the claim came first, sees it too.
      const driven = this.host.noticeCancel(id);
      if (driven && !observer) continue;
      const record = await store.get(id);
      if (!record) continue;
      if (!driven) this.host.waiters.ended(record);
      if (since === undefined || Date.parse(record.finished_at ?? '') >= since)
        notifyObserver(observer, logger, (o) => o.executionCancelled?.(record));
    }
  }
}
