// SQLite's write-ahead log copied back into the database file by a worker thread (issue 31), for the
// processes that run executions (`serve`, `worker`) on SQLite.
//
// By default SQLite checkpoints in the connection that commits: the commit that takes the log past
// 1,000 pages (4 MB) also copies them back and fsyncs the file, and better-sqlite3 runs all of it on
// the event loop. Under load that was about a third of an insert's time on average and most of its
// p99 (an insert of an empty webhook flow: mean 171 µs, p99 779 µs; with the copy on a worker thread:
// 98 µs and 244 µs), nearly all of it spent waiting for the disk, not computing.
//
// With a checkpointer, the worker (wal-checkpoint-worker.ts, its own connection) checkpoints every
// CHECKPOINT_INTERVAL_MS without blocking anyone (PASSIVE), and the event loop's connection only
// checkpoints itself past FALLBACK_AUTOCHECKPOINT_PAGES (about 40 MB), a bound on the log for when
// the worker cannot keep up or is gone. Durability is the same: a transaction is durable once its
// commit wrote it to the log (synchronous NORMAL, as before), and a checkpoint only moves it.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { packageRoot } from '../../engine/package-root.js';
import type { WalCheckpointReport, WalCheckpointWorkerData } from './wal-checkpoint-worker.js';

/** Time between two checkpoints of the worker, ms. */
export const CHECKPOINT_INTERVAL_MS = 100;
/** `wal_autocheckpoint` of the event loop's connection while a checkpointer runs, pages (SQLite's default: 1,000). */
export const FALLBACK_AUTOCHECKPOINT_PAGES = 10_000;
/** How long `stop` waits for the thread to end before terminating it, ms. */
const STOP_WAIT_MS = 2_000;

/** How a checkpointer is started (defaults for production; tests shorten the interval). */
export interface WalCheckpointerOptions {
  /** Time between two checkpoints, ms. Default CHECKPOINT_INTERVAL_MS. */
  intervalMs?: number;
  /** The compiled worker script. Default dist/adapters/db/wal-checkpoint-worker.js of this package (built by `npm run build`). */
  workerFile?: string;
  /** Told when a checkpoint failed or the thread ended with an error (it is not restarted). */
  onFailure?: (message: string) => void;
}

/** The compiled worker script of this package, or undefined when it is not built. */
export function builtWorkerFile(): string | undefined {
  const file = join(packageRoot(dirname(fileURLToPath(import.meta.url))), 'dist', 'adapters', 'db', 'wal-checkpoint-worker.js');
  return existsSync(file) ? file : undefined;
}

/** A worker thread checkpointing one SQLite file (see the file comment). Never keeps the process alive. */
export class WalCheckpointer {
  private copied = 0;
  private readonly ended: Promise<void>;

  private constructor(private readonly worker: Worker) {
    this.ended = new Promise((resolve) => worker.once('exit', () => resolve()));
  }

  /**
   * Starts the thread on `filename` (an existing SQLite file in WAL mode). Undefined, with nothing
   * started, when the worker script is not built.
   */
  static start(filename: string, options: WalCheckpointerOptions = {}): WalCheckpointer | undefined {
    const script = options.workerFile ?? builtWorkerFile();
    if (!script || !existsSync(script)) return undefined;
    const data: WalCheckpointWorkerData = { filename, intervalMs: options.intervalMs ?? CHECKPOINT_INTERVAL_MS };
    const worker = new Worker(script, { workerData: data });
    worker.unref();
    const checkpointer = new WalCheckpointer(worker);
    worker.on('message', (report: WalCheckpointReport) => {
      if (report.kind === 'checkpointed') checkpointer.copied++;
      else options.onFailure?.(report.message);
    });
    worker.on('error', (err) => options.onFailure?.(`checkpoint thread ended: ${err.message}`));
    return checkpointer;
  }

  /** How many checkpoints found new frames in the log and copied them so far. */
  get checkpoints(): number {
    return this.copied;
  }

  /** Closes the thread's connection and waits for the thread to end (terminated past STOP_WAIT_MS). */
  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    const timer = setTimeout(() => void this.worker.terminate(), STOP_WAIT_MS);
    try {
      await this.ended;
    } finally {
      clearTimeout(timer);
    }
  }
}
