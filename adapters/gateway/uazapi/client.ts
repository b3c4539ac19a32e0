// HTTP client of one uazapi (uazapiGO v2) instance. Contract (CONTRACT §5, reference §1.5-1.6):
//   sendText      POST {server_url}/send/text         header `token`, body {number, text, delay}, and with a
//                 send id `track_source: "leadflow"`, `track_id: <send id>` (echoed on its webhook)
//   downloadMedia POST {server_url}/message/download  header `token`, body {id, return_base64: true, return_link: false}
// Time limits are per attempt. A send's limit is `timeoutMs + delay`, because uazapi may hold the
// answer while it shows "typing…" for `delay` ms. Retries (http-call.ts): 429 / 5xx / network
// failures; timeouts only for downloads (a timed-out send may have been delivered, and resending
// would duplicate it). The token lives in the HTTP base's private field (http-client.ts): it is sent
// as a header and never appears in an error, a log line or `JSON.stringify(client)`.
import type {
  DownloadedMedia,
  GatewayCallOptions,
  GatewayClient,
  GatewayClientFactory,
  GatewayOperation,
  GatewayRequestRecord,
  SendTextRequest,
  SendTextResult,
} from '../gateway-client.js';
import { GatewayResponseError } from '../errors/gateway-response-error.js';
import { displayUrl, type RetryPolicy } from '../http-call.js';
import { type GatewayEndpointProfile, GatewayHttp } from '../http-client.js';
import { postPlainText } from '../plain-text-send.js';
import type { GatewayHttpOptions } from '../http-client-options.js';
import { decodeBase64Media } from '../base64-media.js';
import { idEvidenceKey } from '../send-evidence.js';

/** The `track_source` of LeadFlow's sends (uazapi echoes it with `track_id` on the sent message's webhook). */
export const UAZAPI_TRACK_SOURCE = 'leadflow';

/** A uazapi instance's address and token, and the common client options (http-client-options.ts). */
export interface UazapiClientOptions extends GatewayHttpOptions {
  /** Instance server, e.g. `https://acme.uazapi.com` (a trailing slash is dropped). */
  serverUrl: string;
  /** Instance token (header `token`). */
  token: string;
  /** Largest download answer read, bytes (base64 is ~4/3 of the media). Default 64 MiB. */
  maxDownloadBytes?: number;
}

export type { GatewayCallEvent } from '../gateway-client.js';

/** The options every uazapi client of a host shares (all but the instance's server and token). */
export type UazapiClientDefaults = Omit<UazapiClientOptions, 'serverUrl' | 'token'>;

/** How uazapi names its server and token, and sends the token: header `token`. */
const UAZAPI_ENDPOINT: GatewayEndpointProfile = {
  provider: 'uazapi',
  server: 'uazapi',
  credential: 'uazapi token',
  headers: (token) => ({ token }),
};

/** The uazapi instance's client (see the file's head). Throws TypeError for an unusable server URL or an empty token. */
export class UazapiClient implements GatewayClient {
  readonly provider = 'uazapi' as const;
  readonly serverUrl: string;
  readonly #http: GatewayHttp;

  constructor(options: UazapiClientOptions) {
    this.#http = new GatewayHttp(options, UAZAPI_ENDPOINT);
    this.serverUrl = this.#http.serverUrl;
  }

  /** Sends one text. `number` must be digits; `delay` (ms, default 0) is sent as is. */
  async sendText(request: SendTextRequest, options: GatewayCallOptions = {}): Promise<SendTextResult> {
    return this.#http.measured('send', (policy) => this.#sendText(request, options, policy));
  }

  async #sendText(request: SendTextRequest, options: GatewayCallOptions, policy: RetryPolicy): Promise<SendTextResult> {
    const answer = await postPlainText(this.#http, `${this.serverUrl}/send/text`, request, options.signal, policy, trackingOf(request));
    return { messageid: messageIdOf(answer), answer };
  }

  /** Downloads the media of a received message as bytes (base64 decoded); `mediaRef` is the message's bare id. */
  async downloadMedia(mediaRef: string, options: GatewayCallOptions = {}): Promise<DownloadedMedia> {
    return this.#http.measured('download', (policy) => this.#downloadMedia(mediaRef, options, policy));
  }

  /** The request of `operation` as recorded (token as "***"); throws for `send-template` (uazapi has none). */
  describe(operation: GatewayOperation): GatewayRequestRecord {
    const headers = { token: '***', 'content-type': 'application/json' };
    if (operation.op === 'download')
      return {
        method: 'POST',
        url: `${this.serverUrl}/message/download`,
        headers,
        body: { id: operation.media_ref, return_base64: true, return_link: false },
      };
    if (operation.op === 'send-template') throw new TypeError('uazapi sends no templates (sendTemplate is a Cloud API call)');
    const { number, text, delay } = operation.request;
    return {
      method: 'POST',
      url: `${this.serverUrl}/send/text`,
      headers,
      body: { number, text, delay: Math.max(0, Math.round(delay ?? 0)), ...trackingOf(operation.request) },
    };
  }

  /** `id:<send_id>`: uazapi echoes the send's `track_id` on the message's `wasSentByApi` webhook (send-evidence.ts). */
  sendEvidenceKey(request: SendTextRequest): string | null {
    return request.send_id ? idEvidenceKey(request.send_id) : null;
  }

  async #downloadMedia(messageId: string, options: GatewayCallOptions, policy: RetryPolicy): Promise<DownloadedMedia> {
    if (typeof messageId !== 'string' || messageId.trim() === '') throw new TypeError('downloadMedia: message id is empty');
    const url = `${this.serverUrl}/message/download`;
    const target = displayUrl(url);
    const { status, object: body } = await this.#http.callForObject(
      {
        method: 'POST',
        url,
        body: { id: messageId, return_base64: true, return_link: false },
        retryTimeouts: true,
        maxResponseBytes: this.#http.maxDownloadBytes,
        ...(options.signal ? { signal: options.signal } : {}),
      },
      policy,
    );
    if (typeof body.base64Data !== 'string' || body.base64Data === '')
      throw new GatewayResponseError(target, status, 'no base64Data in the answer');
    const { data, mimetype: urlMime } = splitDataUrl(body.base64Data);
    const bytes = decodeBase64Media(data, () => new GatewayResponseError(target, status, 'base64Data is not base64'));
    const mimetype = typeof body.mimetype === 'string' && body.mimetype !== '' ? body.mimetype : (urlMime ?? 'application/octet-stream');
    return {
      mimetype,
      bytes,
      ...(typeof body.transcription === 'string' && body.transcription !== '' ? { transcription: body.transcription } : {}),
    };
  }

  /** What `JSON.stringify` shows of the client: its server only. */
  toJSON(): object {
    return { serverUrl: this.serverUrl };
  }
}

/** `messageid`, else the part after `owner:` of `id`, else null. */
function messageIdOf(answer: Record<string, unknown>): string | null {
  if (typeof answer.messageid === 'string' && answer.messageid !== '') return answer.messageid;
  if (typeof answer.id === 'string' && answer.id !== '') return answer.id.slice(answer.id.lastIndexOf(':') + 1);
  return null;
}

/**
 * uazapi documents bare base64 in `base64Data`; a `data:<mime>;base64,` prefix is not documented
 * but tolerated (some gateways and proxies add it), and its mime type used when `mimetype` is absent.
 */
function splitDataUrl(value: string): { data: string; mimetype?: string } {
  const match = /^data:([^;,]*)(?:;[^,]*)?,/.exec(value);
  if (!match) return { data: value };
  return { data: value.slice(match[0].length), ...(match[1] ? { mimetype: match[1] } : {}) };
}

/**
 * A factory of uazapi clients: one client per call, built from the instance's row. It builds a
 * uazapi client whatever the row's `provider`: `ctx.services.gateway` is the provider registry's
 * factory (provider-registry.ts), which dispatches here for uazapi instances.
 */
export function uazapiClientFactory(defaults: UazapiClientDefaults = {}): GatewayClientFactory {
  return (instance) => new UazapiClient({ ...defaults, serverUrl: instance.server_url, token: instance.token });
}

/** The tracking tags of a send with an id: `track_source` "leadflow", `track_id` the send id (echoed on the message). */
function trackingOf(request: SendTextRequest): Record<string, string> {
  return request.send_id ? { track_source: UAZAPI_TRACK_SOURCE, track_id: request.send_id } : {};
}
