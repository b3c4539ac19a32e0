// What an attempt of a step throws that is not the step's failure (the execution-run.ts header):
// a wait, stop or cancel signal, recorded on the step and thrown on through the walk to the engine;
// the run's abort; and an unreachable database or Redis, which parks the execution so the step runs
// again later, without spending its retries or on_error.
import { CancelSignal } from '../errors/cancel-signal.js';
import { DEPENDENCY_RETRY_MS, isDependencyUnavailable } from '../errors/dependency-unavailable.js';
import { StopSignal } from '../errors/stop-signal.js';
import { SuspendSignal } from '../errors/suspend-signal.js';
import { toStepError } from '../errors/to-step-error.js';
import type { Logger } from '../logger.js';
import type { LoadedStep, StepRecord } from '../types.js';

/** What passing a signal on needs of the run. */
export interface SignalContext {
  /** The run's abort signal (the engine shutting down). */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** The execution's id and its flow's name, for the log line of an outage. */
  readonly execution: string;
  readonly flow: string;
  /** Logs a step's end (a stopped step ends here). */
  logStep(record: StepRecord): void;
}

/**
 * The database or Redis cannot be reached: not this step's failure. Throws a SuspendSignal that
 * parks the execution for DEPENDENCY_RETRY_MS; the step runs again then, its retries and on_error
 * kept for real failures.
 */
function parkForOutage(ctx: SignalContext, step: LoadedStep, record: StepRecord, err: unknown): never {
  record.status = 'waiting';
  ctx.logger.warn(
    { execution: ctx.execution, flow: ctx.flow, step: step.id, error: toStepError(err).message, retry_in_ms: DEPENDENCY_RETRY_MS },
    'a dependency is unreachable; the step runs again later',
  );
  throw new SuspendSignal(Date.now() + DEPENDENCY_RETRY_MS, {});
}

/**
 * Rethrows what is not the failure of step `record`: a wait or stop signal (recorded on the step),
 * the run's abort, and an unreachable dependency (the execution parks and the step runs again
 * later). Returns when `err` is the step's own failure.
 */
export function passOn(ctx: SignalContext, step: LoadedStep, record: StepRecord, err: unknown): void {
  if (err instanceof SuspendSignal) {
    // A control step whose child suspended waits too; only the suspending step keeps the state.
    record.status = 'waiting';
    if (err.origin === record.key) record.state = err.state;
    throw err;
  }
  if (err instanceof CancelSignal) {
    // A child step list of this control step was cut short: this step ends with it.
    record.status = 'stopped';
    throw err;
  }
  if (err instanceof StopSignal) {
    record.status = 'stopped';
    if (err.origin === record.key) record.output = { reason: err.reason };
    ctx.logStep(record);
    throw err;
  }
  if (ctx.signal.aborted) throw err;
  if (isDependencyUnavailable(err) && !(err as { mocked?: boolean }).mocked) parkForOutage(ctx, step, record, err);
}
