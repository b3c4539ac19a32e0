// Releasing a lock when the key-value store is away for a moment (a Redis restart, a network blip):
// the release is tried again until the store answers, so the key's next holder (the lead's next
// message) does not wait out the lock's whole life.
//
// Contract: resolves once the lock is released (or was no longer this holder's), or once `lifeMs`
// has passed since the first attempt (by then the lock has expired on its own: it was last renewed
// at most lifeMs/2 before), or when `signal` aborts (a process shutting down: the lock expires on its
// own). Never rejects. The release is compare-and-delete on the holder's token, so a late release
// never frees a lock another holder took after it expired.
import { setTimeout as delay } from 'node:timers/promises';
import type { KeyValue } from '../../../adapters/kv/key-value.js';

/** First pause between two release attempts, ms; doubled after each failure up to RELEASE_RETRY_MAX_MS. */
export const RELEASE_RETRY_FIRST_MS = 100;
/** Longest pause between two release attempts, ms. */
export const RELEASE_RETRY_MAX_MS = 2_000;

/** Where a failed release is reported: once when the first attempt fails, once when it finally goes through or gives up. */
export type ReleaseLog = (level: 'warn' | 'info', message: string, fields: Record<string, unknown>) => void;

/** Releases `key` held by `token`, trying again while the store fails (see the file's head). */
export async function releaseLockPatiently(
  kv: KeyValue,
  key: string,
  token: string,
  lifeMs: number,
  log: ReleaseLog,
  signal?: AbortSignal,
): Promise<void> {
  const started = Date.now();
  let pauseMs = RELEASE_RETRY_FIRST_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      await kv.releaseLock(key, token);
      if (attempt > 1) log('info', 'lock released once the key-value store answered again', { key, attempts: attempt });
      return;
    } catch (err) {
      if (attempt === 1) log('warn', 'releasing the lock failed; trying again until the key-value store answers', { key, error: (err as Error).message });
      const left = lifeMs - (Date.now() - started);
      if (left <= 0 || signal?.aborted) {
        log('warn', 'gave up releasing the lock; it expires on its own', { key, attempts: attempt, error: (err as Error).message });
        return;
      }
      const stopped = await delay(Math.min(pauseMs, left), false, { signal }).catch(() => true);
      if (stopped) {
        log('warn', 'gave up releasing the lock (shutting down); it expires on its own', { key, attempts: attempt });
        return;
      }
      pauseMs = Math.min(pauseMs * 2, RELEASE_RETRY_MAX_MS);
    }
  }
}
