/**
 * A provider answered HTTP 429 (rate limited). The agent runner reacts to this class specifically:
 * it waits `LEADFLOW_RATE_LIMIT_WAIT_MS` and switches to the contingency model.
 * `retryAfterMs` is the provider's `retry-after-ms` / `retry-after` hint when it sent one.
 */
export class RateLimitError extends Error {
  override name = 'RateLimitError';
  readonly status = 429;
  readonly code = 'rate_limited';
  constructor(
    /** `provider:model` that was rate limited. */
    readonly model: string,
    readonly retryAfterMs: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(`${model}: rate limited (HTTP 429)${retryAfterMs !== undefined ? `, retry after ${retryAfterMs} ms` : ''}`, options);
  }
}
