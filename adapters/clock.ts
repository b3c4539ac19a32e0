// The time nodes read (`ctx.services.clock`), so a host or a test can set "now". Milliseconds since
// the epoch. `systemClock` is the real time; `settableClock` starts at a chosen instant and then
// advances in real time (so waits and timeouts still elapse), and can be set again at any point.
// The agent runner's retry clock (adapters/ai/clock.ts) is a separate thing: it also sleeps.

/** The time nodes read through `ctx.services.clock` (see the file comment). */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** The real time: Date.now. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock whose "now" can be set, then advancing in real time (settableClock). */
export interface SettableClock extends Clock {
  /** From now on, `now()` reads `ms` and advances from there in real time. */
  set(ms: number): void;
}

/** A clock reading `startMs` (default: the real time) now and advancing in real time from it. */
export function settableClock(startMs: number = Date.now()): SettableClock {
  let offset = 0;
  const clock: SettableClock = {
    now: () => Date.now() + offset,
    set(ms: number) {
      if (!Number.isFinite(ms)) throw new Error(`settableClock.set: expected ms since the epoch, got ${ms}`);
      offset = ms - Date.now();
    },
  };
  clock.set(startMs);
  return clock;
}
