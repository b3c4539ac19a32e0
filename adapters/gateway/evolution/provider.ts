// Evolution API v2 as a gateway provider (CONTRACT §11; reference whatsapp-providers.md §1): the
// standalone pieces of this folder adapted to the core's interfaces, nothing re-implemented.
//   client   EvolutionClient (client.ts) from the instance row: server_url, token (the
//            instance API key), external_id (the instance name); the core's defaults as given.
//   parse    parseEvolutionEvent (events.ts) as a GatewayMessage: `media_ref` the message
//            id for a media kind, null otherwise. Every event but `messages.upsert` (`send.message`,
//            `messages.update` statuses, `connection.update`, …) is `{ignored}`: the flow answers
//            200 `{status: ignored}` and nothing else happens, as for uazapi's non-message events.
//            A body that is not an Evolution event throws GatewayEventError('evolution', details).
//   inbound  `POST /leadagent/evolution`, auth mode `evolution-instance` (auth.ts: evolutionInbound).
// Sent by the API vs typed on the phone: Evolution never delivers its own API sends as
// `messages.upsert` (they fire `send.message`, ignored here), so every `messages.upsert` with
// `fromMe` was typed by a person on another device of the clinic's account (events.ts
// head: what Evolution cannot tell apart).
import { GatewayEventError } from '../errors/gateway-event-error.js';
import type { GatewayMessage, ParsedEvent } from '../gateway-message.js';
import type { GatewayProviderModule } from '../provider-registry.js';
import { evolutionInbound } from './auth.js';
import { evolutionClientFactory } from './client.js';
import { EvolutionEventError } from './errors.js';
import { isIgnoredEvolutionEvent, parseEvolutionEvent } from './events.js';

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

/** The Evolution entry of the provider registry. */
export const evolutionProvider: GatewayProviderModule = {
  client: (instance, defaults) => evolutionClientFactory(defaults)({ ...instance, external_id: instance.external_id ?? '' }),
  parse: parseEvolutionMessage,
  inbound: evolutionInbound,
};
