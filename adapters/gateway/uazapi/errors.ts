import { GatewayEventError } from '../errors/gateway-event-error.js';

/**
 * A body given as a uazapi webhook event does not have the event's shape. `details` lists each
 * problem with its path (e.g. `message.chatid`), like a 422 answer.
 */
export class UazapiEventError extends GatewayEventError {
  override name = 'UazapiEventError';
  constructor(details: Array<{ path: string; message: string }>) {
    super('uazapi', details);
  }
}
