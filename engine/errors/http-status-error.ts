import type { JsonValue } from '../types.js';

/**
 * An HTTP call answered with a non-2xx status. Carries the status and the response body
 * (parsed JSON when it is JSON, else text, cut to 4 KiB) so `retry.when` and `on_error` can look at them.
 */
export class HttpStatusError extends Error {
  override name = 'HttpStatusError';
  constructor(
    readonly status: number,
    readonly body: JsonValue,
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(`HTTP ${status} from ${url}`, options);
  }
}
