/**
 * The gateway answered 2xx, but not with what the call needs: not JSON, not an object, a missing or
 * undecodable `base64Data`, or more bytes than allowed. Not retried (a send may have happened).
 */
export class GatewayResponseError extends Error {
  override name = 'GatewayResponseError';
  readonly code = 'gateway-response';
  constructor(
    /** Origin and path of the call. */
    readonly url: string,
    readonly status: number,
    problem: string,
    options?: { cause?: unknown },
  ) {
    super(`unusable answer from POST ${url} (HTTP ${status}): ${problem}`, options);
  }
}
