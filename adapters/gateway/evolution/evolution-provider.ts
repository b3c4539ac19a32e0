// Evolution API v2 as a gateway provider (CONTRACT §11; reference whatsapp-providers.md §1): the
// standalone pieces of this folder adapted to the core's interfaces, nothing re-implemented.
//   client   EvolutionClient (evolution-client.ts) from the instance row: server_url, token (the
//            instance API key), external_id (the instance name); the core's defaults as given.
//   parse    parseEvolutionEvent (evolution-events.ts) as a GatewayMessage: `media_ref` the message
//            id for a media kind, null otherwise. Every event but `messages.upsert` (`send.message`,
//            `messages.update` statuses, `connection.update`, …) is `{ignored}`: the flow answers
//            200 `{status: ignored}` and nothing else happens, as for uazapi's non-message events.
//            A body that is not an Evolution event throws GatewayEventError('evolution', details).
//   inbound  `POST /leadagent/evolution`, auth mode `evolution-instance`: authorizeEvolutionWebhook
//            (evolution-auth.ts) with its lookup served by the InboundInstanceLookup's
//            `byExternalId('evolution', body.instance)`: the JWT Evolution signs with the instance's
//            `app_secret` as jwt_key (Authorization: Bearer, HS256, unexpired), or, for an instance
//            without app_secret, the body's `apikey` equal to its token (constant time). One event
//            per request, its body recorded with `apikey` as "***". A malformed body answers 422
//            (evolutionEventSchema) after the check.
// Sent by the API vs typed on the phone: Evolution never delivers its own API sends as
// `messages.upsert` (they fire `send.message`, ignored here), so every `messages.upsert` with
// `fromMe` was typed by a person on another device of the clinic's account (evolution-events.ts
// head: what Evolution cannot tell apart).
import { GatewayEventError } from '../errors/gateway-event-error.js';
import type { GatewayMessage, ParsedEvent } from '../gateway-message.js';
import type { InboundInstance, InboundProvider } from '../provider-inbound.js';
import type { GatewayProviderModule } from '../provider-registry.js';
import { authorizeEvolutionWebhook } from './evolution-auth.js';
import { evolutionClientFactory } from './evolution-client.js';
import { EvolutionEventError } from './evolution-event-error.js';
import { evolutionEventSchema } from './evolution-event-schema.js';
import { isIgnoredEvolutionEvent, parseEvolutionEvent } from './evolution-events.js';

/** An Evolution webhook body as the normalised message (or `{ignored: reason}`); see the file's head. */
export function parseEvolutionMessage(event: unknown, now: number = Date.now()): ParsedEvent {
  let parsed: ReturnType<typeof parseEvolutionEvent>;
  try {
    parsed = parseEvolutionEvent(event, now);
  } catch (err) {
    if (err instanceof EvolutionEventError) throw new GatewayEventError('evolution', err.details);
    throw err;
  }
  if (isIgnoredEvolutionEvent(parsed)) return { ignored: parsed.ignored };
  const { media_ref, ...message } = parsed;
  const out: GatewayMessage = { ...message, media_ref: media_ref ?? null };
  return out;
}

/** `POST /leadagent/evolution` (see the file's head). */
export const evolutionInbound: InboundProvider = {
  provider: 'evolution',
  authMode: 'evolution-instance',
  description:
    "the webhook secret when it is set, and the Evolution instance named by the body's `instance`: the HS256 JWT Evolution signs with its app_secret as jwt_key (Authorization: Bearer), or, without app_secret, the body's `apikey` equal to its token",
  path: '/leadagent/evolution',
  eventSchema: evolutionEventSchema,
  async accept(request, instances) {
    let found: InboundInstance | undefined;
    const grant = await authorizeEvolutionWebhook(request.body, request.header('authorization'), async (name) => {
      found = await instances.byExternalId('evolution', name);
      if (!found) return undefined;
      return { instance_id: found.id, clinica_id: found.clinica_id, token: found.token, app_secret: found.app_secret };
    });
    if ('denied' in grant) return grant;
    if (!found) return { denied: 'unknown Evolution instance' };
    return { events: [{ body: grant.body, instance: found }] };
  },
};

/** The Evolution entry of the provider registry. */
export const evolutionProvider: GatewayProviderModule = {
  client: (instance, defaults) => evolutionClientFactory(defaults)({ ...instance, external_id: instance.external_id ?? '' }),
  parse: parseEvolutionMessage,
  inbound: evolutionInbound,
};
