/**
 * A provider call failed for any reason other than a rate limit: HTTP error status (`status`),
 * connection failure or timeout (`status` undefined, `code` 'connection' | 'timeout'), a missing
 * API key (`code` 'config'), or an answer we cannot use (`code` 'bad-response').
 * The message never contains an API key or request content, only the provider's error text.
 */
export class ProviderError extends Error {
  override name = 'ProviderError';
  constructor(
    /** `provider:model` that failed. */
    readonly model: string,
    message: string,
    readonly status: number | undefined,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(`${model}: ${message}`, options);
  }
}
