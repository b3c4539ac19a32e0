/** Resolved parameters of a step do not match its node's schema (e.g. an expression produced a string where a number is due). */
export class ParamValidationError extends Error {
  override name = 'ParamValidationError';
  readonly code = 'invalid-params';
  constructor(
    message: string,
    readonly details: Array<{ path: string; message: string }>,
  ) {
    super(message);
  }
}
