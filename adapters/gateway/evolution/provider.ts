// Evolution API v2 as a gateway provider (CONTRACT §11; reference whatsapp-providers.md §1): the
// standalone pieces of this folder adapted to the core's interfaces, nothing re-implemented.
//   client     EvolutionClient (client.ts) from the instance row: server_url, token (the
//              instance API key), external_id (the instance name); the core's defaults as given.
//              With the key-value store (`defaults.kv`) and the row's id, the id of every message
//              it sends is noted (EvolutionSentIds, sent-ids.ts: 10 minutes, at most 1024 per instance).
//   parse      parseEvolutionEvent (events.ts) as a GatewayMessage: `media_ref` the message
//              id for a media kind, null otherwise. Every event but `messages.upsert` (`send.message`,
//              `messages.update` statuses, `connection.update`, …) is `{ignored}`: the flow answers
//              200 `{status: ignored}` and nothing else happens, as for uazapi's non-message events.
//              A body that is not an Evolution event throws GatewayEventError('evolution', details).
//   sentByApi  a `fromMe` message whose id is one the instance's sends noted is LeadFlow's own send
//              echoed (gateway.parse then sets `sent_by_api`: the flow answers `sent by the clinic`
//              and nothing pauses); any other `fromMe` message was typed by a person (takeover).
//   inbound    `POST /leadagent/evolution`, auth mode `evolution-instance` (auth.ts: evolutionInbound).
// Sent by the API vs typed on the phone: Evolution does not deliver its own API sends as
// `messages.upsert` (they fire `send.message`, ignored here), except servers that echo them (issue
// #1340): the noted ids tell those echoes apart (events.ts head: what Evolution cannot tell apart).
import { GatewayEventError } from '../errors/gateway-event-error.js';
import type { GatewayMessage, ParsedEvent } from '../gateway-message.js';
import type { GatewayProviderModule } from '../provider-registry.js';
import { evolutionInbound } from './auth.js';
import { EvolutionClient } from './client.js';
import { EvolutionEventError } from './errors.js';
import { isIgnoredEvolutionEvent, parseEvolutionEvent } from './events.js';
import { EvolutionSentIds } from './sent-ids.js';

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
  client(instance, defaults) {
    const { kv, ...http } = defaults;
    const id = instance.id;
    const sentIds = kv && id !== undefined ? new EvolutionSentIds(kv) : undefined;
    return new EvolutionClient({
      ...http,
      serverUrl: instance.server_url,
      token: instance.token,
      instanceName: instance.external_id ?? '',
      ...(sentIds && id !== undefined
        ? {
            noteSent: (messageId: string) => sentIds.note(id, messageId),
            noteSending: (number: string, text: string) => sentIds.noteSending(id, number, text),
          }
        : {}),
    });
  },
  parse: parseEvolutionMessage,
  inbound: evolutionInbound,
  // Its id noted from the send's answer, or (an echo overtaking the answer) its text noted before the call.
  sentByApi: async (message, instanceId, kv) => {
    const ids = new EvolutionSentIds(kv);
    if (await ids.has(instanceId, message.message_id)) return true;
    return message.phone !== null && ids.isSending(instanceId, message.phone, message.text ?? '');
  },
};
