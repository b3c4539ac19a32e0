/**
 * Thrown through the walk when the execution was cancelled in the store (a flow.cancel step, or a
 * newer start of its flow under the same key, in any process): no further step runs and the
 * execution ends `cancelled`, with the stop reason the store holds. Not a failure.
 */
export class CancelSignal extends Error {
  override name = 'CancelSignal';
  constructor(readonly executionId: string) {
    super(`execution ${executionId} was cancelled`);
  }
}
