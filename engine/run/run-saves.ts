// The saves of one drive, and what they tell of a cancel (hook 7 and the cancellation of the
// execution-run.ts header): a save is queued after the earlier ones; with a journal (RunHost.append)
// it appends what changed since the previous one, else it writes the record whole. An execution with
// a key reads its stored status back after each save; the run asks `throwIfCancelled` before each step.
import { CancelSignal } from '../errors/cancel-signal.js';
import { JournalCursor, type JournalEntry } from '../store/journal.js';
import type { ExecutionRecord, ExecutionStatus } from '../types.js';
import { isoNow } from './iso-now.js';
import type { RunHost } from './run-host.js';

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
  private readonly journal: JournalCursor | undefined;

  constructor(
    private readonly host: RunHost,
    private readonly record: ExecutionRecord,
  ) {
    this.journal = host.append ? new JournalCursor(record) : undefined;
  }

  /**
   * Queues a save of the record and returns when it (and every earlier one) is written. The walk
   * awaits it after each step that is neither read-only nor repeatable, so such a step is on record
   * as done before the next one starts: a process killed at any point re-runs the step it was in and
   * the read-only and repeatable ones since the last save (harmless by definition), never a step
   * with an effect that finished. A failed write is logged, not thrown.
   */
  save(): Promise<void> {
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
      .catch((err) => {
        this.host.logger.error({ execution: this.record.id, err: (err as Error).message }, 'saving execution failed');
      });
    return this.saving;
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
