import { Type } from '../../engine/typebox.js';
import { defineNode } from '../../engine/types.js';

/**
 * `uazapi.parse`: the "organise" step of the agent flow (original spec §4.1 step 1).
 * Contract of the output:
 *   - a message: `{ignored: false, phone, chat_id, message_id, from_me, sent_by_api, is_group, kind,
 *     text, mimetype, file_name, sender_name, base_url, instance_name, timestamp_ms}` — optional fields
 *     are null when absent, so expressions can test them; the instance token is NOT in the output
 *     (it is a credential; look the instance up from `trigger.body.token`, a masked parameter).
 *   - an event that is not a lead's message (other EventType, status broadcast, LID without phone):
 *     `{ignored: true, reason}`.
 * A body that is not a uazapi event at all fails the step (UazapiEventError, status 422).
 */
export default defineNode({
  type: 'uazapi.parse',
  readOnly: true,
  description:
    "Organises a uazapi webhook event (the gateway of the clinics' WhatsApp): the lead's phone (digits, never a LID), the message id, who sent it (from_me, sent_by_api), whether it is a group, the kind (text, audio, image, video, document, sticker, other) and its text or caption. Events that are not messages come out as `{ignored: true, reason}`. The instance token is never part of the output.",
  params: Type.Object(
    { event: Type.Unknown({ description: 'The webhook body as the gateway sent it.', examples: ['{{ trigger.body }}'] }) },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{ignored: false, phone, chat_id, message_id, from_me, sent_by_api, is_group, kind, text, mimetype, file_name, sender_name, base_url, instance_name, timestamp_ms}` (absent optional fields are null), or `{ignored: true, reason}`.',
  },
  examples: [{ title: 'Organise the inbound event', step: { id: 'msg', type: 'uazapi.parse', params: { event: '{{ trigger.body }}' } } }],
  async run(params) {
    // The gateway adapters load on the first run: describing or validating flows never needs them.
    const { isIgnored, parseUazapiEvent } = await import('../../adapters/gateway/uazapi/events.js');
    const parsed = parseUazapiEvent(params.event);
    if (isIgnored(parsed)) return { ignored: true, reason: parsed.ignored };
    const { instance_token: _token, ...message } = parsed;
    void _token;
    return {
      ignored: false,
      ...message,
      mimetype: message.mimetype ?? null,
      file_name: message.file_name ?? null,
      sender_name: message.sender_name ?? null,
      lid: message.lid ?? null,
    };
  },
});
