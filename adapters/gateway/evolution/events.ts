// Turns an Evolution API v2 webhook event into the normalised message (gateway-message.ts), with
// `provider: 'evolution'` and `media_ref` present only for media.
// Sources: evolution-foundation/evolution-api tag 2.3.7 (`messages.upsert` handler and
// `prepareMessage` in src/api/integrations/channel/whatsapp/whatsapp.baileys.service.ts; the envelope
// in src/api/integrations/event/webhook/webhook.controller.ts); reference whatsapp-providers.md §1.3,
// §1.5-1.8 and gateway-and-forms.md §2.
//
// Rules:
//   - The body is checked against evolutionEventSchema first; a malformed body throws
//     EvolutionEventError (422) listing each problem's path.
//   - Only `messages.upsert` is a message. Every other event (`messages.update` delivery statuses,
//     `send.message`, `connection.update`, …) is `{ignored: reason}`; so is `status@broadcast`.
//   - phone (digits, device suffix dropped): the first phone JID (`@s.whatsapp.net`) among
//     `key.remoteJid`, `key.remoteJidAlt`, `key.senderPn`, `key.previousRemoteJid` (§1.7). This covers
//     every key layout: 2.3.0-2.3.4 (`senderPn`, or remoteJid rewritten with the LID in
//     `previousRemoteJid`), 2.3.5/2.3.6 (`remoteJid` @lid, phone in `remoteJidAlt`), 2.3.7 (remoteJid
//     rewritten to `remoteJidAlt` before the webhook) and 2.4.0-rc (`remoteJid` phone, `remoteJidAlt`
//     LID). In a group (`@g.us`) the participant's: `key.participant` / `key.participantAlt` (none
//     when the message is from the clinic's phone). NEVER from a `@lid`: a LID is not a phone number.
//   - No phone (a LID only: Evolution issues #2324, #2326, #2466): `{ignored, unmatched}`; the reason
//     starts with "unmatched" and `unmatched` carries the LID and message id, for the caller to log.
//   - from_me = `key.fromMe`. sent_by_api: see the next paragraph.
//   - kind and text: `conversation`, `extendedTextMessage.text` (Evolution rewrites it to
//     `conversation` since 2.2.x; older servers send it as is), media captions; wrappers
//     (ephemeral, view-once, `documentWithCaptionMessage`) are unwrapped. Media: audio, image, video
//     (also `ptvMessage`, the round video note), document, sticker; anything else is `other`.
//   - media_ref (media kinds only) = `key.id`: what EvolutionClient.downloadMedia takes.
//   - timestamp_ms: `messageTimestamp` is seconds (number); a value of 1e11 or more can only be ms
//     and is kept; absent: the time of parsing. (`date_time` is the server's local wall time with a
//     `Z` suffix, wrong unless the server runs in UTC, so it is not used.)
//
// A person on the clinic's phone vs LeadFlow's own sends (sent_by_api), reference §1.6:
//   Evolution builds its Baileys socket with `emitOwnEvents: false`, and WhatsApp does not echo a
//   message to the device that sent it, so a message sent through Evolution's API (ours, or any other
//   program's: Chatwoot, n8n, Evolution's own bots) never arrives as `messages.upsert`; it fires
//   `send.message` instead (issue #1120; issue #1742: a Chatwoot agent's message fires no
//   `messages.upsert`). A `messages.upsert` with `key.fromMe: true` was typed on another device of
//   the clinic's account: the phone app, WhatsApp Web or desktop, or another linked device.
//   So `sent_by_api` is false for every `messages.upsert` this parser returns. Some servers do echo
//   API sends as `messages.upsert` with `fromMe` (an open report, issue #1340): the ids LeadFlow's
//   sends got back are noted per instance (sent-ids.ts), and gateway.parse asks the provider
//   (provider.ts `sentByApi`) whether a `fromMe` message's id is one of them; then it is
//   `sent_by_api`, never a takeover.
//   What Evolution cannot tell apart:
//   - a person typing on WhatsApp Web from a program driving the same account as another linked
//     device (a second gateway, a browser automation): both arrive as `fromMe: true`, and `source`
//     (Baileys' `getDevice(key.id)`: a 22-character id starting `3E` is `web`) says `web` for
//     WhatsApp Web and for Baileys-made ids alike (reference §1.6). Such a program's messages count
//     as a person's (human takeover).
//   - a person writing through a tool that sends via Evolution's API (e.g. a Chatwoot agent): it is
//     an API send, so LeadFlow gets no `messages.upsert` for it and sees no takeover.
//   `status` (`SERVER_ACK` for another device, `PENDING` for API sends) is not used: it only differs
//   between the two events, which the event name already separates.
import { eventProblems } from '../event-problems.js';
import type { GatewayMessage, IgnoredEvent, MessageKind } from '../gateway-message.js';
import { jidKind, phoneFromJid } from '../jid.js';
import { EvolutionEventError } from './errors.js';
import { evolutionEventSchema } from './event-schema.js';
import { asObj, asStr, type Fields } from '../event-fields.js';

/** A message of an Evolution instance, normalised (GatewayMessage, `media_ref` present only for media). */
export interface EvolutionMessage extends Omit<GatewayMessage, 'provider' | 'media_ref'> {
  provider: 'evolution';
  /** The message id for EvolutionClient.downloadMedia; present for audio, image, video, document and sticker. */
  media_ref?: string;
}

/** An event that is not a lead's message. `unmatched` is set when a message came with a LID but no phone. */
export interface EvolutionIgnoredEvent extends IgnoredEvent {
  unmatched?: {
    instance_name: string;
    message_id: string;
    /** The sender's LID (`…@lid`), when the event gave one. */
    lid?: string;
    from_me: boolean;
  };
}

/** Message content types by Baileys proto field name (`messageType` and the keys of `message`). */
const KIND_BY_TYPE: Record<string, MessageKind> = {
  conversation: 'text',
  extendedTextMessage: 'text',
  audioMessage: 'audio',
  imageMessage: 'image',
  videoMessage: 'video',
  ptvMessage: 'video',
  documentMessage: 'document',
  stickerMessage: 'sticker',
};

/** Wrappers whose `.message` holds the content (Baileys' normalizeMessageContent set, and the captioned document). */
const WRAPPERS = [
  'ephemeralMessage',
  'viewOnceMessage',
  'viewOnceMessageV2',
  'viewOnceMessageV2Extension',
  'documentWithCaptionMessage',
] as const;

/** `message` with known wrappers removed (at most a few levels). */
function unwrap(message: Fields): Fields {
  let current = message;
  for (let depth = 0; depth < 4; depth++) {
    const wrapper = WRAPPERS.map((name) => asObj(asObj(current[name])?.message)).find(Boolean);
    if (!wrapper) return current;
    current = wrapper;
  }
  return current;
}

/** The content type: `messageType` when it names a known kind and its content is there, else the first known key of `message`. */
function contentType(messageType: string, message: Fields): string | undefined {
  if (Object.hasOwn(KIND_BY_TYPE, messageType) && (messageType === 'conversation' || asObj(message[messageType]))) return messageType;
  return Object.keys(KIND_BY_TYPE).find((type) => (type === 'conversation' ? typeof message[type] === 'string' : asObj(message[type])));
}

function textOf(message: Fields, type: string | undefined): string {
  if (typeof message.conversation === 'string' && message.conversation !== '') return message.conversation;
  const extended = asObj(message.extendedTextMessage);
  if (extended && typeof extended.text === 'string') return extended.text;
  const content = type ? asObj(message[type]) : undefined;
  if (content && typeof content.caption === 'string') return content.caption;
  return '';
}

/** Seconds (number, numeric string or protobuf Long) as ms; `now` when absent or unusable. */
function timestampOf(value: unknown, now: number): number {
  let n: number | undefined;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\d+$/.test(value)) n = Number(value);
  else {
    const long = asObj(value);
    if (long && typeof long.low === 'number') n = (long.low >>> 0) + (typeof long.high === 'number' ? long.high * 2 ** 32 : 0);
  }
  if (n === undefined || !Number.isFinite(n) || n <= 0) return now;
  return n < 1e11 ? Math.round(n * 1000) : Math.round(n);
}

/**
 * Parses an Evolution API v2 webhook body; throws EvolutionEventError when the body is not an
 * event's shape. `now` (ms) stands in for a missing `messageTimestamp`.
 */
export function parseEvolutionEvent(body: unknown, now: number = Date.now()): EvolutionMessage | EvolutionIgnoredEvent {
  const problems = eventProblems(evolutionEventSchema, body, true);
  if (problems) throw new EvolutionEventError(problems);
  const event = body as Fields;
  const name = asStr(event.event);
  if (name !== 'messages.upsert') return { ignored: `event "${name}" is not a new message` };
  const data = event.data as Fields;
  const key = data.key as Fields;
  const chatId = asStr(key.remoteJid);
  const instanceName = asStr(event.instance);
  const messageId = asStr(key.id);
  const fromMe = key.fromMe === true;
  const chatKind = jidKind(chatId);
  if (chatKind === 'broadcast') return { ignored: 'status or broadcast message' };
  const isGroup = chatKind === 'group';

  // The lead's JIDs: the chat's (any version's key layout), or in a group the participant's.
  const jids = (
    isGroup ? [key.participant, key.participantAlt] : [key.remoteJid, key.remoteJidAlt, key.senderPn, key.previousRemoteJid]
  ).map(asStr);
  const phone = isGroup && fromMe ? null : (jids.map((j) => phoneFromJid(j)).find((p) => p !== null) ?? null);
  const lid = isGroup && fromMe ? undefined : jids.find((j) => jidKind(j) === 'lid');
  if (!phone) {
    if (isGroup) return { ignored: "group message without the participant's phone number" };
    if (chatKind !== 'phone' && chatKind !== 'lid') return { ignored: `chat "${chatId}" is neither a person nor a group` };
    return {
      ignored: 'unmatched: no phone number in the event (LID only)',
      unmatched: { instance_name: instanceName, message_id: messageId, ...(lid ? { lid } : {}), from_me: fromMe },
    };
  }

  const message = unwrap(asObj(data.message) ?? {});
  const type = contentType(asStr(data.messageType), message);
  const kind: MessageKind = type ? (KIND_BY_TYPE[type] ?? 'other') : 'other';
  const content = type ? asObj(message[type]) : undefined;
  const out: EvolutionMessage = {
    provider: 'evolution',
    instance_name: instanceName,
    base_url: asStr(event.server_url),
    phone,
    chat_id: chatId,
    message_id: messageId,
    from_me: fromMe,
    // LeadFlow's own sends echoed are found by the provider's sentByApi (see the file's head).
    sent_by_api: false,
    is_group: isGroup,
    kind,
    text: textOf(message, type),
    timestamp_ms: timestampOf(data.messageTimestamp, now),
  };
  if (kind === 'audio' || kind === 'image' || kind === 'video' || kind === 'document' || kind === 'sticker') out.media_ref = messageId;
  if (content && typeof content.mimetype === 'string' && content.mimetype !== '') out.mimetype = content.mimetype;
  if (content && typeof content.fileName === 'string' && content.fileName !== '') out.file_name = content.fileName;
  if (asStr(data.pushName).trim() !== '') out.sender_name = asStr(data.pushName);
  if (lid) out.lid = lid;
  return out;
}

/** Narrowing helper for callers. */
export function isIgnoredEvolutionEvent(result: EvolutionMessage | EvolutionIgnoredEvent): result is EvolutionIgnoredEvent {
  return 'ignored' in result;
}
