// Execution retention, for `serve` and `worker`: prune finished executions older than
// LEADFLOW_EXECUTIONS_RETAIN_DAYS (with the flow versions no unfinished execution runs on, the claims
// of schedule ticks but each flow's latest, and settling the erasure ledger,
// engine/store/erasing-store.ts; and the console overview's activity_events) at start and every hour. Several processes may prune at once: each delete only takes what is still
// there. A failed prune is logged and tried again at the next tick.
import type { Logger } from '../engine/logger.js';
import { retentionDays } from './runtime.js';

/** Between two prunes, ms. */
export const PRUNE_EVERY_MS = 60 * 60 * 1000;

/** What is pruned: finished executions older than `olderThanDays`; resolves with how many went. */
export interface Prunable {
  prune(olderThanDays: number): Promise<number>;
}

/**
 * Prunes now (awaited) and then every PRUNE_EVERY_MS; `ticks`: schedule tick claims pruned alike;
 * `activity`: the console overview's rows (activity_events) older than the same retention. Returns
 * the function that stops it.
 */
export async function startPruning(store: Prunable, logger: Logger, ticks?: Prunable, activity?: Prunable): Promise<() => void> {
  const prune = async () => {
    try {
      const removed = await store.prune(retentionDays());
      if (removed > 0) logger.info({ removed, retain_days: retentionDays() }, 'pruned old executions');
      const ticksRemoved = (await ticks?.prune(retentionDays())) ?? 0;
      if (ticksRemoved > 0) logger.info({ removed: ticksRemoved, retain_days: retentionDays() }, 'pruned old schedule ticks');
      const activityRemoved = (await activity?.prune(retentionDays())) ?? 0;
      if (activityRemoved > 0) logger.info({ removed: activityRemoved, retain_days: retentionDays() }, 'pruned old overview activity');
    } catch (err) {
      logger.error({ err: (err as Error).message }, 'pruning executions failed');
    }
  };
  await prune();
  const timer = setInterval(() => void prune(), PRUNE_EVERY_MS).unref();
  return () => clearInterval(timer);
}
