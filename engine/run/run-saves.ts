// The saves of one drive, and what they tell of a cancel (hook 7 and the cancellation of the
// execution-run.ts header): a save is queued after the earlier ones; with a journal (RunHost.append)
// it appends what changed since the previous one, else it writes the record whole. An execution with
// a key reads its stored status back after each save; the run asks `beforeStep` before each step.
//
// A drive of a record not stored yet (Engine.start's `deferInsert`: a PendingInsert) inserts it with
// its first write, whole, the steps walked so far in it: before the first step that is not read-only
// starts (so no effect ever happens without the execution on record), before any step starts while a
// respond step's answer is held, at a save asked meanwhile, or, when the drive never needed one, as
// its final state (drives.ts). A respond step's answer is handed on (RunHost.respond) only once the
// record is stored. A drive that walks read-only steps only is thus written once, not twice.
import { CancelSignal } from '../errors/cancel-signal.js';
import { JournalCursor, type JournalEntry } from '../store/journal.js';
import type { ExecutionRecord, ExecutionStatus } from '../types.js';
import { cloneJson } from './clone-json.js';
import { isoNow } from './iso-now.js';
import type { RunHost } from './run-host.js';

/** Inserts the record of a drive not stored yet, as running under a fresh lease of this process; rejects when it cannot. */
export type PendingInsert = (record: ExecutionRecord) => Promise<void>;

/** The saves of one drive of `record` and the cancel they found (see the file comment). */
export class RunSaves {
  private saving: Promise<void> = Promise.resolve();
  /** The store answered that this execution is cancelled: no further step starts. */
  private cancelled = false;
  /**
   * The store was not asked about a cancel since the last save: true at the start of a drive (a
   * cancel may have come since the claim) and after a read-only step, which is not saved.
   */
  private unchecked = true;
  /** What this drive saved so far (journal entries), when the host appends rather than saves whole. */
  private journal: JournalCursor | undefined;
  /** Set while the record is not stored yet (see the file comment). */
  private pendingInsert: PendingInsert | undefined;
  /** The insert under way, if any (one at a time). */
  private inserting: Promise<void> | undefined;
  /** A respond step answered while the record was not stored: the answer is handed on once it is. */
  private answerHeld = false;

  constructor(
    private readonly host: RunHost,
    private readonly record: ExecutionRecord,
    pendingInsert?: PendingInsert,
  ) {
    this.journal = host.append ? new JournalCursor(record) : undefined;
    this.pendingInsert = pendingInsert;
  }

  /** Whether the record is in the store (false only for a deferred insert not done yet). */
  get stored(): boolean {
    return this.pendingInsert === undefined;
  }

  /** A respond step answered (StepDrive.respond): handed on now when the record is stored, else once it is. */
  answered(): void {
    if (this.pendingInsert) this.answerHeld = true;
    else this.host.respond(this.record);
  }

  /**
   * Before a step starts: while the record is not stored, stores it first (store) when the step is
   * not read-only or an answer is held; then throwIfCancelled. Undefined when nothing is to wait for.
   */
  beforeStep(readOnly: boolean): Promise<void> | undefined {
    if (this.pendingInsert && (this.answerHeld || !readOnly)) return this.store().then(() => this.throwIfCancelled());
    return this.throwIfCancelled();
  }

  /**
   * Resolves once the record is in the store: at once when it is, else after inserting it now (after
   * the saves queued), whole and running, with what the run recorded so far; a held answer is then
   * handed on. Rejects when the insert fails: the record stays not stored (a later step or the
   * drive's end tries again).
   */
  store(): Promise<void> {
    const insert = this.pendingInsert;
    if (!insert) return this.flush();
    this.inserting ??= this.insertNow(insert).finally(() => {
      this.inserting = undefined;
    });
    return this.inserting;
  }

  private async insertNow(insert: PendingInsert): Promise<void> {
    await this.saving;
    // Taken in one go: the run may change the record while the insert is under way.
    const snapshot = cloneJson(this.record);
    snapshot.updated_at = isoNow();
    const cursor = this.journal ? new JournalCursor(this.record) : undefined;
    await insert(snapshot);
    this.pendingInsert = undefined;
    this.journal = cursor;
    this.unchecked = false;
    if (this.answerHeld) {
      this.answerHeld = false;
      this.host.respond(this.record);
    }
  }

  /**
   * Queues a save of the record and returns when it (and every earlier one) is written. The walk
   * awaits it after each step that is neither read-only nor repeatable, so such a step is on record
   * as done before the next one starts: a process killed at any point re-runs the step it was in and
   * the read-only and repeatable ones since the last save (harmless by definition), never a step
   * with an effect that finished. A failed write is logged, not thrown.
   */
  save(): Promise<void> {
    if (this.pendingInsert) return this.store().catch((err) => this.logSaveFailed(err));
    const at = isoNow();
    this.unchecked = false;
    // What is written is taken now: the run goes on changing the record while earlier saves finish.
    // Resolves to the stored status when the write tells it (a journal entry), else undefined.
    let write: () => Promise<ExecutionStatus | undefined>;
    if (this.journal && this.host.append) {
      const entry = this.journal.next(this.record, at);
      const append = this.host.append;
      write = () => append(entry);
    } else {
      const snapshot = structuredClone(this.record);
      snapshot.updated_at = at;
      write = () => this.host.save(snapshot).then(() => undefined);
    }
    this.saving = this.saving
      .then(write)
      .then(async (status) => {
        if (this.record.concurrency_key === undefined) return;
        if (typeof status === 'string') this.cancelled ||= status === 'cancelled';
        else if (this.host.isCancelled) this.cancelled ||= await this.host.isCancelled(this.record.id);
      })
      .catch((err) => this.logSaveFailed(err));
    return this.saving;
  }

  private logSaveFailed(err: unknown): void {
    this.host.logger.error({ execution: this.record.id, err: (err as Error).message }, 'saving execution failed');
  }

  /**
   * The journal entry that parks the record at a wait instead of writing it whole
   * (JournalCursor.parkEntry); undefined without a journal, or when the record must be written whole.
   * Call after `flush`.
   */
  parkEntry(at: string): JournalEntry | undefined {
    return this.journal?.parkEntry(this.record, at);
  }

  /** Resolves when every save queued so far is written (or failed and was logged). */
  async flush(): Promise<void> {
    await this.saving;
  }

  /** A step ran and was not saved (read-only or repeatable): the store is asked again before the next step. */
  markUnchecked(): void {
    this.unchecked = true;
  }

  /**
   * Throws CancelSignal when the store holds this execution cancelled: told by the host
   * (cancelNoticed), known from the last save, or asked before the drive's first step and before one
   * that follows an unsaved read-only step. Only executions with a key ask the store; others learn it
   * from the host. Returns undefined when the answer is known without asking (most steps), else the
   * store's answer, which rejects with the CancelSignal.
   */
  throwIfCancelled(): Promise<void> | undefined {
    if (!this.cancelled && this.host.cancelNoticed?.(this.record.id)) this.cancelled = true;
    if (this.cancelled) throw new CancelSignal(this.record.id);
    if (this.record.concurrency_key === undefined) return undefined;
    if (this.unchecked && this.host.isCancelled) {
      this.unchecked = false;
      return this.host.isCancelled(this.record.id).then((cancelled) => {
        this.cancelled = cancelled;
        if (cancelled) throw new CancelSignal(this.record.id);
      });
    }
    return undefined;
  }
}
