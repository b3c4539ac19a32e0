// The engine's Scheduler on a BullMQ queue in Redis, shared by every `serve` and `worker` process
// (queue mode). BullMQ rather than a home-made queue: delayed jobs, at-most-one active holder per
// job with lock renewal, stalled-job recovery when a process dies, and retries are what this needs
// and what BullMQ has been hardened for.
//
// Contract:
//   - A job carries only an execution id (never lead data): `{id}`. Its job id is `<id>_<wakeAt>`,
//     so scheduling the same wake twice (two processes sweeping) makes one job.
//   - The handler is Engine.resume(id): it takes the execution through the store's lease (claim), so a
//     duplicate or early job is harmless (nothing to take, or the wait re-suspends).
//   - A process killed while holding a job: BullMQ moves the job back after `lockDurationMs` and
//     another process runs it; the execution itself is taken over once its lease lapses.
//   - `stop()` stops taking jobs (active ones finish: the engine hands them back as due waits);
//     `schedule()` keeps working until `close()`, so handed-back waits reach the queue.
import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { Scheduler } from '../../engine/scheduler/scheduler.js';

/**
 * The Redis of the queue, its key namespace, how many jobs this process drives at once, and the job
 * lock's length.
 */
export interface BullMqSchedulerOptions {
  /** `redis://…` */
  url: string;
  /** Key namespace in Redis, without a trailing colon. Default `leadflow`. */
  prefix?: string;
  /** Jobs driven at once by this process. Default 16. */
  concurrency?: number;
  /** How long a job stays with a process that stopped renewing it (crash), ms. Default 30000. */
  lockDurationMs?: number;
  onError?: (err: Error) => void;
}

/** The BullMQ queue of the executions' wakes (under the prefix). */
export const QUEUE_NAME = 'executions';
const DEFAULT_CONCURRENCY = 16;
const DEFAULT_LOCK_MS = 30_000;

function connectionOf(url: string): ConnectionOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    // Workers block on Redis; BullMQ requires unlimited retries per request for them.
    maxRetriesPerRequest: null,
    // Reconnect with a growing pause (up to 5 s) while Redis is away, never in a tight loop.
    retryStrategy: (times: number) => Math.min(100 * 2 ** Math.min(times, 6), 5_000),
  };
}

/**
 * The engine's Scheduler on BullMQ, as the file comment's contract says: `start(handler)` takes jobs,
 * `stop()` stops taking them, `close()` ends everything.
 */
export class BullMqScheduler implements Scheduler {
  readonly durable = true;
  readonly queue: Queue;
  private worker: Worker | undefined;
  private stopping: Promise<void> | undefined;
  private readonly options: BullMqSchedulerOptions;
  private readonly prefix: string;

  constructor(options: BullMqSchedulerOptions) {
    this.options = options;
    this.prefix = (options.prefix ?? 'leadflow').replace(/:+$/, '');
    this.queue = new Queue(QUEUE_NAME, { connection: connectionOf(options.url), prefix: this.prefix });
    this.queue.on('error', (err) => this.options.onError?.(err));
  }

  schedule(executionId: string, wakeAt: number): void {
    const delay = Math.max(0, wakeAt - Date.now());
    this.queue
      .add(
        'wake',
        { id: executionId },
        {
          jobId: `${executionId}_${Math.round(wakeAt)}`,
          delay,
          removeOnComplete: true,
          removeOnFail: { count: 1000 },
          attempts: 5,
          backoff: { type: 'exponential', delay: 1000 },
        },
      )
      .catch((err: Error) =>
        this.options.onError?.(
          Object.assign(err, { message: `queueing execution ${executionId} failed (the periodic sweep retries): ${err.message}` }),
        ),
      );
  }

  /** Jobs are not removed: a wake that finds nothing to take is a no-op. */
  cancel(_executionId: string): void {}

  start(handler: (executionId: string) => Promise<void>): void {
    if (this.worker) return;
    this.worker = new Worker(QUEUE_NAME, async (job) => handler(String((job.data as { id: unknown }).id)), {
      connection: connectionOf(this.options.url),
      prefix: this.prefix,
      concurrency: this.options.concurrency ?? DEFAULT_CONCURRENCY,
      lockDuration: this.options.lockDurationMs ?? DEFAULT_LOCK_MS,
      // A job whose process died is moved back this often at most before it fails for good.
      maxStalledCount: 100,
      stalledInterval: Math.max(1000, Math.floor((this.options.lockDurationMs ?? DEFAULT_LOCK_MS) / 2)),
    });
    this.worker.on('error', (err) => this.options.onError?.(err));
  }

  stop(): void {
    if (!this.worker || this.stopping) return;
    this.stopping = this.worker.close();
  }

  /** Jobs waiting, delayed (timers) and active, for metrics. */
  async depth(): Promise<{ waiting: number; delayed: number; active: number }> {
    const counts = await this.queue.getJobCounts('waiting', 'delayed', 'active', 'prioritized');
    return { waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0), delayed: counts.delayed ?? 0, active: counts.active ?? 0 };
  }

  /** Executions due or being driven: the queue depth metric (`leadflow_queue_depth`). */
  async dueOrRunning(): Promise<number> {
    const d = await this.depth();
    return d.waiting + d.active;
  }

  /**
   * Stops the worker (after its active jobs) and closes the queue connection; when Redis does not
   * answer, gives up waiting after `timeoutMs` (default 5000) and drops the connections.
   */
  async close(timeoutMs = 5_000): Promise<void> {
    this.stop();
    const graceful = (async () => {
      await this.stopping;
      await this.queue.close();
    })();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      graceful.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
    ]);
    clearTimeout(timer);
    if (timedOut) {
      graceful.catch(() => undefined);
      // Dropping a connection that never came up can itself wait for it: bounded as well.
      const dropped = Promise.allSettled([this.worker?.disconnect(), this.queue.disconnect()]);
      await Promise.race([dropped, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    }
  }
}
