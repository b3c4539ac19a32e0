import type { JsonValue } from '../../../engine/types.js';

/**
 * The gateway answered with a non-2xx status. `body` is the parsed JSON answer (uazapi sends
 * `{"error": "..."}`), else its text cut to 4 KiB, with the instance token removed. `retryAfterMs`
 * is the Retry-After header in ms when one was sent. Seen by `retry.when` as `error.status`/`error.body`.
 */
export class GatewayHttpError extends Error {
  override name = 'GatewayHttpError';
  readonly code = 'gateway-http';
  constructor(
    readonly status: number,
    readonly body: JsonValue,
    /** Origin and path of the call (no query, no credentials). */
    readonly url: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    const detail = body && typeof body === 'object' && !Array.isArray(body) && typeof body.error === 'string' ? `: ${body.error}` : '';
    super(`gateway answered HTTP ${status} to POST ${url}${detail}`, options);
  }
}
