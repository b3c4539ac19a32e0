// WhatsApp Cloud API webhook bodies, as Meta posts them to the callback URL, for tests: one builder per
// message kind, a batch, a status-only event, a Coexistence echo, a username (BSUID-only) sender,
// and the signer of X-Hub-Signature-256. Shapes from Meta's webhook reference
// (developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/…, read
// 2026) and reference whatsapp-providers.md §2.3-2.6; the page of each is named on its builder.
// Values are invented; a fresh `wamid.…` per message unless one is given.
import { createHmac, randomBytes } from 'node:crypto';

export const CLOUD_PHONE_NUMBER_ID = '106540352242922';
export const CLOUD_DISPLAY_NUMBER = '5511912345678';
export const CLOUD_WABA_ID = '102290129340398';

export interface Business {
  phoneNumberId?: string;
  displayPhoneNumber?: string;
  wabaId?: string;
}

export interface FromLead extends Business {
  /** The lead's digits (`from`, `contacts[].wa_id`). */
  from: string;
  /** `contacts[].profile.name`. Default "Maria Souza". */
  name?: string;
  /** The lead's BSUID (`from_user_id`, `contacts[].user_id`), when Meta sent one. */
  userId?: string;
  /** Default: a fresh `wamid.…`. */
  id?: string;
  /** Seconds. Default 1773050145. */
  timestamp?: number;
}

type Json = Record<string, any>;

let seq = 0;
export function wamid(): string {
  return `wamid.HBgM${randomBytes(12).toString('base64url')}${String(++seq).padStart(4, '0')}`;
}

/** `{object, entry: [{id: WABA, changes: [...]}]}`. Source: webhooks/reference/messages (envelope), §2.3. */
export function cloudEnvelope(changes: Json[], wabaId = CLOUD_WABA_ID): Json {
  return { object: 'whatsapp_business_account', entry: [{ id: wabaId, changes }] };
}

function metadata(b: Business): Json {
  return { display_phone_number: b.displayPhoneNumber ?? CLOUD_DISPLAY_NUMBER, phone_number_id: b.phoneNumberId ?? CLOUD_PHONE_NUMBER_ID };
}

function contactOf(lead: FromLead): Json {
  return {
    profile: { name: lead.name ?? 'Maria Souza' },
    wa_id: lead.from,
    ...(lead.userId ? { user_id: lead.userId } : {}),
  };
}

/** One `messages` change holding `messages` (all from `lead`). */
export function messagesChange(lead: FromLead, messages: Json[]): Json {
  return {
    field: 'messages',
    value: { messaging_product: 'whatsapp', metadata: metadata(lead), contacts: [contactOf(lead)], messages },
  };
}

/** A message object from `lead` of `type` with its part (`text: {body}`, `image: {…}`, …). */
export function leadMessage(lead: FromLead, type: string, part: Json): Json {
  return {
    from: lead.from,
    ...(lead.userId ? { from_user_id: lead.userId } : {}),
    id: lead.id ?? wamid(),
    timestamp: String(lead.timestamp ?? 1773050145),
    type,
    [type]: part,
  };
}

function single(lead: FromLead, type: string, part: Json): Json {
  return cloudEnvelope([messagesChange(lead, [leadMessage(lead, type, part)])], lead.wabaId);
}

/** Text. Source: webhooks/reference/messages/text (reference §2.3). */
export function cloudTextWebhook(lead: FromLead & { text: string }): Json {
  return single(lead, 'text', { body: lead.text });
}

/** Voice note (`voice: true`) or audio file. Source: webhooks/reference/messages/audio (reference §2.4). */
export function cloudAudioWebhook(lead: FromLead & { mediaId: string; voice?: boolean }): Json {
  return single(lead, 'audio', {
    mime_type: 'audio/ogg; codecs=opus',
    sha256: 'wvqXMe6n7n1W0zphvLPoLj+s/NtKqmr3zZ7YzTP7xFI=',
    id: lead.mediaId,
    url: `https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=${lead.mediaId}`,
    voice: lead.voice ?? true,
  });
}

/** Image with an optional caption. Source: webhooks/reference/messages/image (reference §2.4). */
export function cloudImageWebhook(lead: FromLead & { mediaId: string; caption?: string }): Json {
  return single(lead, 'image', {
    ...(lead.caption !== undefined ? { caption: lead.caption } : {}),
    mime_type: 'image/jpeg',
    sha256: 'SfInY0Vq6FZb7yGH0UJhuvV3cHzlaYWs2LrMwYnqu3U=',
    id: lead.mediaId,
    url: `https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=${lead.mediaId}`,
  });
}

/** Video with an optional caption. Source: webhooks/reference/messages/video (reference §2.4). */
export function cloudVideoWebhook(lead: FromLead & { mediaId: string; caption?: string }): Json {
  return single(lead, 'video', {
    ...(lead.caption !== undefined ? { caption: lead.caption } : {}),
    mime_type: 'video/mp4',
    sha256: 'zDvrz0Bm1sN5C8ZxN2S8bE6V7pOx3b3V0q8kJr7w3wI=',
    id: lead.mediaId,
  });
}

/** Document with file name and optional caption. Source: webhooks/reference/messages/document (reference §2.4). */
export function cloudDocumentWebhook(lead: FromLead & { mediaId: string; filename: string; caption?: string }): Json {
  return single(lead, 'document', {
    ...(lead.caption !== undefined ? { caption: lead.caption } : {}),
    filename: lead.filename,
    mime_type: 'application/pdf',
    sha256: 'V5OPr3C0bY9v1zQ1b9m8m4Y4c2eXzS9p3mQpZ8i2u0g=',
    id: lead.mediaId,
  });
}

/** Sticker. Source: webhooks/reference/messages/sticker (`sticker: {mime_type, sha256, id, animated}`). */
export function cloudStickerWebhook(lead: FromLead & { mediaId: string }): Json {
  return single(lead, 'sticker', {
    mime_type: 'image/webp',
    sha256: 'kVdI0d4t9b1Q7xq0u0cO9X5l0gk1y3Z7n8T2p6s4r1A=',
    id: lead.mediaId,
    animated: false,
  });
}

/** Reaction to one of the business's messages. Source: webhooks/reference/messages/reaction (`reaction: {message_id, emoji}`). */
export function cloudReactionWebhook(lead: FromLead & { emoji: string; reactedTo: string }): Json {
  return single(lead, 'reaction', { message_id: lead.reactedTo, emoji: lead.emoji });
}

/**
 * Several messages in one POST: two from `lead` in one change, and one from `other` in a second entry
 * of the same WABA. Source: webhooks/reference/messages (`entry[]`, `changes[]` and `messages[]` are
 * arrays; Meta batches up to 1000 updates per POST, reference §2.2).
 */
export function cloudBatchWebhook(lead: FromLead & { texts: [string, string] }, other: FromLead & { text: string }): Json {
  const first = leadMessage({ ...lead, id: wamid() }, 'text', { body: lead.texts[0] });
  const second = leadMessage({ ...lead, id: wamid(), timestamp: (lead.timestamp ?? 1773050145) + 2 }, 'text', { body: lead.texts[1] });
  const body = cloudEnvelope([messagesChange(lead, [first, second])], lead.wabaId);
  body.entry.push(cloudEnvelope([messagesChange(other, [leadMessage(other, 'text', { body: other.text })])], other.wabaId).entry[0]);
  return body;
}

/**
 * Status only (no messages): a message the business sent was `sent` / `delivered` / `read` / `failed`.
 * Source: webhooks/reference/messages/status (reference §2.6); a failure carries `errors[]`.
 */
export function cloudStatusWebhook(
  options: Business & { recipient: string; messageId?: string; status: 'sent' | 'delivered' | 'read' | 'failed'; errorCode?: number },
): Json {
  const failed = options.status === 'failed';
  const code = options.errorCode ?? 131047;
  const status = {
    id: options.messageId ?? wamid(),
    status: options.status,
    timestamp: '1773050500',
    recipient_id: options.recipient,
    ...(failed
      ? {
          errors: [
            {
              code,
              title: code === 131047 ? 'Re-engagement message' : 'Error',
              message: code === 131047 ? 'Re-engagement message' : 'Error',
              error_data: { details: 'More than 24 hours have passed since the recipient last replied to the sender number.' },
              href: '/documentation/business-messaging/whatsapp/support/error-codes',
            },
          ],
        }
      : { pricing: { billable: true, pricing_model: 'PMP', type: 'regular', category: 'utility' } }),
  };
  return cloudEnvelope(
    [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: metadata(options), statuses: [status] } }],
    options.wabaId,
  );
}

/**
 * A Coexistence echo: a person of the clinic typed `text` to the lead `to` in the WhatsApp Business
 * app. Source: webhooks/reference/smb_message_echoes (reference §2.5): `from` is the business's
 * display number, the lead is `to`.
 */
export function cloudEchoWebhook(options: Business & { to: string; text: string; id?: string; timestamp?: number }): Json {
  return cloudEnvelope(
    [
      {
        field: 'smb_message_echoes',
        value: {
          messaging_product: 'whatsapp',
          metadata: metadata(options),
          message_echoes: [
            {
              from: options.displayPhoneNumber ?? CLOUD_DISPLAY_NUMBER,
              to: options.to,
              id: options.id ?? wamid(),
              timestamp: String(options.timestamp ?? 1773050400),
              type: 'text',
              text: { body: options.text },
            },
          ],
        },
      },
    ],
    options.wabaId,
  );
}

/**
 * A user with a username whose phone Meta withholds: `from`/`wa_id` omitted, only the BSUID
 * (`from_user_id`, `contacts[].user_id`) and `profile.username`. Source: business-scoped-user-ids
 * (reference §2.3).
 */
export function cloudUsernameOnlyWebhook(options: Business & { userId: string; text: string; id?: string }): Json {
  return cloudEnvelope([
    {
      field: 'messages',
      value: {
        messaging_product: 'whatsapp',
        metadata: metadata(options),
        contacts: [{ profile: { name: 'Maria', username: '@maria.s' }, user_id: options.userId }],
        messages: [
          { from_user_id: options.userId, id: options.id ?? wamid(), timestamp: '1773050145', type: 'text', text: { body: options.text } },
        ],
      },
    },
  ]);
}

/** `sha256=<hex HMAC-SHA256 of raw keyed with secret>`: the X-Hub-Signature-256 Meta sends (webhooks getting-started, reference §2.2). */
export function signCloudBody(raw: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
}
