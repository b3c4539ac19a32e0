// A virtual clock for the agent runner: `sleep` advances time at once and records the wait.
import type { Clock } from '../../adapters/ai/clock.js';

export interface FakeClock extends Clock {
  /** Every sleep requested, in milliseconds, in order. */
  sleeps: number[];
  /** Virtual milliseconds elapsed since creation. */
  elapsed(): number;
}

export function fakeClock(): FakeClock {
  const start = 1_700_000_000_000;
  let t = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    elapsed: () => t - start,
    async sleep(ms, signal) {
      signal?.throwIfAborted();
      sleeps.push(ms);
      t += ms;
    },
  };
}
