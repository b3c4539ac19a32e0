// Following an execution driven by another process (queue mode) by reading the store: its webhook
// answer, where its drive ended, its end. Polls back off from 10 ms to 200 ms between reads.
import type { ExecutionHandle, WebhookResponse } from '../engine-options.js';
import { isFinalStatus } from '../statuses.js';
import type { ExecutionStore } from '../store/execution-store.js';
import type { ExecutionRecord } from '../types.js';

/** Longest a queued execution's webhook answer is awaited by polling the store, ms. */
export const MAX_RESPONSE_POLL_MS = 300_000;
/** Between two reads of waitForEnd's poll, ms. */
const END_POLL_MS = 50;

/**
 * Answer and end of execution `id` driven by another process, read from `store`: `responded` when a
 * respond step answered (or it ended without one), `settled` when it waits or ended. Each rejects
 * after MAX_RESPONSE_POLL_MS, or once `signal` aborts; nobody need await them (no unhandled rejection).
 */
export function watchStored(store: ExecutionStore, id: string, signal: AbortSignal): Pick<ExecutionHandle, 'responded' | 'settled'> {
  const started = Date.now();
  const poll = <T>(pick: (r: ExecutionRecord) => T | undefined): Promise<T> =>
    new Promise((resolve, reject) => {
      let delay = 10;
      const look = () => {
        store.get(id).then((record) => {
          const value = record ? pick(record) : undefined;
          if (value !== undefined) return resolve(value);
          if (Date.now() - started > MAX_RESPONSE_POLL_MS || signal.aborted)
            return reject(new Error(`execution ${id}: no answer within ${MAX_RESPONSE_POLL_MS} ms`));
          delay = Math.min(delay * 1.5, 200);
          setTimeout(look, delay).unref();
        }, reject);
      };
      look();
    });
  const responded = poll<{ value: WebhookResponse | undefined }>((r) =>
    r.response ? { value: r.response } : isFinalStatus(r.status) ? { value: undefined } : undefined,
  ).then((r) => r.value);
  const settled = poll((r) => (isFinalStatus(r.status) || (r.status === 'waiting' && r.steps.length > 0) ? r : undefined));
  // Nobody may await one of them: keep an unanswered poll from being an unhandled rejection.
  responded.catch(() => undefined);
  settled.catch(() => undefined);
  return { responded, settled };
}

/**
 * Reads execution `id` from `store` and calls `resolve` with it once it has a final status; while
 * it has not, reads again every END_POLL_MS when `repeat` holds (another process may drive it) and
 * `signal` has not aborted. A failed read calls `reject`.
 */
export function lookForEnd(
  store: ExecutionStore,
  id: string,
  repeat: boolean,
  signal: AbortSignal,
  resolve: (record: ExecutionRecord) => void,
  reject: (err: unknown) => void,
): void {
  const look = (): Promise<void> =>
    store.get(id).then((current) => {
      if (current && isFinalStatus(current.status)) return resolve(current);
      if (repeat && !signal.aborted) setTimeout(() => void look().catch(reject), END_POLL_MS).unref();
    }, reject);
  void look();
}
