// JSON Schema (draft-07) of an Evolution API v2 webhook body: the envelope `{event, instance, data,
// destination, date_time, sender, server_url, apikey}` (evolution-foundation/evolution-api tag 2.3.7,
// src/api/integrations/event/webhook/webhook.controller.ts `emit`; reference whatsapp-providers.md
// §1.3). Usable as a flow's `trigger.input`. Only what parseEvolutionEvent reads is constrained;
// other fields pass. `apikey` is not required: it is null unless the server exposes instance tokens
// (AUTHENTICATION_EXPOSE_IN_FETCH_INSTANCES), and a missing or wrong one is an authentication failure
// (401, auth.ts), not a shape problem (422).
// Events other than `messages.upsert` need only `event` and `instance`.

import { optionalBoolean as optBool, optionalString as optStr } from '../event-schema-fields.js';

/** `messageTimestamp`: seconds, a number (prepareMessage converts Long) or a numeric string; a protobuf Long `{low, high}` is tolerated. */
const timestamp = {
  anyOf: [
    { type: 'number', minimum: 0 },
    { type: 'string', pattern: '^\\d+$' },
    { type: 'object', required: ['low'], properties: { low: { type: 'number' }, high: { type: 'number' } } },
    { type: 'null' },
  ],
  description: 'Seconds since epoch.',
};

/** JSON Schema (draft-07) of an Evolution API v2 webhook body (see the file's head); the route's `eventSchema`. */
export const evolutionEventSchema: Record<string, unknown> = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Evolution API v2 webhook event',
  type: 'object',
  required: ['event', 'instance'],
  properties: {
    event: { type: 'string', minLength: 1, description: 'Event name, lower-case dotted: `messages.upsert` for a new message.' },
    instance: { type: 'string', minLength: 1, description: 'Instance name (the instance row’s `external_id`).' },
    destination: optStr,
    date_time: optStr,
    sender: optStr,
    server_url: optStr,
    apikey: optStr,
    data: {},
  },
  if: { required: ['event'], properties: { event: { const: 'messages.upsert' } } },
  then: {
    required: ['data'],
    properties: {
      data: {
        type: 'object',
        required: ['key'],
        properties: {
          key: {
            type: 'object',
            required: ['remoteJid', 'id'],
            properties: {
              remoteJid: {
                type: 'string',
                minLength: 1,
                description: 'JID of the chat: phone JID, `@lid`, `@g.us` or `status@broadcast`.',
              },
              remoteJidAlt: optStr,
              senderPn: optStr,
              previousRemoteJid: optStr,
              participant: optStr,
              participantAlt: optStr,
              addressingMode: optStr,
              fromMe: optBool,
              id: { type: 'string', minLength: 1, description: 'WhatsApp message id (dedupe key, media reference).' },
            },
          },
          pushName: optStr,
          status: optStr,
          message: { anyOf: [{ type: 'object' }, { type: 'null' }] },
          messageType: optStr,
          messageTimestamp: timestamp,
          source: optStr,
        },
      },
    },
  },
};
