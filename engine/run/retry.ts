import type { RetryPolicy } from '../types.js';

/**
 * Delay before attempt `attempt + 1` after attempt `attempt` failed, in ms:
 * min(max_delay_ms, delay_ms * backoff^(attempt-1)), then moved by up to ±jitter of itself, and
 * never above max_delay_ms (the cap bounds every single delay).
 * `random` returns [0, 1) (Math.random by default; injectable for tests).
 */
export function retryDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(policy.max_delay_ms, policy.delay_ms * policy.backoff ** Math.max(0, attempt - 1));
  if (!policy.jitter) return Math.round(base);
  const spread = base * policy.jitter;
  return Math.min(policy.max_delay_ms, Math.max(0, Math.round(base - spread + 2 * spread * random())));
}

/** Resolves after `ms`, or rejects when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
