// How a drive's end is read onto its record: the status (and error, stop reason or wake time) from
// what the run threw, and a cancellation stored meanwhile by any process; then logged and reported.
import { CancelSignal } from '../errors/cancel-signal.js';
import { StepFailedError } from '../errors/step-failed-error.js';
import { StopSignal } from '../errors/stop-signal.js';
import { SuspendSignal } from '../errors/suspend-signal.js';
import { toStepError } from '../errors/to-step-error.js';
import type { Logger } from '../logger.js';
import { notifyObserver, type EngineObserver } from '../observer.js';
import type { ExecutionStore } from '../store/execution-store.js';
import type { ExecutionRecord } from '../types.js';

/**
 * Sets the record's status (and error, stop reason or wake time) from what its run threw.
 * `shuttingDown`: the engine is stopping, so the execution is handed back as due now whatever was thrown.
 */
export function recordThrown(record: ExecutionRecord, err: unknown, shuttingDown: boolean): void {
  if (shuttingDown) {
    // Shutting down: hand the execution back as due now; the next start resumes it from its records.
    record.status = 'waiting';
    record.wake_at = Date.now();
  } else if (err instanceof SuspendSignal) {
    record.status = 'waiting';
    if (err.wakeAt !== null) record.wake_at = err.wakeAt;
  } else if (err instanceof CancelSignal) {
    // Its stop reason is the store's: the drive's end reads it back (adoptCancel).
    record.status = 'cancelled';
  } else if (err instanceof StopSignal) {
    record.status = 'stopped';
    record.stop_reason = err.reason;
  } else if (err instanceof StepFailedError) {
    record.status = 'failed';
    record.error = { ...err.detail, message: err.message, step: err.stepId };
  } else {
    record.status = 'failed';
    record.error = toStepError(err);
  }
}

/** The cancellation the store holds for `record` (cancelled meanwhile, in any process), copied onto it; nothing when it is not cancelled. */
export async function adoptCancel(store: ExecutionStore, record: ExecutionRecord): Promise<void> {
  const stored = await store.get(record.id);
  if (stored?.status !== 'cancelled') return;
  record.status = 'cancelled';
  delete record.wake_at;
  for (const field of ['stop_reason', 'replaced_by', 'finished_at'] as const) {
    if (stored?.[field] !== undefined) record[field] = stored[field];
  }
}

/** The drive's end of `record`, `ms` after it began: logged (failed at warn, else info) and told to the observer (executionEnded). */
export function reportDriveEnd(logger: Logger, observer: EngineObserver | undefined, record: ExecutionRecord, ms: number): void {
  const fields = { execution: record.id, flow: record.flow, status: record.status, ms, steps: record.steps.length };
  if (record.status === 'failed') logger.warn({ ...fields, error: record.error?.message }, 'execution failed');
  else logger.info(fields, record.status === 'waiting' ? 'execution waiting' : 'execution finished');
  notifyObserver(observer, logger, (o) => o.executionEnded?.(record, ms));
}
