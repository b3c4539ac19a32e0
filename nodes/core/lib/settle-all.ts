// Shared by foreach and parallel: the outcome of concurrent child runs once they all settle.
import { StopSignal } from '../../../engine/errors/stop-signal.js';
import { SuspendSignal } from '../../../engine/errors/suspend-signal.js';

/**
 * The outputs of concurrent child runs once all have settled, in the order given; when any was
 * rejected, throws the one that wins instead: a failure first, then a stop, then the suspension that
 * wakes earliest (the others suspend again when the execution resumes).
 */
export function rethrowSettled<T>(results: PromiseSettledResult<T>[]): T[] {
  const reasons = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as unknown);
  const failure = reasons.find((r) => !(r instanceof StopSignal) && !(r instanceof SuspendSignal));
  if (failure !== undefined) throw failure;
  const stop = reasons.find((r) => r instanceof StopSignal);
  if (stop) throw stop;
  const suspends = reasons.filter((r): r is SuspendSignal => r instanceof SuspendSignal);
  if (suspends.length > 0) {
    throw suspends.reduce((a, b) => ((a.wakeAt ?? Infinity) <= (b.wakeAt ?? Infinity) ? a : b));
  }
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}
