import { Type } from '../../engine/typebox.js';
import { isIgnoredEvent } from '../../adapters/gateway/gateway-message.js';
import { defineServiceNode } from '../services.js';

/**
 * `gateway.parse`: the "organise" step of the agent flow, whatever the gateway. Dispatches to the
 * parser of `provider` in the host's provider registry (`ctx.services.gatewayProviders`,
 * adapters/gateway/providers.ts; `trigger.auth.provider`, as the route's
 * inbound check established it; absent or null: `uazapi`, as executions recorded before providers
 * had none). Contract of the output, the same for every provider:
 *   - a message: `{ignored: false, provider, phone, chat_id, message_id, from_me, sent_by_api,
 *     is_group, kind, text, media_ref, mimetype, file_name, sender_name, lid, base_url,
 *     instance_name, timestamp_ms}` — optional fields are null when absent; no credential;
 *   - an event that is not a lead's message: `{ignored: true, reason, provider}`.
 * A body that is not that provider's event fails the step (GatewayEventError, with each path); an
 * unregistered provider fails it too (UnknownGatewayProviderError).
 * With `instance_id` and the key-value store, a lead's message (not from the clinic, not a group) is
 * also noted by its provider when it keeps such state (GatewayProviderModule.noteInbound; Cloud: the
 * lead's 24-hour window opens). Noting is idempotent, so the step stays safe to run again. With
 * both too, a `from_me` message the provider recognises as LeadFlow's own send echoed back
 * (GatewayProviderModule.sentByApi; Evolution: the ids its sends noted) is `sent_by_api`.
 */
export default defineServiceNode({
  type: 'gateway.parse',
  services: ['gatewayProviders'],
  readOnly: true,
  description:
    "Organises an inbound WhatsApp event of any gateway provider into one normalised message: the lead's phone (digits, never a LID), the message id, who sent it (from_me, sent_by_api), whether it is a group, the kind (text, audio, image, video, document, sticker, other), its text or caption, and `media_ref` (what gateway.download takes). Events that are not messages come out as `{ignored: true, reason}`. Never outputs a credential.",
  params: Type.Object(
    {
      event: Type.Unknown({ description: 'One event as the route recorded it (`trigger.body`).', examples: ['{{ trigger.body }}'] }),
      provider: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
        default: 'uazapi',
        description: 'The provider whose event it is (`uazapi`, `evolution`, `cloud`): `trigger.auth.provider`. Absent or null: `uazapi`.',
        examples: ['{{ trigger.auth.provider }}', 'uazapi'],
      }),
      instance_id: Type.Optional(
        Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
          default: null,
          description:
            "The instance the event came to (`trigger.auth.instance_id`): the provider notes the lead's message under it (Cloud: the 24-hour window). Absent or null: nothing is noted.",
          examples: ['{{ trigger.auth.instance_id }}'],
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{ignored: false, provider, phone, chat_id, message_id, from_me, sent_by_api, is_group, kind, text, media_ref, mimetype, file_name, sender_name, lid, base_url, instance_name, timestamp_ms}` (absent optional fields are null), or `{ignored: true, reason, provider}`.',
  },
  examples: [
    {
      title: 'Organise the inbound event of whichever route it came on',
      step: { id: 'msg', type: 'gateway.parse', params: { event: '{{ trigger.body }}', provider: '{{ trigger.auth.provider }}' } },
    },
  ],
  async run(params, ctx) {
    const providers = ctx.services.gatewayProviders;
    const provider = params.provider ?? 'uazapi';
    const parsed = providers.parse(provider, params.event);
    if (isIgnoredEvent(parsed)) {
      // A sender the provider named without a phone (a LID, a user id): kept in the record, and said.
      if (parsed.ignored.startsWith('unmatched'))
        ctx.log('warn', 'inbound message from a sender without a phone: not matched to a lead', { provider });
      return { ignored: true, reason: parsed.ignored, provider };
    }
    const module = providers.get(provider);
    const kv = ctx.services.kv;
    if (module.noteInbound && kv && typeof params.instance_id === 'number' && !parsed.from_me)
      await module.noteInbound(parsed, params.instance_id, kv);
    if (module.sentByApi && kv && typeof params.instance_id === 'number' && parsed.from_me && !parsed.sent_by_api)
      parsed.sent_by_api = await module.sentByApi(parsed, params.instance_id, kv);
    return {
      ignored: false,
      ...parsed,
      mimetype: parsed.mimetype ?? null,
      file_name: parsed.file_name ?? null,
      sender_name: parsed.sender_name ?? null,
      lid: parsed.lid ?? null,
    };
  },
});
