import type { StepError } from '../types.js';

/** A step failed after its retries and its `on_error` is `fail`: names the flow, step, node type and attempt. */
export class StepFailedError extends Error {
  override name = 'StepFailedError';
  constructor(
    readonly flow: string,
    readonly stepId: string,
    readonly nodeType: string,
    readonly attempt: number,
    readonly detail: StepError,
    options?: { cause?: unknown },
  ) {
    super(`flow "${flow}", step "${stepId}" (${nodeType}), attempt ${attempt}: ${detail.message}`, options);
  }
}
