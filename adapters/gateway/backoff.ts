// Delays between attempts of a gateway call. All values are milliseconds.

/**
 * Delay before retry number `retry` (1 for the first retry): exponential `baseMs * 2^(retry-1)`,
 * capped at `maxMs`, with "equal jitter" (a random point in the upper half), so it is never below
 * half the exponential value. `random` returns [0, 1).
 */
export function backoffDelay(retry: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, retry - 1));
  return Math.round(exp / 2 + (exp / 2) * random());
}

/**
 * A Retry-After header in ms: delta-seconds (`"2"`, fractions accepted) or an HTTP date. Undefined
 * when absent or unparsable; never negative.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first (the engine's own). */
export { sleep } from '../../engine/run/retry.js';
