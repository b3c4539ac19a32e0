/**
 * A body given as one provider's webhook event does not have that event's shape. `details` lists
 * each problem with its path (e.g. `message.chatid`), like a 422 answer. Each provider's parser
 * throws it (uazapi: its subclass UazapiEventError).
 */
export class GatewayEventError extends Error {
  override name = 'GatewayEventError';
  readonly code: string = 'invalid-event';
  constructor(
    readonly provider: string,
    readonly details: Array<{ path: string; message: string }>,
  ) {
    super(`not a ${provider} event: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`);
  }
}
