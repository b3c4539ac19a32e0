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

/** Engine.cancel and Engine.cancelExecution, and what follows any cancel made here (`after`). */
export class Cancels {
  constructor(private readonly host: CancelHost) {}

  /** Engine.cancel: ExecutionStore.cancelByKey, then `after`. Resolves to the ids cancelled. */
  async byKey(flowName: string, key: string, reason: string, by?: string): Promise<string[]> {
    const ids = await this.host.store.cancelByKey(flowName, key, reason, by);
    await this.after(ids);
    return ids;
  }

  /** Engine.cancelExecution: ExecutionStore.cancelById, then `after`; a waiting one is told to the observer here. */
  async byId(id: string, reason: string): Promise<CancelOutcome> {
    const { store, observer, logger } = this.host;
    const from = await store.cancelById(id, reason);
    if (from === undefined) {
      const record = await store.get(id);
      return record ? { cancelled: false, record } : { cancelled: false };
    }
    await this.after([id]);
    const record = (await store.get(id))!;
    // A waiting one ends without a drive (no executionEnded): told here. A running one is told by its drive's end.
    if (from === 'waiting') notifyObserver(observer, logger, (o) => o.executionCancelled?.(record));
    logger.info({ execution: id, flow: record.flow, was: from }, 'execution cancelled');
    return { cancelled: true, record };
  }

  /** After executions were cancelled in the store: drop their timers, tell who awaits their end here, wake their parents. */
  async after(ids: string[]): Promise<void> {
    for (const id of ids) {
      this.host.scheduler.cancel(id);
      // Driven here now: its drive sees the cancel and ends it (finish). Being taken here: its drive, if
      // the claim came first, sees it too.
      if (this.host.noticeCancel(id)) continue;
      const record = await this.host.store.get(id);
      if (record) this.host.waiters.ended(record);
    }
  }
}
