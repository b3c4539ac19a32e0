/**
 * A body given as an Evolution API v2 webhook event does not have the event's shape. `details`
 * lists each problem with its path (e.g. `data.key.id`), like a 422 answer.
 */
export class EvolutionEventError extends Error {
  override name = 'EvolutionEventError';
  readonly code = 'invalid-event';
  /** The HTTP status this problem answers with. */
  readonly status = 422;
  constructor(readonly details: Array<{ path: string; message: string }>) {
    super(`not an Evolution event: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`);
  }
}
