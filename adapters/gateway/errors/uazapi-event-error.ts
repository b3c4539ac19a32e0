/**
 * A body given as a uazapi webhook event does not have the event's shape. `details` lists each
 * problem with its path (e.g. `message.chatid`), like a 422 answer.
 */
export class UazapiEventError extends Error {
  override name = 'UazapiEventError';
  readonly code = 'invalid-event';
  constructor(readonly details: Array<{ path: string; message: string }>) {
    super(`not a uazapi event: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`);
  }
}
