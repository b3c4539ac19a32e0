// The WhatsApp Cloud API as a gateway provider (CONTRACT §11; reference whatsapp-providers.md §2):
//   client        CloudClient (client.ts) with the core's defaults, behind CloudGatewayClient
//                 (the 24-hour rule for a text that names a template; the window read on `defaults.kv`)
//   parse         one event body (the envelope reduced to one message, as auth.ts splits a
//                 request) -> the normalised message: parseCloudWebhook's first message, `media_ref`
//                 the media id, the lead's business-scoped user id (BSUID) as `lid`; a body holding
//                 no message (statuses only, a system message, a user without a phone) ->
//                 {ignored: why}; a body that is not a Cloud webhook -> GatewayEventError (with paths)
//   inbound       POST /leadagent/cloud (`cloud-signature`) and its verification GET (auth.ts)
//   noteInbound   each message a lead sent opens (or extends) that lead's 24-hour window on the
//                 instance (CustomerWindow, keyed by instance id and phone, at the message's time)
//   forget        the lead's window, and the notes of texts concerning the lead (sent-text-notes.ts)
// What the Cloud API can tell: API sends never come back as messages (only as statuses), so nothing
// inbound is `sent_by_api`; a message typed by a person of the clinic arrives only on a Coexistence
// number (a WhatsApp Business app number also on the Cloud API), as an `smb_message_echoes` echo:
// `from_me` true, the takeover and the operator's commands. Without Coexistence a message typed on the
// clinic's phone cannot reach LeadFlow at all.
import { CloudEventError } from './errors.js';
import { GatewayEventError } from '../errors/gateway-event-error.js';
import type { GatewayMessage, ParsedEvent } from '../gateway-message.js';
import type { GatewayProviderModule } from '../provider-registry.js';
import { cloudClientFactory } from './client.js';
import { type CloudWebhook, parseCloudWebhook } from './events.js';
import { CloudGatewayClient } from './windowed-client.js';
import { cloudInbound } from './auth.js';
import { CustomerWindow } from './customer-window.js';
import { SentTextNotes } from './sent-text-notes.js';

/** One Cloud API event body as the normalised message (see the head comment). */
export function parseCloudMessage(event: unknown, now: number = Date.now()): ParsedEvent {
  let webhook: CloudWebhook;
  try {
    webhook = parseCloudWebhook(event, now);
  } catch (err) {
    if (err instanceof CloudEventError) throw new GatewayEventError('cloud', err.details);
    throw err;
  }
  const first = webhook.messages[0];
  if (!first) {
    const why = webhook.ignored[0] ?? (webhook.statuses > 0 ? `${webhook.statuses} status update(s)` : 'no message in the event');
    return { ignored: why };
  }
  const { phone_number_id: _id, user_id, voice: _voice, media_ref, ...message } = first;
  void _id;
  void _voice;
  const out: GatewayMessage = {
    ...message,
    provider: 'cloud',
    media_ref: media_ref ?? null,
    ...(user_id ? { lid: user_id } : {}),
  };
  return out;
}

/** The Cloud API entry of the provider registry. */
export const cloudProvider: GatewayProviderModule = {
  client(instance, defaults) {
    const { kv, now, ...http } = defaults;
    const client = cloudClientFactory(http)({
      server_url: instance.server_url,
      token: instance.token,
      external_id: instance.external_id ?? '',
    });
    return new CloudGatewayClient(client, {
      templates: instance.templates,
      ...(instance.id !== undefined ? { instanceId: instance.id } : {}),
      ...(kv ? { kv } : {}),
      ...(now ? { now } : {}),
      ...(http.logger ? { logger: http.logger } : {}),
    });
  },
  parse: parseCloudMessage,
  inbound: cloudInbound,
  async noteInbound(message, instanceId, kv) {
    if (message.from_me || message.is_group) return;
    await new CustomerWindow(kv).noteInbound(instanceId, message.phone, message.timestamp_ms);
  },
  async forget(instanceId, phone, kv) {
    return (await new CustomerWindow(kv).forget(instanceId, phone)) + (await new SentTextNotes(kv).forget(instanceId, phone));
  },
};
