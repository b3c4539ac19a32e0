// One read answering every caller that asked for it while it had not started: what the erasing store
// does with its ledger (erasures.ts), read before every write of a record with a final status. Under
// load many executions end at once; each of their writes needs the ledger as it is after the write was
// asked for, not one read each.
//
// Contract: the promise `get()` returns settles with the outcome (value or error) of a read that
// started after that call. A call while no read is under way starts one; a call while one is under
// way waits for the next, which starts when the one under way settles and answers every call made
// meanwhile. At most one read is under way at a time.

/** Reads shared by the callers that ask at about the same time (see the file comment). */
export class SharedReads<T> {
  /** The read under way, if any. */
  private current: Promise<T> | undefined;
  /** The read that starts when `current` settles, shared by every call made since `current` started. */
  private next: Promise<T> | undefined;

  constructor(private readonly read: () => Promise<T>) {}

  /** The value of a read that starts after this call (see the file comment). */
  get(): Promise<T> {
    if (this.next) return this.next;
    if (!this.current) return this.start();
    const settled = this.current.then(
      () => undefined,
      () => undefined,
    );
    this.next = settled.then(() => {
      this.next = undefined;
      return this.start();
    });
    return this.next;
  }

  private start(): Promise<T> {
    const read = this.read();
    this.current = read;
    const done = () => {
      if (this.current === read) this.current = undefined;
    };
    read.then(done, done);
    return read;
  }
}
