// What node types need from a WhatsApp gateway, independent of the vendor. One client talks to one
// instance (one WhatsApp number) of one provider (CONTRACT §11: `uazapi`, `evolution`, `cloud`);
// `ctx.services.gateway` is a factory that builds it from the instance's row (see
// instance-directory.ts), dispatching on the row's `provider` (provider-registry.ts), so the token is
// read at run time and never sits in a step's params, outputs or recorded calls.
import type { JsonValue } from '../../engine/types.js';
import type { GatewayProvider } from './providers.js';

/** One approved message template (Cloud API), as `instancias_whatsapp.templates` names it. */
export interface TemplateRef {
  /** The template's name as approved (lower case letters, digits and `_`), e.g. `primeiro_contato_v2`. */
  name: string;
  /** Its language code as approved, e.g. `pt_BR`. */
  language: string;
  /**
   * Optional: the body text as approved in WhatsApp Manager, with `{{1}}`… (or `{{name}}`)
   * placeholders: what LeadFlow records in memory as the text the lead received (Meta's answer does
   * not return it). Absent: `[template <name>]` is recorded.
   */
  body?: string;
  /** Optional: for a template with named parameters, each body parameter's name, in order. */
  parameter_names?: string[];
}

/**
 * The approved templates of an instance, per purpose (CONTRACT §11): `primeiro_contato` (the first
 * message to a lead: the lead's first name and the clinic's name as body parameters),
 * `alerta_hunter` (the Hunter's new-lead alert AND the handoff notification: CONTRACT §11 names one
 * purpose "Hunter alert and handoff notification"), `follow_up`. Absent: none approved for it.
 */
export interface TemplateSet {
  primeiro_contato?: TemplateRef;
  alerta_hunter?: TemplateRef;
  follow_up?: TemplateRef;
  /** The appointment reminder (CONTRACT §12): first name, clinic name, when, address. */
  lembrete_consulta?: TemplateRef;
}

/** One text message. `number` is digits with country code (`5511987654321`), no JID suffix. */
export interface SendTextRequest {
  number: string;
  text: string;
  /** Milliseconds the gateway waits (showing "typing…") before sending. Default 0. */
  delay?: number;
  /**
   * The approved template that stands for this text where free text may not go (Cloud API's 24-hour
   * rule): its purpose in the instance's template set and its body parameters. Providers without
   * templates (uazapi, Evolution) ignore it.
   */
  template?: TemplateIntent;
  /**
   * This send's id, chosen by the caller (at most 64 characters of `[A-Za-z0-9_:.-]`): providers
   * that can carry it echo it on their webhooks (uazapi `track_id`, Cloud `biz_opaque_callback_data`),
   * so a send whose answer was lost can be confirmed (send-evidence.ts). Absent: none is sent.
   */
  send_id?: string;
}

/** A message's template purpose and body parameters (`gateway.send`'s `template` param). */
export interface TemplateIntent {
  purpose: keyof TemplateSet;
  /** Body parameters in order ({{1}}, {{2}}, …). */
  parameters: string[];
}

/** One approved template (Cloud API's answer to the 24-hour rule). */
export interface SendTemplateRequest {
  /** Digits with country code, no JID suffix. */
  number: string;
  template: TemplateRef;
  /** The template's body parameters, in order ({{1}}, {{2}}, …). */
  parameters: string[];
  /** This send's id (SendTextRequest's `send_id`). */
  send_id?: string;
}

/** The gateway's answer to a send; only `messageid` is relied on (null when the gateway gave none). */
export interface SendTextResult {
  messageid: string | null;
  /** The answer as the gateway sent it (a JSON object). */
  answer: Record<string, unknown>;
  /** What went out when the request named a `template`: the text, or the template instead (absent: the text). */
  sent_as?: 'text' | 'template';
  /** With `sent_as`: what the lead received (the text, or the template's rendered body). */
  text?: string;
}

/** Media bytes of one received message. `bytes` stay in memory: never log, record or store them. */
export interface DownloadedMedia {
  /** As the gateway reports it, parameters included (e.g. `audio/ogg; codecs=opus`). */
  mimetype: string;
  bytes: Buffer;
  /** Present when the gateway transcribed the audio. */
  transcription?: string;
}

/**
 * One gateway call, for metrics (`leadflow_gateway_*_total`): the provider whose client made it,
 * `send` (a text or a template) or `download`; `retried` before each retry of a call, then once `ok`
 * or `error` when it ends.
 */
export interface GatewayCallEvent {
  /** The registered provider whose client made the call (its `provider`, set by the HTTP base). */
  provider: GatewayProvider;
  op: 'send' | 'download';
  outcome: 'ok' | 'error' | 'retried';
}

/** Per-call options of a GatewayClient call. */
export interface GatewayCallOptions {
  /** Aborts the call (and any retry wait): the abort reason is thrown as is, never retried. */
  signal?: AbortSignal;
}

/** A call a node is about to make, for its execution record (`describe`). */
export type GatewayOperation =
  | { op: 'send-text'; request: SendTextRequest }
  | { op: 'send-template'; request: SendTemplateRequest }
  | { op: 'download'; media_ref: string };

/**
 * What a call sends, as an execution records it (and a dry run prints instead of sending):
 * credentials as "***", never their values.
 */
export interface GatewayRequestRecord {
  method: string;
  /** Holds no credential (an access token never travels in the URL). */
  url: string;
  headers: Record<string, string>;
  body?: JsonValue;
}

/**
 * The client of one instance, whatever its provider (`ctx.services.gateway(instance)`): a text sent,
 * a received message's media downloaded, and, where the provider has them, templates. Calls retry
 * 429, 5xx and network failures (a send never after a timeout: it may have been delivered) and throw
 * the typed gateway errors (errors/); credentials never appear in an error, a log line or the record.
 *
 * @example
 * const client: GatewayClient = ctx.services.gateway(instance);
 * const sent = await client.sendText({ number: '5511987654321', text: 'Oi!', delay: 1200 }, { signal: ctx.signal });
 * sent.messageid; // the provider's id of the message, or null
 * const media = await client.downloadMedia(message.media_ref); // {mimetype, bytes}
 */
export interface GatewayClient {
  /** The provider this client speaks to. */
  readonly provider: GatewayProvider;
  /** Base URL of the instance's server, without a trailing slash (safe to show: holds no secret). */
  readonly serverUrl: string;
  sendText(request: SendTextRequest, options?: GatewayCallOptions): Promise<SendTextResult>;
  /**
   * The key under which this provider's webhooks confirm `request` as accepted (send-evidence.ts):
   * `id:<send_id>` where the provider echoes the send id, a digest of recipient and text where it
   * reports what was sent; null when this send can get no evidence (e.g. no `send_id`).
   */
  sendEvidenceKey(request: SendTextRequest): string | null;
  /** Sends an approved template; only providers with templates (Cloud API) have it. */
  sendTemplate?(request: SendTemplateRequest, options?: GatewayCallOptions): Promise<SendTextResult>;
  /**
   * Downloads the media of a received message. `mediaRef`: what the provider's parser gave as the
   * message's `media_ref` (uazapi and Evolution: the bare message id; Cloud: the media id).
   */
  downloadMedia(mediaRef: string, options?: GatewayCallOptions): Promise<DownloadedMedia>;
  /**
   * The request `operation` makes, for the execution record (credentials masked). Absent: nodes
   * record `{method: 'POST', url: serverUrl, body: <the operation>}`.
   */
  describe?(operation: GatewayOperation): GatewayRequestRecord;
}

/** Connection data of one instance, as stored in `instancias_whatsapp`. */
export interface GatewayInstanceAccess {
  /** The instance's id (`instancias_whatsapp.id`), when known: what per-lead state is kept under (Cloud: the 24-hour window). */
  id?: number;
  provider: GatewayProvider;
  server_url: string;
  /** uazapi and Evolution: the instance token (API key); Cloud: the access token. A credential. */
  token: string;
  /** Evolution: the instance name; Cloud: the phone number id; uazapi: null. */
  external_id: string | null;
  /** Cloud: the approved templates; null otherwise. */
  templates: TemplateSet | null;
  /**
   * Cloud: the app secret (e.g. for Graph API's `appsecret_proof`); Evolution: the webhook's
   * `jwt_key`. A credential; absent or null when not set.
   */
  app_secret?: string | null;
}

/** `ctx.services.gateway`: builds the client of one instance (throws UnknownGatewayProviderError for an unregistered provider). */
export type GatewayClientFactory = (instance: GatewayInstanceAccess) => GatewayClient;
