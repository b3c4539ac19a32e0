/**
 * The gateway could not be reached or dropped the connection (refused, reset, DNS ...). `code` is
 * the system error code when known (e.g. `ECONNREFUSED`), else `network`.
 */
export class GatewayNetworkError extends Error {
  override name = 'GatewayNetworkError';
  constructor(
    /** Origin and path of the call. */
    readonly url: string,
    readonly code: string,
    options?: { cause?: unknown },
  ) {
    super(`gateway unreachable for POST ${url} (${code})`, options);
  }
}
