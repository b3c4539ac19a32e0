// Maps errors thrown by the openai and @anthropic-ai/sdk clients to our typed errors. Both SDKs
// share the shape (APIError with `status` and `headers`, APIConnectionError, APIConnectionTimeoutError,
// APIUserAbortError), so one mapping serves both; it duck-types instead of importing either SDK.
import { ProviderError } from './provider-error.js';
import { RateLimitError } from './rate-limit-error.js';

/** Longest provider error text kept in our message. */
const MAX_MESSAGE = 300;

/** The provider's `retry-after-ms` or `retry-after` (seconds or HTTP date) in ms; undefined when absent or unparsable. */
export function retryAfterMs(headers: unknown, now = Date.now()): number | undefined {
  const get = (name: string): string | null | undefined =>
    headers && typeof (headers as Headers).get === 'function'
      ? (headers as Headers).get(name)
      : (headers as Record<string, string> | undefined)?.[name];
  const ms = Number(get('retry-after-ms'));
  if (get('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Our error for what an SDK call threw. An abort requested by the caller's signal is rethrown
 * unchanged (it is not a provider failure). `modelRef` is `provider:model`.
 */
export function mapSdkError(err: unknown, modelRef: string, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason ?? err;
  if (err instanceof RateLimitError || err instanceof ProviderError) return err;
  const e = err as { name?: string; status?: unknown; headers?: unknown; message?: string; error?: unknown };
  const status = typeof e?.status === 'number' ? e.status : undefined;
  if (status === 429) return new RateLimitError(modelRef, retryAfterMs(e.headers), { cause: err });
  const name = e?.name ?? '';
  const text = (e?.message ?? String(err)).slice(0, MAX_MESSAGE);
  if (status !== undefined) return new ProviderError(modelRef, `HTTP ${status}: ${text}`, status, 'http', { cause: err });
  if (name === 'APIConnectionTimeoutError' || /timed? ?out/i.test(text))
    return new ProviderError(modelRef, `timed out: ${text}`, undefined, 'timeout', { cause: err });
  if (name === 'APIUserAbortError') return new ProviderError(modelRef, 'request aborted', undefined, 'aborted', { cause: err });
  if (name === 'APIConnectionError')
    return new ProviderError(modelRef, `connection failed: ${text}`, undefined, 'connection', { cause: err });
  return new ProviderError(modelRef, text, undefined, 'unexpected', { cause: err });
}
