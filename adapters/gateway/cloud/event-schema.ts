// JSON Schema (draft-07) of a WhatsApp Cloud API webhook body (reference whatsapp-providers.md
// §2.3-2.6): `{object: "whatsapp_business_account", entry: [{id, changes: [{field, value}]}]}`.
// Usable as a flow's `trigger.input`. Only what parseCloudWebhook reads is constrained; other fields
// pass. Every change has a `field` and an object `value`, whose lists (`messages`, `message_echoes`,
// `statuses`, `contacts`, `errors`) are arrays; a value holding messages, echoes or statuses names its
// business number (`metadata.phone_number_id`); each message or echo has an `id` and a `type`, and a
// `timestamp` (when given) of seconds as a string or a number. No `if`/`then`: a 422 lists only the
// problems themselves.
// The one check of a Cloud body's shape: parseCloudWebhook (events.ts) and the route's `eventSchema`
// (auth.ts: a signed body that is not a Cloud webhook is answered 422 before anything is recorded).

const nonEmpty = { type: 'string', minLength: 1 };

/** A message (`value.messages[]`) or a Coexistence echo (`value.message_echoes[]`). */
const message = {
  type: 'object',
  required: ['id', 'type'],
  properties: {
    id: { ...nonEmpty, description: 'The message id (`wamid.…`).' },
    type: { ...nonEmpty, description: 'text, audio, image, video, document, sticker, reaction, system, …' },
    timestamp: { type: ['string', 'number'], description: 'Seconds since epoch.' },
  },
};

/** What a change that holds messages, echoes or statuses must say: the business number they are about. */
const namesItsNumber = {
  required: ['metadata'],
  properties: {
    metadata: {
      type: 'object',
      required: ['phone_number_id'],
      properties: { phone_number_id: { ...nonEmpty, description: 'The business phone number id (the instance’s `external_id`).' } },
    },
  },
};

/** The `value` of a change: its lists are arrays, and one holding messages, echoes or statuses names its number. */
const changeValue = {
  type: 'object',
  properties: {
    metadata: { type: 'object' },
    messages: { type: 'array', items: message },
    message_echoes: { type: 'array', items: message },
    statuses: { type: 'array' },
    contacts: { type: 'array' },
    errors: { type: 'array' },
  },
  dependencies: { messages: namesItsNumber, message_echoes: namesItsNumber, statuses: namesItsNumber },
};

/** JSON Schema (draft-07) of a Cloud API webhook body (see the file's head); the route's `eventSchema`. */
export const cloudEventSchema: Record<string, unknown> = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'WhatsApp Cloud API webhook event',
  type: 'object',
  required: ['object', 'entry'],
  properties: {
    object: { const: 'whatsapp_business_account' },
    entry: {
      type: 'array',
      items: {
        type: 'object',
        required: ['changes'],
        properties: {
          changes: {
            type: 'array',
            items: {
              type: 'object',
              required: ['field', 'value'],
              properties: { field: nonEmpty, value: changeValue },
            },
          },
        },
      },
    },
  },
};
