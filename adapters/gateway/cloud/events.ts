// Turns a WhatsApp Cloud API webhook body (`object: "whatsapp_business_account"`) into normalised
// messages. Sources: Meta, developers.facebook.com/documentation/business-messaging/whatsapp/
// webhooks/reference/messages (text, audio, image, video, document, sticker, reaction, status,
// errors) and webhooks/reference/smb_message_echoes, business-scoped-user-ids (read 2026);
// reference whatsapp-providers.md §2.3-2.6.
//
// Rules:
//   - One body may hold several entries, each several changes, each several messages: every message
//     is a message of its own, in body order. Each carries its change's `metadata.phone_number_id`
//     (the instance is looked up by it, as `instancias_whatsapp.external_id`).
//   - `field: "messages"`: `value.messages[]` are from a WhatsApp user to the business (from_me false,
//     sent_by_api false). `value.statuses[]` (sent / delivered / read / played / failed of the
//     business's own messages) are only counted; a `failed` one is listed in `failures` with Meta's
//     error code (131047 there means a free text sent outside the 24-hour window). Messages sent
//     through the API never come back as `messages`: only as statuses; so nothing here is ever
//     sent_by_api.
//   - `field: "smb_message_echoes"` (Coexistence numbers only: a WhatsApp Business app number also
//     onboarded to the Cloud API): `value.message_echoes[]` are messages a person of the clinic typed
//     in the WhatsApp Business app or a linked device: from_me true, sent_by_api false, and the lead
//     is `to` (`from` is the business's own number). A `revoke` echo is ignored. Without Coexistence
//     the Cloud API cannot show a message typed by a person at all.
//   - phone: digits of `from` (echo: `to`) as given, no Brazilian 9th-digit fixing (the caller matches
//     variants); when absent (a user with a username: only a business-scoped user id, BSUID, e.g.
//     `BR.1502576394655843`), the `contacts[]` entry with that `user_id` gives `wa_id`; with no phone
//     at all the message is listed in `ignored` as `unmatched: …` (never dropped silently).
//   - kind: text, audio (voice notes and audio files), image, video, document, sticker; reaction,
//     interactive, button, location, contacts, unsupported and unknown types are `other` with their
//     text when they have one (the emoji, the button's title, the place's name). `system` messages
//     are ignored.
//   - media_ref: the media id (`image.id`, …) for CloudClient.downloadMedia; mimetype `mime_type`;
//     file_name `document.filename`; text the caption.
//   - sender_name: `contacts[].profile.name` of the sender (not for echoes: they are the clinic's).
//   - chat_id: `<phone>@s.whatsapp.net` (a Groups API message: its `group_id`, is_group true);
//     instance_name: the business's `display_phone_number`; base_url: '' (the Graph base is the
//     instance's server_url).
//   - timestamp_ms: `timestamp` is a string (sometimes a number) of seconds; a value above 1e11 is
//     taken as ms; absent or unreadable: `now`.
//   - Fields other than `messages` and `smb_message_echoes` are listed in `ignored`; `value.errors[]`
//     too, with their codes.
// A body without this shape (cloudEventSchema, event-schema.ts: the route checks the same) throws
// CloudEventError listing each problem's path (answer 422).
import { CloudEventError } from './errors.js';
import type { GatewayMessage, MessageKind } from '../gateway-message.js';
import { asObj, asStr, type Fields } from '../event-fields.js';
import { eventProblems } from '../event-problems.js';
import { cloudEventSchema } from './event-schema.js';

/** A normalised Cloud API message: GatewayMessage's fields (`media_ref` present only for media), and the Cloud ones. */
export interface CloudMessage extends Omit<GatewayMessage, 'provider' | 'media_ref'> {
  provider: 'cloud';
  /** The business phone number id that received (or, for an echo, sent) the message. */
  phone_number_id: string;
  /** The media id of an audio, image, video, document or sticker (for downloadMedia). */
  media_ref?: string;
  /** The lead's business-scoped user id (BSUID), when Meta sent one. */
  user_id?: string;
  /** Audio only: true for a voice note recorded in WhatsApp, false for an audio file. */
  voice?: boolean;
}

/** A `failed` status of a message the business sent. */
export interface CloudStatusFailure {
  phone_number_id: string;
  /** The `wamid` of the message that failed. */
  message_id: string;
  /** The recipient's digits ('' when Meta gave only a user id). */
  recipient: string;
  /** Meta's error code (e.g. 131047: sent outside the 24-hour window), when given. */
  code?: number;
  title?: string;
}

/** One webhook body parsed: the phone number ids it names, its messages in body order, its statuses and what was left out (see the file's head). */
export interface CloudWebhook {
  /** The first phone number id the body names; null when it names none. */
  phone_number_id: string | null;
  /** Every phone number id the body names, once each, in order. */
  phone_number_ids: string[];
  messages: CloudMessage[];
  /** Delivery statuses in the body (they start nothing). */
  statuses: number;
  failures: CloudStatusFailure[];
  /** What was left out and why (unmatched users, other fields, system messages, errors). */
  ignored: string[];
}

const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const MEDIA_KINDS: Record<string, MessageKind> = {
  audio: 'audio',
  image: 'image',
  video: 'video',
  document: 'document',
  sticker: 'sticker',
};

function timestampOf(value: unknown, now: number): number {
  const n = typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : typeof value === 'number' ? value : NaN;
  if (!Number.isFinite(n) || n <= 0) return now;
  return n < 1e11 ? Math.round(n * 1000) : Math.round(n);
}

/** Digits of a phone as Meta sends it (`554399806366`; a leading + tolerated); null for anything else. */
function digitsOf(value: unknown): string | null {
  const s = asStr(value).replace(/^\+/, '');
  return /^\d{6,15}$/.test(s) ? s : null;
}

interface ChangeContext {
  phoneNumberId: string;
  display: string;
  contacts: Fields[];
  now: number;
}

/** Kind, text and media fields of one message (inbound or echo). null: ignore it (with the reason). */
function contentOf(m: Fields): { kind: MessageKind; text: string; media?: Fields } | { ignore: string } {
  const type = asStr(m.type);
  const part = asObj(m[type]);
  if (type === 'text') return { kind: 'text', text: asStr(part?.body) };
  const mediaKind = MEDIA_KINDS[type];
  if (mediaKind) return { kind: mediaKind, text: asStr(part?.caption), ...(part ? { media: part } : {}) };
  if (type === 'system') return { ignore: `system message ${asStr(m.id)} (${asStr(part?.type) || 'no type'})` };
  if (type === 'revoke') return { ignore: `revoked message echo ${asStr(m.id)}` };
  return { kind: 'other', text: otherText(type, part) };
}

/** The text a non-media, non-text message carries, '' when none. */
function otherText(type: string, part: Fields | undefined): string {
  if (!part) return '';
  switch (type) {
    case 'reaction':
      return asStr(part.emoji);
    case 'button':
      return asStr(part.text);
    case 'interactive':
      return asStr(asObj(part.button_reply)?.title) || asStr(asObj(part.list_reply)?.title);
    case 'location':
      return [asStr(part.name), asStr(part.address)].filter(Boolean).join(' - ');
    case 'edit':
      return asStr(asObj(asObj(part.message)?.text)?.body);
    default:
      return '';
  }
}

function contactFor(contacts: Fields[], phone: string | null, userId: string): Fields | undefined {
  return (
    contacts.find((c) => phone !== null && asStr(c.wa_id) === phone) ??
    contacts.find((c) => userId !== '' && asStr(c.user_id) === userId) ??
    (contacts.length === 1 ? contacts[0] : undefined)
  );
}

function normalise(m: Fields, ctx: ChangeContext, echo: boolean, ignored: string[]): CloudMessage | null {
  const id = asStr(m.id);
  const content = contentOf(m);
  if ('ignore' in content) {
    ignored.push(content.ignore);
    return null;
  }
  const userId = asStr(echo ? m.to_user_id : m.from_user_id);
  let phone = digitsOf(echo ? m.to : m.from);
  const contact = contactFor(ctx.contacts, phone, userId);
  phone ??= digitsOf(contact?.wa_id);
  if (!phone) {
    const who = userId || asStr(contact?.user_id);
    ignored.push(`unmatched: message ${id} ${echo ? 'to' : 'from'} ${who ? `user ${who}` : 'a user'} has no phone number`);
    return null;
  }
  const groupId = asStr(m.group_id);
  const out: CloudMessage = {
    provider: 'cloud',
    phone_number_id: ctx.phoneNumberId,
    instance_name: ctx.display,
    base_url: '',
    phone,
    chat_id: groupId || `${phone}@s.whatsapp.net`,
    message_id: id,
    from_me: echo,
    sent_by_api: false,
    is_group: groupId !== '',
    kind: content.kind,
    text: content.text,
    timestamp_ms: timestampOf(m.timestamp, ctx.now),
  };
  const media = content.media;
  if (media) {
    if (asStr(media.id) !== '') out.media_ref = asStr(media.id);
    if (asStr(media.mime_type) !== '') out.mimetype = asStr(media.mime_type);
    if (content.kind === 'document' && asStr(media.filename) !== '') out.file_name = asStr(media.filename);
    if (content.kind === 'audio' && typeof media.voice === 'boolean') out.voice = media.voice;
  }
  const name = echo ? '' : asStr(asObj(contact?.profile)?.name);
  if (name !== '') out.sender_name = name;
  const knownUserId = userId || asStr(contact?.user_id);
  if (knownUserId !== '') out.user_id = knownUserId;
  return out;
}

function failuresOf(statuses: unknown[], phoneNumberId: string): CloudStatusFailure[] {
  const out: CloudStatusFailure[] = [];
  for (const status of statuses) {
    const s = asObj(status);
    if (s?.status !== 'failed') continue;
    const error = asObj(asArr(s.errors)[0]);
    const failure: CloudStatusFailure = {
      phone_number_id: phoneNumberId,
      message_id: asStr(s.id),
      recipient: digitsOf(s.recipient_id) ?? '',
    };
    if (typeof error?.code === 'number') failure.code = error.code;
    if (asStr(error?.title) !== '') failure.title = asStr(error?.title);
    out.push(failure);
  }
  return out;
}

/** Parses a Cloud API webhook body; throws CloudEventError when the body is not one. */
export function parseCloudWebhook(body: unknown, now: number = Date.now()): CloudWebhook {
  const problems = eventProblems(cloudEventSchema, body, true);
  if (problems) throw new CloudEventError(problems);
  const result: CloudWebhook = { phone_number_id: null, phone_number_ids: [], messages: [], statuses: 0, failures: [], ignored: [] };
  for (const entry of asArr((body as Fields).entry)) {
    for (const change of asArr((entry as Fields).changes)) {
      const { field, value } = change as { field: string; value: Fields };
      if (field !== 'messages' && field !== 'smb_message_echoes') {
        result.ignored.push(`field "${field}" is not handled`);
        continue;
      }
      const metadata = asObj(value.metadata) ?? {};
      const ctx: ChangeContext = {
        phoneNumberId: asStr(metadata.phone_number_id),
        display: asStr(metadata.display_phone_number),
        contacts: asArr(value.contacts)
          .map(asObj)
          .filter((c): c is Fields => c !== undefined),
        now,
      };
      if (!result.phone_number_ids.includes(ctx.phoneNumberId)) result.phone_number_ids.push(ctx.phoneNumberId);
      const echo = field === 'smb_message_echoes';
      for (const message of asArr(echo ? value.message_echoes : value.messages)) {
        const normalised = normalise(message as Fields, ctx, echo, result.ignored);
        if (normalised) result.messages.push(normalised);
      }
      const statuses = asArr(value.statuses);
      result.statuses += statuses.length;
      result.failures.push(...failuresOf(statuses, ctx.phoneNumberId));
      for (const error of asArr(value.errors)) {
        const e = asObj(error);
        result.ignored.push(`error ${String(e?.code ?? '?')}: ${asStr(e?.title) || asStr(e?.message) || 'no title'}`);
      }
    }
  }
  result.phone_number_id = result.phone_number_ids[0] ?? null;
  return result;
}
