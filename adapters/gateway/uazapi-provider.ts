// uazapi as a gateway provider (CONTRACT §4-§5, reference gateway-and-forms.md §1): its client
// (uazapi-client.ts), its parser (inbound.ts: parseUazapiEvent, made provider-free here) and its
// inbound route `POST /leadagent`, authenticated by the body's `token` (the `instance-token` mode).
import { MASK } from '../../engine/run/mask-secrets.js';
import type { JsonObject } from '../../engine/types.js';
import { type GatewayMessage, MEDIA_KINDS, type ParsedEvent } from './gateway-message.js';
import { isIgnored, parseUazapiEvent } from './inbound.js';
import type { InboundProvider } from './provider-inbound.js';
import type { GatewayProviderModule } from './provider-registry.js';
import { UazapiClient } from './uazapi-client.js';
import { uazapiEventSchema } from './uazapi-event-schema.js';

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

const DENIED = 'missing or unknown instance token';

/**
 * `POST /leadagent`: the body's `token` (a non-empty string) must be a registered uazapi instance's;
 * the recorded body keeps it as "***". One event per request. Its body must be a uazapi event
 * (uazapi-event-schema.ts: 422 otherwise, after the token check).
 */
export const uazapiInbound: InboundProvider = {
  provider: 'uazapi',
  authMode: 'instance-token',
  description: "the webhook secret when it is set, and always the body's `token` of a registered uazapi instance",
  path: '/leadagent',
  eventSchema: uazapiEventSchema,
  async accept(request, instances) {
    const body = request.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return { denied: DENIED };
    const token = (body as JsonObject).token;
    if (typeof token !== 'string' || token === '') return { denied: DENIED };
    const instance = await instances.byToken('uazapi', token);
    if (!instance) return { denied: DENIED };
    return { events: [{ body: { ...(body as JsonObject), token: MASK }, instance }] };
  },
};

/** The uazapi entry of the provider registry. */
export const uazapiProvider: GatewayProviderModule = {
  client: (instance, defaults) => new UazapiClient({ ...defaults, serverUrl: instance.server_url, token: instance.token }),
  parse: parseUazapiMessage,
  inbound: uazapiInbound,
};
