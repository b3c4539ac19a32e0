// What node types need from a WhatsApp gateway, independent of the vendor. One client talks to one
// instance (one WhatsApp number); `ctx.services.gateway` is a factory that builds it from the
// instance's row (see instance-directory.ts), so the token is read at run time and never sits in a
// step's params, outputs or recorded calls.

/** One text message. `number` is digits with country code (`5511987654321`), no JID suffix. */
export interface SendTextRequest {
  number: string;
  text: string;
  /** Milliseconds the gateway waits (showing "typing…") before sending. Default 0. */
  delay?: number;
}

/** The gateway's answer to a send; only `messageid` is relied on (null when the gateway gave none). */
export interface SendTextResult {
  messageid: string | null;
  /** The answer as the gateway sent it (a JSON object). */
  answer: Record<string, unknown>;
}

/** Media bytes of one received message. `bytes` stay in memory: never log, record or store them. */
export interface DownloadedMedia {
  /** As the gateway reports it, parameters included (e.g. `audio/ogg; codecs=opus`). */
  mimetype: string;
  bytes: Buffer;
  /** Present when the gateway transcribed the audio. */
  transcription?: string;
}

export interface GatewayCallOptions {
  /** Aborts the call (and any retry wait): the abort reason is thrown as is, never retried. */
  signal?: AbortSignal;
}

export interface GatewayClient {
  /** Base URL of the instance's server, without a trailing slash (safe to show: holds no secret). */
  readonly serverUrl: string;
  sendText(request: SendTextRequest, options?: GatewayCallOptions): Promise<SendTextResult>;
  /** `messageId`: the bare WhatsApp id (`messageid` of the inbound event). */
  downloadMedia(messageId: string, options?: GatewayCallOptions): Promise<DownloadedMedia>;
}

/** Connection data of one instance, as stored in `instancias_whatsapp`. */
export interface GatewayInstanceAccess {
  server_url: string;
  token: string;
}

/** `ctx.services.gateway`: builds the client of one instance. */
export type GatewayClientFactory = (instance: GatewayInstanceAccess) => GatewayClient;
