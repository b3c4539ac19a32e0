// JSON Schema (draft-07) of the uazapi webhook body (reference §1.2): top-level BaseUrl, EventType,
// instanceName, owner, token, chat{…}, message{…}; not wrapped in {event, instance, data}. Usable as a
// flow's `trigger.input`. Only what parseUazapiEvent reads is constrained; other fields pass.
// `token` is optional here on purpose: a missing or wrong token is an authentication failure (401),
// decided by the webhook's instance-token check, not a shape problem (422).
// Event types other than `messages` need only `EventType`.

import { optionalBoolean as optBool, optionalString as optStr } from '../event-schema-fields.js';

const str = { type: 'string' };

/** JSON Schema (draft-07) of a uazapi webhook body (see the file's head); the route's `eventSchema`. */
export const uazapiEventSchema: Record<string, unknown> = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'uazapi webhook event',
  type: 'object',
  required: ['EventType'],
  properties: {
    EventType: { type: 'string', minLength: 1, description: 'Event name; `messages` for a message.' },
    BaseUrl: optStr,
    instanceName: optStr,
    owner: optStr,
    token: str,
    chat: { anyOf: [{ type: 'object' }, { type: 'null' }] },
    message: {
      type: 'object',
      required: ['messageid', 'chatid'],
      properties: {
        messageid: { type: 'string', minLength: 1, description: 'Bare WhatsApp message id (dedupe key).' },
        chatid: { type: 'string', minLength: 1, description: 'JID of the conversation (phone JID, group JID or LID).' },
        sender: optStr,
        sender_pn: optStr,
        sender_lid: optStr,
        senderName: optStr,
        fromMe: optBool,
        wasSentByApi: optBool,
        isGroup: optBool,
        messageType: optStr,
        type: optStr,
        mediaType: optStr,
        text: optStr,
        content: { anyOf: [{ type: 'string' }, { type: 'object' }, { type: 'null' }] },
        messageTimestamp: { type: 'number', minimum: 0, description: 'Milliseconds since epoch.' },
      },
    },
  },
  if: { properties: { EventType: { const: 'messages' } } },
  then: { properties: { message: { type: 'object' } }, required: ['message'] },
};
