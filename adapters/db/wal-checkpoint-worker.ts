// The worker thread of wal-checkpointer.ts: its own connection to the SQLite file, which copies the
// write-ahead log back into the database file every `intervalMs` (a PASSIVE checkpoint: it never
// waits for a lock and never holds up a writer). The copy ends with an fsync of the file, which is
// what made a write on the event loop wait when SQLite checkpointed after the commit that crossed
// its threshold. Nothing here changes data: the log already holds every committed transaction.
//
// Messages to the parent (WalCheckpointReport): `{ kind: 'checkpointed', frames }` after a checkpoint
// that found the log changed since the previous one (`frames`: how many of its frames are in the
// database file now; at most one message per interval), `{ kind: 'failed', message }` when one threw
// (the next interval tries again). The parent's `stop` message closes the connection; the thread then ends.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

/** What the parent hands the thread (wal-checkpointer.ts). */
export interface WalCheckpointWorkerData {
  /** The SQLite file, which exists and is in WAL mode. */
  filename: string;
  /** Time between two checkpoints, ms. */
  intervalMs: number;
}

/** What the thread tells its parent (see the file comment). */
export type WalCheckpointReport = { kind: 'checkpointed'; frames: number } | { kind: 'failed'; message: string };

interface CheckpointRow {
  busy: number;
  log: number;
  checkpointed: number;
}

// better-sqlite3 ships no type declarations: the part of it used here.
interface SqliteConnection {
  pragma(sql: string): unknown;
  close(): void;
}

const require = createRequire(import.meta.url);
const Sqlite = require('better-sqlite3') as new (file: string, options: { fileMustExist: boolean }) => SqliteConnection;

const { filename, intervalMs } = workerData as WalCheckpointWorkerData;
const db = new Sqlite(filename, { fileMustExist: true });
/** The log's length and frames copied as the previous checkpoint left them. */
let previous = { log: 0, checkpointed: 0 };

/**
 * Most passes of one checkpoint. A pass copies the frames committed before it started; when commits
 * came meanwhile, another pass copies those. Once a pass leaves nothing to copy, the next commit
 * starts the log over from its beginning instead of growing it. Under a sustained flood of writes
 * every pass finds new commits, and the log grows to the event loop's connection's bound
 * (wal-checkpointer.ts, FALLBACK_AUTOCHECKPOINT_PAGES), where that connection starts it over.
 */
const MAX_PASSES = 4;

function checkpoint(): void {
  try {
    let row: CheckpointRow | undefined;
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      [row] = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointRow[];
      if (!row || row.checkpointed >= row.log) break;
    }
    if (!row || row.log <= 0) return;
    const changed = row.log !== previous.log || row.checkpointed !== previous.checkpointed;
    previous = { log: row.log, checkpointed: row.checkpointed };
    if (changed && row.checkpointed > 0)
      parentPort?.postMessage({ kind: 'checkpointed', frames: row.checkpointed } satisfies WalCheckpointReport);
  } catch (err) {
    parentPort?.postMessage({ kind: 'failed', message: (err as Error).message } satisfies WalCheckpointReport);
  }
}

const timer = setInterval(checkpoint, intervalMs);
parentPort?.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort?.close();
});
