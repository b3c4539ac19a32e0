/** A gateway call got no complete answer within its time limit (`timeoutMs`, per attempt). */
export class GatewayTimeoutError extends Error {
  override name = 'GatewayTimeoutError';
  readonly code = 'timeout';
  constructor(
    /** Origin and path of the call. */
    readonly url: string,
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`gateway did not answer POST ${url} within ${timeoutMs} ms`, options);
  }
}
