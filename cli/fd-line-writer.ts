// Where the services' log lines go: a file descriptor (stdout or stderr), written in the order they
// were logged, none lost when the process ends, and without the event loop ever waiting for the reader.
//
// The lines logged in one turn of the event loop are gathered and written together by one synchronous
// write at the end of that turn (setImmediate): a line logged at idle is out at once, and under load a
// write carries many lines. Every write is synchronous, so none is ever under way when the process
// ends: what is still gathered is written on `exit` (process.exit, the graceful stop on a signal ends
// with it, the event loop emptying, an uncaught exception or unhandled rejection), after everything
// written before it. (pino's asynchronous SonicBoom writes on libuv's thread pool; a process ending
// while such a write was under way wrote the lines after it first, and sometimes lost it.)
//
// A reader that stops reading: the writer touches process.stdout or process.stderr, which makes node
// put a pipe in non-blocking mode, so a write to a full pipe is partial or fails with EAGAIN instead of
// waiting. What did not go out waits in memory (and grows while the reader does not read) and is tried
// again every RETRY_MS. When the process ends, it waits for the reader up to EXIT_WAIT_MS in all, then
// drops what is left. A reader that is gone (EPIPE) or any other write error: the lines waiting and
// every later line are dropped, and the process goes on.
import { writeSync } from 'node:fs';

/** How long a full pipe is left alone before the next try (ms). */
export const RETRY_MS = 10;
/** How long the process waits in all, as it ends, for a reader that does not read (ms). */
export const EXIT_WAIT_MS = 5_000;

/** Writes `data` to `fd`; returns the number of bytes written (fs.writeSync's contract). */
export type WriteFunction = (fd: number, data: Buffer) => number;

/** A pino destination: JSON lines to one file descriptor, in order, gathered per turn of the event loop. */
export class FdLineWriter {
  /** Lines logged since the last write began, in order. */
  private gathered = '';
  /** The part of the last write the reader did not take yet; it goes out before `gathered`. */
  private unwritten: Buffer | undefined;
  /** A write is due (setImmediate or a retry timer is set). */
  private due = false;
  /** A write failed for good: every line from now on is dropped. */
  private broken = false;

  /** @param writeBytes the write itself; tests pass their own to play a full or broken pipe. */
  constructor(
    private readonly fd: number,
    private readonly writeBytes: WriteFunction = writeSync,
  ) {}

  /** Takes one line (pino calls this); it goes out at the end of this turn. Never throws, never waits. */
  write(line: string): boolean {
    if (this.broken) return true;
    this.gathered += line;
    if (!this.due) {
      this.due = true;
      setImmediate(this.writeDue);
    }
    return true;
  }

  /**
   * Writes everything waiting now, trying again while the reader is full for up to `maxWaitMs` (ms);
   * then drops what is left. Called on `exit`, and by pino after a `fatal` line.
   */
  flushSync(maxWaitMs = EXIT_WAIT_MS): void {
    const deadline = Date.now() + maxWaitMs;
    const pause = new Int32Array(new SharedArrayBuffer(4));
    while (!this.writeWhatWaits()) {
      if (Date.now() >= deadline) {
        this.dropWaiting();
        return;
      }
      Atomics.wait(pause, 0, 0, Math.min(RETRY_MS, Math.max(1, deadline - Date.now())));
    }
  }

  /** The write at the end of a turn, or a retry: what the reader does not take is tried again later. */
  private readonly writeDue = (): void => {
    this.due = false;
    if (this.writeWhatWaits()) return;
    this.due = true;
    // Unref'd: a reader that does not read never keeps the process alive; `exit` waits for it a while.
    setTimeout(this.writeDue, RETRY_MS).unref();
  };

  /** Writes what waits, in order, until all is out (true) or the reader is full (false). */
  private writeWhatWaits(): boolean {
    for (;;) {
      if (this.unwritten === undefined) {
        if (this.gathered === '') return true;
        this.unwritten = Buffer.from(this.gathered);
        this.gathered = '';
      }
      let written: number;
      try {
        written = this.writeBytes(this.fd, this.unwritten);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return false;
        this.broken = true;
        this.dropWaiting();
        return true;
      }
      this.unwritten = written >= this.unwritten.length ? undefined : this.unwritten.subarray(written);
    }
  }

  /** Drops every line waiting (a reader given up on, or a write error other than a full pipe). */
  private dropWaiting(): void {
    this.gathered = '';
    this.unwritten = undefined;
  }
}

/** One writer per descriptor, so every logger on it shares one order; each written on `exit`. */
const writers = new Map<number, FdLineWriter>();

/**
 * The process's writer for stdout (1) or stderr (2). The first call for a descriptor touches
 * process.stdout/stderr (a pipe becomes non-blocking) and writes what waits when the process exits.
 */
export function lineWriterFor(fd: 1 | 2): FdLineWriter {
  const existing = writers.get(fd);
  if (existing) return existing;
  void (fd === 1 ? process.stdout : process.stderr);
  const writer = new FdLineWriter(fd);
  writers.set(fd, writer);
  process.on('exit', () => writer.flushSync());
  return writer;
}
