// HTTP client of one WhatsApp Cloud API business phone number (Meta's Graph API). Sources: Meta,
// developers.facebook.com/documentation/business-messaging/whatsapp/ — messages/text-messages,
// typing-indicators, business-phone-numbers/media, support/error-codes (read 2026); reference
// whatsapp-providers.md §2.7-2.12; CONTRACT §11.
//
//   sendText       POST {server_url}/{phone number id}/messages   bearer token
//                  {messaging_product: "whatsapp", recipient_type: "individual", to, type: "text",
//                   text: {body, preview_url: false}}  -> messageid = messages[0].id (`wamid.…`)
//   sendTemplate   same endpoint, type "template": {name, language: {code}, components: [{type: "body",
//                  parameters: [{type: "text", text[, parameter_name]}]}]} (reference §2.9)
//   downloadMedia  GET {server_url}/{media id}?phone_number_id={id} -> {url, mime_type, file_size}, then
//                  GET url with the same bearer token -> the bytes (media URLs live 5 minutes, so the
//                  URL is always asked for afresh)
//
// Typing delay: the Cloud API has no delay parameter. The client waits `delay` ms here before the
// send (the wait ends early, with the abort reason, when the caller's signal aborts). When the request
// names the lead's message it answers (`typing_message_id`, an inbound `wamid`), the client first
// marks that message read and shows Meta's typing indicator (POST …/messages {status: "read",
// message_id, typing_indicator: {type: "text"}} -> {success: true}); Meta hides it when the reply
// arrives or after 25 s. Without it no indicator exists: Meta's indicator needs an inbound message id.
// The indicator is best effort: its failure is logged and the send goes on.
//
// Errors: the HTTP base (http-client.ts, http-call.ts) with the Cloud API's judge (error-codes.ts)
// maps Meta's codes onto the typed gateway errors:
// GraphApiError (a GatewayHttpError with graphCode / rateLimited), OutsideWindowError for 131047
// (never retried: send a template instead), GatewayNetworkError, GatewayTimeoutError,
// GatewayResponseError. A send is never retried after a timeout (it may have been delivered).
// API-sent messages never come back as inbound `messages` on the webhook: only as `statuses`.
//
// The token lives in the HTTP base's private field (http-client.ts): it is sent as a header only,
// never appears in an error, a log line or `JSON.stringify(client)`, and is only ever sent to
// `server_url`'s origin or to an https media URL the Graph API handed out.
import type {
  DownloadedMedia,
  GatewayCallOptions,
  GatewayClient,
  GatewayInstanceAccess,
  SendTextRequest,
  SendTextResult,
} from '../gateway-client.js';
import type { JsonObject } from '../../../engine/types.js';
import { sleep } from '../backoff.js';
import { displayUrl, type RetryPolicy, unusableAnswer } from '../http-call.js';
import { type GatewayEndpointProfile, GatewayHttp, MAX_SEND_ANSWER_BYTES } from '../http-client.js';
import type { GatewayHttpOptions } from '../http-client-options.js';
import { graphErrorJudge } from './error-codes.js';
import { idEvidenceKey } from '../send-evidence.js';

/**
 * A Cloud API number's Graph base, access token and phone number id, and the common client options
 * (http-client-options.ts). Metrics: template sends count as `send`; the typing indicator is not counted.
 */
export interface CloudClientOptions extends GatewayHttpOptions {
  /** Graph API base with its version, e.g. `https://graph.facebook.com/v23.0` (a trailing slash is dropped). */
  serverUrl: string;
  /** Access token (system-user or business token), sent as `Authorization: Bearer`. */
  token: string;
  /** The business phone number id (`instancias_whatsapp.external_id`), digits. */
  phoneNumberId: string;
  /** Shortest wait before retrying Meta's pair rate limit 131056 (one message per 6 s to one user), ms. Default 6000. */
  pairRateDelayMs?: number;
  /** Largest media downloaded, bytes (checked against `file_size` first, then while reading). Default 64 MiB. */
  maxDownloadBytes?: number;
}

/** The options every Cloud API client of a host shares (all but the instance's Graph base, access token and phone number id). */
export type CloudClientDefaults = Omit<CloudClientOptions, 'serverUrl' | 'token' | 'phoneNumberId'>;

/** What the client needs of an instance row (a full GatewayInstanceAccess fits): its server, token and external id. */
export type CloudInstanceAccess = Pick<GatewayInstanceAccess, 'server_url' | 'token'> & { external_id: string };

/** A text, and optionally the lead's message it answers (marked read, typing indicator shown during `delay`). */
export interface CloudSendTextRequest extends SendTextRequest {
  /** Inbound `wamid` of the lead's message this text answers. */
  typing_message_id?: string;
}

/** An approved template, as named in the instance's `templates` column. */
export interface CloudTemplateRef {
  name: string;
  /** Language code the template was approved in, e.g. `pt_BR`. */
  language: string;
  /** For templates with named parameters: the name of each body parameter, in order. */
  parameter_names?: string[];
}

/** One approved template to one number (CloudClient.sendTemplate): the template as named in the instance's `templates`, its body parameters in order. */
export interface SendTemplateRequest {
  /** Digits with country code. */
  number: string;
  template: CloudTemplateRef;
  /** Body parameters, in order (`{{1}}`, `{{2}}`… or the names of `parameter_names`). */
  parameters: string[];
  /** This send's id, carried back on the message's statuses as `biz_opaque_callback_data`. */
  send_id?: string;
}

/** Meta's longest text body, characters. */
export const MAX_TEXT_CHARS = 4096;
/** Largest media-URL answer read, bytes. */
const MAX_MEDIA_INFO_BYTES = 64 * 1024;
const PHONE = /^\d{8,15}$/;
const PHONE_NUMBER_ID = /^\d{1,32}$/;
const MEDIA_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** How the Cloud API names its base and token, sends the token (bearer) and reads Meta's error answers (`pairRateDelayMs`, ms: error-codes.ts). */
function cloudEndpoint(pairRateDelayMs: number): GatewayEndpointProfile {
  return {
    provider: 'cloud',
    server: 'Cloud API',
    credential: 'Cloud API access token',
    headers: (token) => ({ authorization: `Bearer ${token}` }),
    judge: graphErrorJudge(pairRateDelayMs),
  };
}

/** The Graph API client of one Cloud API business number (see the file's head). Throws TypeError for an unusable server URL, an empty access token or a phone number id that is not digits. */
export class CloudClient implements GatewayClient {
  readonly provider = 'cloud' as const;
  /** The Graph API base, without a trailing slash (holds no secret). */
  readonly serverUrl: string;
  readonly phoneNumberId: string;
  readonly #http: GatewayHttp;

  constructor(options: CloudClientOptions) {
    this.#http = new GatewayHttp(options, cloudEndpoint(options.pairRateDelayMs ?? 6_000));
    if (typeof options.phoneNumberId !== 'string' || !PHONE_NUMBER_ID.test(options.phoneNumberId))
      throw new TypeError('Cloud API phone number id (external_id) must be digits');
    this.serverUrl = this.#http.serverUrl;
    this.phoneNumberId = options.phoneNumberId;
  }

  get #messagesUrl(): string {
    return `${this.serverUrl}/${this.phoneNumberId}/messages`;
  }

  /**
   * Sends one free-form text. Outside the lead's 24-hour window Meta refuses it with
   * OutsideWindowError (131047); see windowed-send.ts for the template fallback.
   */
  async sendText(request: CloudSendTextRequest, options: GatewayCallOptions = {}): Promise<SendTextResult> {
    checkNumber(request.number, 'sendText');
    if (typeof request.text !== 'string' || request.text.trim() === '') throw new TypeError('sendText: text is empty');
    if (request.text.length > MAX_TEXT_CHARS) throw new RangeError(`sendText: text longer than ${MAX_TEXT_CHARS} characters`);
    await this.#typing(request, options);
    return this.#http.measured('send', (policy) =>
      this.#postMessage(
        {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: request.number,
          type: 'text',
          text: { body: request.text, preview_url: false },
          ...callbackData(request.send_id),
        },
        options,
        policy,
      ),
    );
  }

  /** `id:<send_id>`: every status of the message carries the send id back as `biz_opaque_callback_data` (send-evidence.ts). */
  sendEvidenceKey(request: SendTextRequest): string | null {
    return request.send_id ? idEvidenceKey(request.send_id) : null;
  }

  /** Sends an approved template with body parameters (reference §2.9). Allowed inside and outside the window. */
  async sendTemplate(request: SendTemplateRequest, options: GatewayCallOptions = {}): Promise<SendTextResult> {
    checkNumber(request.number, 'sendTemplate');
    const template = templateBody(request.template, request.parameters);
    return this.#http.measured('send', (policy) =>
      this.#postMessage(
        {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: request.number,
          type: 'template',
          template,
          ...callbackData(request.send_id),
        },
        options,
        policy,
      ),
    );
  }

  /** Waits the typing delay, showing Meta's typing indicator first when the lead's message is named. */
  async #typing(request: CloudSendTextRequest, options: GatewayCallOptions): Promise<void> {
    const delay = Math.max(0, Math.round(request.delay ?? 0));
    const inbound = request.typing_message_id;
    if (typeof inbound === 'string' && inbound !== '') {
      try {
        await this.#http.call(
          {
            method: 'POST',
            url: this.#messagesUrl,
            body: { messaging_product: 'whatsapp', status: 'read', message_id: inbound, typing_indicator: { type: 'text' } },
            retryTimeouts: true,
            maxResponseBytes: MAX_SEND_ANSWER_BYTES,
            expect: 'json',
            ...(options.signal ? { signal: options.signal } : {}),
          },
          { ...this.#http.policy, retries: 0 },
        );
      } catch (err) {
        if (options.signal?.aborted) throw options.signal.reason;
        this.#http.policy.logger?.warn(
          { gateway: displayUrl(this.#messagesUrl), error: (err as Error).message },
          'typing indicator failed',
        );
      }
    }
    if (delay > 0) await sleep(delay, options.signal);
  }

  async #postMessage(body: JsonObject, options: GatewayCallOptions, policy: RetryPolicy): Promise<SendTextResult> {
    const { object } = await this.#http.callForObject(
      {
        method: 'POST',
        url: this.#messagesUrl,
        body,
        retryTimeouts: false,
        maxResponseBytes: MAX_SEND_ANSWER_BYTES,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      policy,
    );
    return { messageid: messageIdOf(object), answer: object };
  }

  /** Downloads a received media by its media id (the webhook's `image.id`, `audio.id`, …). */
  async downloadMedia(mediaId: string, options: GatewayCallOptions = {}): Promise<DownloadedMedia> {
    if (typeof mediaId !== 'string' || !MEDIA_ID.test(mediaId)) throw new TypeError('downloadMedia: not a media id');
    return this.#http.measured('download', (policy) => this.#downloadMedia(mediaId, options, policy));
  }

  async #downloadMedia(mediaId: string, options: GatewayCallOptions, policy: RetryPolicy): Promise<DownloadedMedia> {
    const infoUrl = `${this.serverUrl}/${encodeURIComponent(mediaId)}?phone_number_id=${this.phoneNumberId}`;
    const target = displayUrl(infoUrl);
    const signal = options.signal ? { signal: options.signal } : {};
    const info = await this.#http.callForObject(
      { method: 'GET', url: infoUrl, retryTimeouts: true, maxResponseBytes: MAX_MEDIA_INFO_BYTES, ...signal },
      policy,
    );
    const meta = info.object;
    if (typeof meta.url !== 'string' || meta.url === '') throw unusableAnswer('GET', target, info.status, 'no url in the answer');
    const mediaUrl = this.#checkedMediaUrl(meta.url, target, info.status);
    const size = Number(meta.file_size);
    if (Number.isFinite(size) && size > this.#http.maxDownloadBytes)
      throw unusableAnswer('GET', target, info.status, `media of ${size} bytes is larger than ${this.#http.maxDownloadBytes} bytes`);
    const file = await this.#http.call(
      {
        method: 'GET',
        url: mediaUrl,
        retryTimeouts: true,
        maxResponseBytes: this.#http.maxDownloadBytes,
        expect: 'bytes',
        ...signal,
      },
      policy,
    );
    const mimetype =
      typeof meta.mime_type === 'string' && meta.mime_type !== ''
        ? meta.mime_type
        : file.contentType !== ''
          ? file.contentType
          : 'application/octet-stream';
    return { mimetype, bytes: file.bytes ?? Buffer.alloc(0) };
  }

  /** The media URL, when the token may be sent to it: https, or the Graph base's own origin. */
  #checkedMediaUrl(value: string, target: string, status: number): string {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw unusableAnswer('GET', target, status, 'the media url is not a URL');
    }
    if (url.protocol !== 'https:' && url.origin !== this.#http.origin)
      throw unusableAnswer('GET', target, status, 'the media url is neither https nor on the Graph API origin');
    return url.toString();
  }

  toJSON(): object {
    return { provider: this.provider, serverUrl: this.serverUrl, phoneNumberId: this.phoneNumberId };
  }
}

function checkNumber(number: unknown, what: string): void {
  if (typeof number !== 'string' || !PHONE.test(number))
    throw new TypeError(`${what}: number must be 8-15 digits (country code first, no + or JID suffix)`);
}

/** The `template` object of a template send: positional parameters, or named ones when `parameter_names` is given. */
export function templateBody(template: CloudTemplateRef, parameters: string[]): JsonObject {
  if (!template || typeof template.name !== 'string' || template.name === '') throw new TypeError('sendTemplate: template name is empty');
  if (typeof template.language !== 'string' || template.language === '') throw new TypeError('sendTemplate: template language is empty');
  if (!Array.isArray(parameters) || parameters.some((p) => typeof p !== 'string'))
    throw new TypeError('sendTemplate: parameters must be a list of texts');
  const names = template.parameter_names;
  if (names !== undefined && names.length !== parameters.length)
    throw new TypeError(`sendTemplate: template ${template.name} names ${names.length} parameters, ${parameters.length} given`);
  const out: JsonObject = { name: template.name, language: { code: template.language } };
  if (parameters.length > 0) {
    out.components = [
      {
        type: 'body',
        parameters: parameters.map((text, i) => ({ type: 'text', ...(names ? { parameter_name: names[i] ?? '' } : {}), text })),
      },
    ];
  }
  return out;
}

/** `messages[0].id` of a send answer, else null. */
function messageIdOf(answer: Record<string, unknown>): string | null {
  const messages = answer.messages;
  if (!Array.isArray(messages)) return null;
  const id = (messages[0] as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' && id !== '' ? id : null;
}

/** Builds the client of one Cloud API instance row (`server_url`, `token`, `external_id`), like uazapiClientFactory. */
export function cloudClientFactory(defaults: CloudClientDefaults = {}): (instance: CloudInstanceAccess) => CloudClient {
  return (instance) => {
    if (typeof instance.external_id !== 'string' || instance.external_id === '')
      throw new TypeError('a Cloud API instance needs external_id (its phone number id)');
    return new CloudClient({ ...defaults, serverUrl: instance.server_url, token: instance.token, phoneNumberId: instance.external_id });
  };
}

/** `biz_opaque_callback_data` of a send with an id (Meta echoes it on the message's statuses); nothing without one. */
function callbackData(sendId: string | undefined): { biz_opaque_callback_data?: string } {
  return sendId ? { biz_opaque_callback_data: sendId } : {};
}
