// Turns a uazapi `messages` webhook event (reference §1.2) into a NormalizedMessage.
//
// Rules (reference §1.2-1.3, CONTRACT §8):
//   - The body is checked against uazapiEventSchema first; a malformed body throws UazapiEventError
//     listing each problem's path.
//   - EventType other than `messages`, and `status@broadcast`, are `{ignored: reason}`.
//   - phone (digits): from `message.chatid` when it is a phone JID, else `chat.wa_chatid`, else (not
//     from me) `sender_pn`; in groups the participant's `sender_pn`. NEVER from a `@lid`: a LID is not
//     a phone number, and WhatsApp gives no LID -> phone mapping. No phone found: ignored.
//   - from_me / sent_by_api / is_group are reported, not filtered: the flow drops them for the AI
//     path but still honours an operator's command (`fromMe && !wasSentByApi`).
//   - messageType is matched case-insensitively (real payloads use PascalCase, the spec lowercase);
//     `content` is a string (Conversation) or an object (extended text, media).
//   - timestamp_ms: `messageTimestamp` is milliseconds; a value below 1e11 can only be seconds and is
//     scaled; absent: the time of parsing.
// `instance_token` is a credential (for the instance-token check): never record or log it.
import { UazapiEventError } from './errors.js';
import { jidKind, phoneFromJid } from '../jid.js';
import type { GatewayMessage, IgnoredEvent, MessageKind } from '../gateway-message.js';
import { eventProblems } from '../event-problems.js';
import { uazapiEventSchema } from './event-schema.js';
import { asObj, asStr, type Fields } from '../event-fields.js';

export type { IgnoredEvent, MessageKind } from '../gateway-message.js';

/** A uazapi event parsed: GatewayMessage's fields but `provider` and `media_ref`, and the event's token. */
export interface NormalizedMessage extends Omit<GatewayMessage, 'provider' | 'media_ref'> {
  /** The event's `token`: a credential (for the instance-token check), never recorded or logged. */
  instance_token: string;
}

const KIND_BY_MESSAGE_TYPE: Record<string, MessageKind> = {
  conversation: 'text',
  extendedtextmessage: 'text',
  text: 'text',
  audiomessage: 'audio',
  audio: 'audio',
  ptt: 'audio',
  imagemessage: 'image',
  image: 'image',
  videomessage: 'video',
  video: 'video',
  ptvmessage: 'video',
  documentmessage: 'document',
  documentwithcaptionmessage: 'document',
  document: 'document',
  stickermessage: 'sticker',
  sticker: 'sticker',
};

const KIND_BY_MEDIA_TYPE: Record<string, MessageKind> = {
  ptt: 'audio',
  audio: 'audio',
  myaudio: 'audio',
  image: 'image',
  video: 'video',
  ptv: 'video',
  document: 'document',
  sticker: 'sticker',
};

function kindOf(message: Fields): MessageKind {
  const byType = KIND_BY_MESSAGE_TYPE[asStr(message.messageType).toLowerCase()];
  if (byType) return byType;
  const byMedia = KIND_BY_MEDIA_TYPE[asStr(message.mediaType).toLowerCase()];
  if (byMedia) return byMedia;
  return asStr(message.type).toLowerCase() === 'text' ? 'text' : 'other';
}

function textOf(message: Fields): string {
  if (asStr(message.text).trim() !== '') return asStr(message.text);
  if (typeof message.content === 'string') return message.content;
  const content = asObj(message.content);
  if (content) {
    if (typeof content.text === 'string' && content.text !== '') return content.text;
    if (typeof content.caption === 'string') return content.caption;
  }
  return '';
}

function phoneOf(message: Fields, chat: Fields | undefined, isGroup: boolean, fromMe: boolean): string | null {
  const senderPhone = fromMe ? null : (phoneFromJid(asStr(message.sender_pn)) ?? phoneFromJid(asStr(message.sender)));
  if (isGroup) return senderPhone;
  return phoneFromJid(asStr(message.chatid)) ?? phoneFromJid(asStr(chat?.wa_chatid)) ?? senderPhone;
}

function timestampOf(value: unknown, now: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return now;
  return value < 1e11 ? Math.round(value * 1000) : Math.round(value);
}

/** Parses a uazapi webhook body; throws UazapiEventError when the body is not an event's shape. */
export function parseUazapiEvent(body: unknown, now: number = Date.now()): NormalizedMessage | IgnoredEvent {
  const problems = eventProblems(uazapiEventSchema, body);
  if (problems) throw new UazapiEventError(problems);
  const event = body as Fields;
  const eventType = asStr(event.EventType);
  if (eventType !== 'messages') return { ignored: `event "${eventType}" is not a message` };
  const message = event.message as Fields;
  const chat = asObj(event.chat);
  const chatId = asStr(message.chatid);
  if (jidKind(chatId) === 'broadcast') return { ignored: 'status or broadcast message' };
  const fromMe = message.fromMe === true;
  const isGroup = message.isGroup === true || jidKind(chatId) === 'group';
  const phone = phoneOf(message, chat, isGroup, fromMe);
  if (!phone)
    return { ignored: isGroup ? "group message without the participant's phone number" : 'no phone number in the event (LID only)' };

  const content = asObj(message.content);
  // The lead's LID: the sender's when the lead wrote, the chat's when we did (in a group, the participant's).
  const lidCandidates = fromMe
    ? isGroup
      ? []
      : [message.chatlid, chat?.wa_chatlid]
    : [message.sender_lid, message.sender, ...(isGroup ? [] : [chat?.wa_chatlid])];
  const lid = lidCandidates.map(asStr).find((j) => jidKind(j) === 'lid');
  const out: NormalizedMessage = {
    instance_token: asStr(event.token),
    instance_name: asStr(event.instanceName),
    base_url: asStr(event.BaseUrl),
    phone,
    chat_id: chatId,
    message_id: asStr(message.messageid),
    from_me: fromMe,
    sent_by_api: message.wasSentByApi === true,
    is_group: isGroup,
    kind: kindOf(message),
    text: textOf(message),
    timestamp_ms: timestampOf(message.messageTimestamp, now),
  };
  if (content && typeof content.mimetype === 'string' && content.mimetype !== '') out.mimetype = content.mimetype;
  if (content && typeof content.fileName === 'string' && content.fileName !== '') out.file_name = content.fileName;
  if (asStr(message.senderName) !== '') out.sender_name = asStr(message.senderName);
  if (lid) out.lid = lid;
  return out;
}

/** Narrowing helper for callers. */
export function isIgnored(result: NormalizedMessage | IgnoredEvent): result is IgnoredEvent {
  return 'ignored' in result;
}
