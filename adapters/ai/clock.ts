// Time as the agent runner sees it, injectable so tests of the 429 path do not really wait.
import { setTimeout as delay } from 'node:timers/promises';

/** The time the agent runner reads and waits on; tests pass a fake one so the 429 path does not really wait. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms` milliseconds; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The system clock: Date.now and a timer that an abort signal cancels. */
export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : undefined),
};
