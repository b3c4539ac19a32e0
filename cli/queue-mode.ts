// Queue mode: with REDIS_URL, executions go through a BullMQ queue shared by every `serve` and
// `worker` process on that Redis (adapters/queue/bullmq-scheduler.ts); without it, the embedded
// mode: in-process timers over the store (one process). BullMQ (and ioredis) load only in queue mode.
import type { BullMqScheduler } from '../adapters/queue/bullmq-scheduler.js';
import type { Logger } from '../engine/logger.js';

/** How often serve and worker hand the scheduler every stored wait again (recovers lost timers), ms. */
export const SWEEP_EVERY_MS = 60_000;

/**
 * LEADFLOW_LEASE_MS: how long a process that stopped answering (crash) keeps its executions and
 * queue jobs before another takes them over, ms. Default 30000; at least 1000.
 */
export function leaseMsFromEnv(env: Record<string, string | undefined>): number {
  const ms = Number(env.LEADFLOW_LEASE_MS ?? 30_000);
  return Number.isInteger(ms) && ms >= 1000 ? ms : 30_000;
}

/**
 * The queue scheduler when REDIS_URL is set, else undefined (embedded mode). `kvPrefix` is the
 * key-value namespace (default `leadflow:`); the queue's keys live under it too.
 * LEADFLOW_WORKER_CONCURRENCY: executions one process drives at once (default 16).
 */
export async function queueSchedulerFromEnv(
  env: Record<string, string | undefined>,
  logger: Logger,
  kvPrefix = 'leadflow:',
): Promise<BullMqScheduler | undefined> {
  const url = env.REDIS_URL?.trim();
  if (!url) return undefined;
  const { BullMqScheduler } = await import('../adapters/queue/bullmq-scheduler.js');
  const concurrency = Number(env.LEADFLOW_WORKER_CONCURRENCY ?? 16);
  return new BullMqScheduler({
    url,
    prefix: kvPrefix,
    concurrency: Number.isInteger(concurrency) && concurrency > 0 ? concurrency : 16,
    lockDurationMs: leaseMsFromEnv(env),
    onError: (err) => logger.warn({ err: err.message }, 'execution queue error'),
  });
}

/**
 * LEADFLOW_WEBHOOK_MODE, queue mode only: `local` (default) — the process that receives a webhook
 * runs its execution at once, under a lease, up to its first wait or its end (a crash hands it to
 * another process when the lease lapses); waits, resumes and take-overs go through the queue to any
 * process. `queue` — the receiving process only records the execution and enqueues it; whichever
 * process takes the job runs it, and a `respond: step` answer is read back from the database (slower:
 * a queue hop and polling). Returns true for `queue`; throws on any other value than the two.
 */
export function webhooksQueuedFromEnv(env: Record<string, string | undefined>): boolean {
  const mode = (env.LEADFLOW_WEBHOOK_MODE ?? '').trim().toLowerCase() || 'local';
  if (mode !== 'local' && mode !== 'queue')
    throw new Error(`LEADFLOW_WEBHOOK_MODE must be "local" or "queue", got "${env.LEADFLOW_WEBHOOK_MODE}"`);
  return mode === 'queue';
}
