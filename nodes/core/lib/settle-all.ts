// Shared by foreach and parallel: after concurrent child runs settle, rethrow the outcome that wins:
// a failure first, then a stop, then the earliest suspension (the later ones re-suspend on resume).
import { StopSignal } from '../../../engine/errors/stop-signal.js';
import { SuspendSignal } from '../../../engine/errors/suspend-signal.js';

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
