/** A trigger body or call-flow input does not match the flow's `trigger.input` schema (HTTP 422). */
export class InputValidationError extends Error {
  override name = 'InputValidationError';
  readonly code = 'invalid-input';
  constructor(
    readonly flow: string,
    readonly details: Array<{ path: string; message: string }>,
  ) {
    super(`input of flow "${flow}" is invalid: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`);
  }
}
