// uazapi as a gateway provider (CONTRACT §4-§5, reference gateway-and-forms.md §1): its client
// (client.ts), its parser (events.ts: parseUazapiEvent, made provider-free here) and its inbound
// route `POST /leadagent` (auth.ts), authenticated by the body's `token` (the `instance-token` mode).
import { type GatewayMessage, MEDIA_KINDS, type ParsedEvent } from '../gateway-message.js';
import { isIgnored, parseUazapiEvent } from './events.js';
import type { GatewayProviderModule } from '../provider-registry.js';
import { UazapiClient } from './client.js';
import { uazapiInbound } from './auth.js';

/**
 * A uazapi event as the normalised message: parseUazapiEvent's fields without the token, plus
 * `provider: 'uazapi'` and `media_ref` (the message id, for a media kind; null otherwise).
 */
export function parseUazapiMessage(event: unknown, now: number = Date.now()): ParsedEvent {
  const parsed = parseUazapiEvent(event, now);
  if (isIgnored(parsed)) return parsed;
  const { instance_token: _token, ...message } = parsed;
  void _token;
  const out: GatewayMessage = {
    provider: 'uazapi',
    ...message,
    media_ref: MEDIA_KINDS.includes(message.kind) ? message.message_id : null,
  };
  return out;
}

/** The uazapi entry of the provider registry. */
export const uazapiProvider: GatewayProviderModule = {
  client: (instance, defaults) => new UazapiClient({ ...defaults, serverUrl: instance.server_url, token: instance.token }),
  parse: parseUazapiMessage,
  inbound: uazapiInbound,
};
