/**
 * A model answered without any usable text (blank content, or only tool calls when text was
 * required). Never turned into a reply: callers treat it as a failure and try the next option.
 */
export class EmptyOutputError extends Error {
  override name = 'EmptyOutputError';
  readonly code = 'empty_output';
  constructor(
    /** `provider:model` that answered empty. */
    readonly model: string,
    options?: { cause?: unknown },
  ) {
    super(`${model}: empty output`, options);
  }
}
