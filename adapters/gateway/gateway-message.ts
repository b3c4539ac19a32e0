// The normalised inbound message every provider's parser produces (CONTRACT §11: "Each provider's
// events become the same normalised message"), what `gateway.parse` hands the flows. One event body
// (as the provider's inbound check recorded it: one message, credentials masked) in, one message or
// an ignored event out. A parser never performs I/O and never returns a credential.
import type { GatewayProvider } from './providers.js';

/** What a message holds; media kinds carry a `media_ref`. */
export type MessageKind = 'text' | 'audio' | 'image' | 'video' | 'document' | 'sticker' | 'other';

/** The kinds whose media `gateway.download` fetches by `media_ref`. */
export const MEDIA_KINDS: readonly MessageKind[] = ['audio', 'image', 'video', 'document', 'sticker'];

/** One lead's (or the clinic's) message, the same for every provider: what `gateway.parse` outputs. Holds no credential. */
export interface GatewayMessage {
  /** The provider whose event this was. */
  provider: GatewayProvider;
  /** The lead's phone, digits with country code (the participant's in a group); never a LID or user id. */
  phone: string;
  /** The conversation as the provider names it (a phone JID, group JID or LID; Cloud: the sender's wa_id). */
  chat_id: string;
  /** The provider's message id: the dedupe key. */
  message_id: string;
  /** Written from the clinic's own number (the phone app, another linked device, or the API). */
  from_me: boolean;
  /** Sent by an API call (LeadFlow's own sends): never a person typing. */
  sent_by_api: boolean;
  is_group: boolean;
  kind: MessageKind;
  /** Text, or the media caption; '' when none. */
  text: string;
  /**
   * What `gateway.download` (GatewayClient.downloadMedia) takes to fetch this message's media:
   * uazapi and Evolution the message id, Cloud the media id; null when the message has no media
   * (kind `text` or `other`).
   */
  media_ref: string | null;
  mimetype?: string;
  file_name?: string;
  /** Sender's WhatsApp display name, when given. */
  sender_name?: string;
  /** The sender's LID (or the provider's user id), kept as an alias of the phone. */
  lid?: string;
  /** When the message was sent, ms since the epoch; absent in the event: when it was parsed. */
  timestamp_ms: number;
  /** The instance as the provider names it in the event ('' when it does not). */
  instance_name: string;
  /** The provider's server as the event names it ('' when it does not). */
  base_url: string;
}

/** An event that is not a lead's message (a status update, a broadcast, a message without a phone): why. */
export interface IgnoredEvent {
  ignored: string;
}

/** A parser's answer: the normalised message, or why the event is not one. */
export type ParsedEvent = GatewayMessage | IgnoredEvent;

/**
 * One provider's parser: an event body → the normalised message, or `{ignored: reason}`. Throws
 * GatewayEventError (errors/gateway-event-error.ts) when the body is not that provider's event at
 * all. `now` (ms since the epoch) stands for a missing timestamp; default Date.now().
 */
export type GatewayEventParser = (event: unknown, now?: number) => ParsedEvent;

/** Narrowing helper. */
export function isIgnoredEvent(result: ParsedEvent): result is IgnoredEvent {
  return 'ignored' in result;
}
