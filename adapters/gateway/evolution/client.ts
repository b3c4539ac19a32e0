// HTTP client of one Evolution API v2 instance (Baileys integration). Contract (CONTRACT §11;
// reference whatsapp-providers.md §1.9-1.11, checked against evolution-foundation/evolution-api tag
// 2.3.7 and doc.evolution-api.com/v2/api-reference):
//   sendText      POST {server_url}/message/sendText/{external_id}               header `apikey`,
//                 body {number, text, delay}  -> 201, the sent message `{key: {remoteJid, fromMe, id}, status: "PENDING", …}`
//                 (src/validate/message.schema.ts textMessageSchema: `number`, `text` required, `delay`
//                 integer ms; doc page message-controller/send-text). `messageid` = `key.id`.
//   downloadMedia POST {server_url}/chat/getBase64FromMediaMessage/{external_id}  header `apikey`,
//                 body {message: {key: {id}}, convertToMp4: false}  -> 201 `{mediaType, fileName,
//                 mimetype, base64, …}` (doc page chat-controller/get-base64: `message`,
//                 `convertToMp4` required; chat.router.ts answers 201).
// `external_id` is the instance name (in the path, URL-encoded); `token` the instance API key (the
// global AUTHENTICATION_API_KEY works as well). The apikey lives in the HTTP base's private field
// (http-client.ts): it is sent as a header and never appears in an error, a log line or
// `JSON.stringify(client)`.
//
// A download by message id only works when the Evolution server stores messages
// (DATABASE_SAVE_DATA_NEW_MESSAGE=true): with only a key, `getBase64FromMediaMessage` looks the
// message up in its database (`getMessage`, a PostgreSQL JSON query in 2.3.7) and answers 400
// `Message not found` otherwise.
//
// The id of every message sent is handed to `noteSent` when given (the provider notes it on the
// key-value store: sent-ids.ts), so an echo of it is known as LeadFlow's own. Noting it failing is
// logged as a warning and the send still succeeds (the message went out: failing the call would
// have it sent again). Each send's recipient and text are handed to `noteSending` before its call,
// for an echo that overtakes the answer (sent-ids.ts); failing that is a warning too.
//
// Time limits are per attempt. A send's limit is `timeoutMs + delay`: Evolution shows "typing…" for
// `delay` ms inside the request before it sends (`sendMessageWithTyping`). Retries (http-call.ts):
// 429 / 5xx / network failures, with Evolution's 400-wrapped rate limit and dropped connection
// counted as 429 / 503 (error-answers.ts); timeouts only for downloads (a timed-out send may have
// been delivered, and resending would duplicate it). Other 4xx are never retried.
import { GatewayResponseError } from '../errors/gateway-response-error.js';
import type {
  DownloadedMedia,
  GatewayCallOptions,
  GatewayClient,
  GatewayInstanceAccess,
  SendTextRequest,
  SendTextResult,
} from '../gateway-client.js';
import { displayUrl, type RetryPolicy } from '../http-call.js';
import { type GatewayEndpointProfile, GatewayHttp } from '../http-client.js';
import { postPlainText } from '../plain-text-send.js';
import type { GatewayHttpOptions } from '../http-client-options.js';
import { decodeBase64Media } from '../base64-media.js';
import { evolutionFetch } from './error-answers.js';
import { textEvidenceKey } from '../send-evidence.js';

/** An Evolution instance's address, API key and name, and the common client options (http-client-options.ts). */
export interface EvolutionClientOptions extends GatewayHttpOptions {
  /** Evolution server, e.g. `https://evo.example.com` (a trailing slash is dropped). */
  serverUrl: string;
  /** Instance API key (header `apikey`). */
  token: string;
  /** Instance name (`external_id`), the last path segment of every call. */
  instanceName: string;
  /** Largest download answer read, bytes (base64 is ~4/3 of the media). Default 64 MiB. */
  maxDownloadBytes?: number;
  /** Called with the id of each message sent (sendText's `messageid`), before sendText resolves; see the file's head. */
  noteSent?: (messageId: string) => Promise<void>;
  /** Called with each send's recipient and text before its call (an echo may overtake the answer); see sent-ids.ts. */
  noteSending?: (number: string, text: string) => Promise<void>;
}

/** The options every Evolution client of a host shares (all but the instance's server, API key and name). */
export type EvolutionClientDefaults = Omit<EvolutionClientOptions, 'serverUrl' | 'token' | 'instanceName' | 'noteSent' | 'noteSending'>;

/** What the client needs of an instance row (a full GatewayInstanceAccess fits): its server, token and external id. */
export type EvolutionInstanceAccess = Pick<GatewayInstanceAccess, 'server_url' | 'token'> & { external_id: string };

/** How Evolution names its server and API key, sends the key (header `apikey`) and reads its error answers. */
const EVOLUTION_ENDPOINT: GatewayEndpointProfile = {
  provider: 'evolution',
  server: 'evolution',
  credential: 'evolution token (instance API key)',
  headers: (apikey) => ({ apikey }),
  wrapFetch: evolutionFetch,
};

/** The Evolution instance's client (see the file's head). Throws TypeError for an unusable server URL, an empty API key or instance name. */
export class EvolutionClient implements GatewayClient {
  readonly provider = 'evolution' as const;
  readonly serverUrl: string;
  /** The instance name (not a secret). */
  readonly instanceName: string;
  readonly #http: GatewayHttp;
  readonly #noteSent: ((messageId: string) => Promise<void>) | undefined;
  readonly #noteSending: ((number: string, text: string) => Promise<void>) | undefined;
  readonly #logger: EvolutionClientOptions['logger'];

  constructor(options: EvolutionClientOptions) {
    this.#http = new GatewayHttp(options, EVOLUTION_ENDPOINT);
    this.#noteSent = options.noteSent;
    this.#noteSending = options.noteSending;
    this.#logger = options.logger;
    if (typeof options.instanceName !== 'string' || options.instanceName.trim() === '')
      throw new TypeError('evolution external_id (instance name) is empty');
    this.serverUrl = this.#http.serverUrl;
    this.instanceName = options.instanceName;
  }

  /** `{server_url}/{route}/{instance name}` (the name URL-encoded). */
  #url(route: string): string {
    return `${this.serverUrl}/${route}/${encodeURIComponent(this.instanceName)}`;
  }

  /** Sends one text. `number` must be digits; `delay` (ms, default 0) is sent as is. */
  async sendText(request: SendTextRequest, options: GatewayCallOptions = {}): Promise<SendTextResult> {
    await this.#noteBefore(request);
    const sent = await this.#http.measured('send', (policy) => this.#sendText(request, options, policy));
    if (sent.messageid !== null && this.#noteSent) await this.#note(sent.messageid);
    return sent;
  }

  /** Hands the send to `noteSending` before its call; a failure is a warning (only an echo overtaking the answer would then read as typed by hand). */
  async #noteBefore(request: SendTextRequest): Promise<void> {
    try {
      await this.#noteSending?.(request.number, request.text);
    } catch (err) {
      this.#logger?.warn(
        { instance: this.instanceName, error: err instanceof Error ? err.message : String(err) },
        "evolution: the send was not noted before its call; an echo overtaking its answer would count as typed on the clinic's phone",
      );
    }
  }

  /** Hands a sent message's id to `noteSent`; a failure is a warning (the message went out). */
  async #note(messageId: string): Promise<void> {
    try {
      await this.#noteSent?.(messageId);
    } catch (err) {
      this.#logger?.warn(
        { instance: this.instanceName, message_id: messageId, error: err instanceof Error ? err.message : String(err) },
        "evolution: the sent message's id was not kept; an echo of it would count as typed on the clinic's phone",
      );
    }
  }

  /** A digest of recipient and text: Evolution's `send.message` webhook reports both, and no id of ours (send-evidence.ts). */
  sendEvidenceKey(request: SendTextRequest): string | null {
    return textEvidenceKey(request.number, request.text);
  }

  async #sendText(request: SendTextRequest, options: GatewayCallOptions, policy: RetryPolicy): Promise<SendTextResult> {
    const answer = await postPlainText(this.#http, this.#url('message/sendText'), request, options.signal, policy);
    return { messageid: messageIdOf(answer), answer };
  }

  /**
   * Downloads the media of a received message as bytes (base64 decoded). `messageId` is the
   * WhatsApp message id (`data.key.id` of the webhook, the normalised message's `media_ref`).
   */
  async downloadMedia(messageId: string, options: GatewayCallOptions = {}): Promise<DownloadedMedia> {
    return this.#http.measured('download', (policy) => this.#downloadMedia(messageId, options, policy));
  }

  async #downloadMedia(messageId: string, options: GatewayCallOptions, policy: RetryPolicy): Promise<DownloadedMedia> {
    if (typeof messageId !== 'string' || messageId.trim() === '') throw new TypeError('downloadMedia: message id is empty');
    const url = this.#url('chat/getBase64FromMediaMessage');
    const target = displayUrl(url);
    const { status, object: body } = await this.#http.callForObject(
      {
        method: 'POST',
        url,
        body: { message: { key: { id: messageId } }, convertToMp4: false },
        retryTimeouts: true,
        maxResponseBytes: this.#http.maxDownloadBytes,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      policy,
    );
    // Evolution answers `null` for a message holding only messageContextInfo (getBase64FromMediaMessage):
    // callForObject refuses it as `not a JSON object`.
    if (typeof body.base64 !== 'string' || body.base64 === '') throw new GatewayResponseError(target, status, 'no base64 in the answer');
    const bytes = decodeBase64Media(body.base64, () => new GatewayResponseError(target, status, 'base64 is not base64'));
    const mimetype = typeof body.mimetype === 'string' && body.mimetype !== '' ? body.mimetype : 'application/octet-stream';
    return { mimetype, bytes };
  }

  /** What `JSON.stringify` shows of the client: its provider, server and instance name. */
  toJSON(): object {
    return { provider: this.provider, serverUrl: this.serverUrl, instanceName: this.instanceName };
  }
}

/** `key.id` of the sent message (the answer is the `send.message` data), else null. */
function messageIdOf(answer: Record<string, unknown>): string | null {
  const key = answer.key;
  if (key && typeof key === 'object' && !Array.isArray(key)) {
    const id = (key as Record<string, unknown>).id;
    if (typeof id === 'string' && id !== '') return id;
  }
  return null;
}

/**
 * `ctx.services.gateway` for Evolution instances: one client per call, built from the instance's row
 * (`server_url`, `token` = the instance API key, `external_id` = the instance name).
 */
export function evolutionClientFactory(defaults: EvolutionClientDefaults = {}): (instance: EvolutionInstanceAccess) => EvolutionClient {
  return (instance) =>
    new EvolutionClient({ ...defaults, serverUrl: instance.server_url, token: instance.token, instanceName: instance.external_id });
}
