// The HTTP base every provider's client is built on (uazapi, Evolution, Cloud): the checks of an
// instance's server URL and credential, the shared options' defaults (http-client-options.ts), and
// its calls: each with the credential's headers, the retry policy of http-call.ts and the metrics
// hook (measured-call.ts), each call's events labelled with the provider the profile names. The credential lives in a private field: it is sent as the headers the
// provider names and never appears in an error, a log line or `JSON.stringify`.
// Defaults: timeoutMs 15000 (per attempt), retries 3, baseDelayMs 500, maxDelayMs 8000,
// maxRetryAfterMs 30000, maxDownloadBytes 64 MiB, the global fetch, Math.random.
import type { GatewayCallEvent } from './gateway-client.js';
import type { GatewayHttpOptions } from './http-client-options.js';
import type { GatewayProvider } from './providers.js';
import {
  displayUrl,
  type ErrorAnswerJudge,
  type HttpAnswer,
  type HttpCall,
  httpCall,
  type RetryPolicy,
  unusableAnswer,
} from './http-call.js';
import { measuredCall } from './measured-call.js';

/** An instance's server and credential, and the shared client options. */
export interface GatewayEndpointOptions extends GatewayHttpOptions {
  /** The instance's server, e.g. `https://acme.uazapi.com` (http or https; a trailing slash is dropped). */
  serverUrl: string;
  /** The instance's credential (instance token, API key, access token). */
  token: string;
}

/** What a provider's client adds to the base: how its messages name it, how its credential is sent, its own error reading. */
export interface GatewayEndpointProfile {
  /** The registered provider this client speaks to: the `provider` label of its calls' metrics. */
  provider: GatewayProvider;
  /** How an unusable row's TypeError names the server: `<server> server_url is not a valid URL` (e.g. `uazapi`, `Cloud API`). */
  server: string;
  /** How it names the credential: `<credential> is empty` (e.g. `uazapi token`, `Cloud API access token`). */
  credential: string;
  /** The request headers carrying the credential (e.g. `{token}`, `{apikey}`, `{authorization: 'Bearer …'}`). */
  headers(token: string): Record<string, string>;
  /** Wraps the fetch of every call (e.g. Evolution's error answers given the status they mean). */
  wrapFetch?: (inner: typeof fetch) => typeof fetch;
  /** What a non-2xx answer means (default: a GatewayHttpError, retried for 429 and 5xx). */
  judge?: ErrorAnswerJudge;
}

/** One call as a client asks for it: the base adds the credential, the secret to redact and, by default, its time limit. */
export type GatewayRequest = Omit<HttpCall, 'headers' | 'secret' | 'timeoutMs'> & { timeoutMs?: number };

/** Largest answer to a send read, bytes. */
export const MAX_SEND_ANSWER_BYTES = 1024 * 1024;

/** The HTTP side of one instance's client (see the file's head). Throws TypeError for an unusable server URL or an empty credential. */
export class GatewayHttp {
  /** The server, without a trailing slash (holds no secret). */
  readonly serverUrl: string;
  /** The server's origin (scheme, host, port). */
  readonly origin: string;
  /** Time limit of one attempt, ms. */
  readonly timeoutMs: number;
  /** Largest media download read, bytes. */
  readonly maxDownloadBytes: number;
  /** The retry policy of every call (without the metrics hook: see `measured`). */
  readonly policy: RetryPolicy;
  readonly #headers: Record<string, string>;
  readonly #token: string;
  readonly #onCall: ((event: GatewayCallEvent) => void) | undefined;
  readonly #provider: GatewayProvider;

  constructor(options: GatewayEndpointOptions, profile: GatewayEndpointProfile) {
    let url: URL;
    try {
      url = new URL(options.serverUrl);
    } catch {
      throw new TypeError(`${profile.server} server_url is not a valid URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`${profile.server} server_url must be http(s)`);
    if (typeof options.token !== 'string' || options.token === '') throw new TypeError(`${profile.credential} is empty`);
    this.serverUrl = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
    this.origin = url.origin;
    this.#token = options.token;
    this.#headers = profile.headers(options.token);
    this.timeoutMs = options.timeoutMs ?? 15_000;
    this.maxDownloadBytes = options.maxDownloadBytes ?? 64 * 1024 * 1024;
    const fetch = options.fetch ?? globalThis.fetch;
    this.policy = {
      retries: options.retries ?? 3,
      baseDelayMs: options.baseDelayMs ?? 500,
      maxDelayMs: options.maxDelayMs ?? 8_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 30_000,
      random: options.random ?? Math.random,
      fetch: profile.wrapFetch ? profile.wrapFetch(fetch) : fetch,
      ...(options.logger ? { logger: options.logger } : {}),
      ...(profile.judge ? { judge: profile.judge } : {}),
    };
    this.#onCall = options.onCall;
    this.#provider = profile.provider;
  }

  /** Runs one operation's calls with `policy` reporting its retries, and reports its end, labelled with the profile's provider (the hook never breaks the call). */
  measured<T>(op: GatewayCallEvent['op'], run: (policy: RetryPolicy) => Promise<T>): Promise<T> {
    return measuredCall(this.#onCall, this.policy, this.#provider, op, run);
  }

  /** One call with the credential's headers, retried under `policy` (default: this client's, unmeasured). */
  call(request: GatewayRequest, policy: RetryPolicy = this.policy): Promise<HttpAnswer> {
    return httpCall({ ...request, headers: this.#headers, secret: this.#token, timeoutMs: request.timeoutMs ?? this.timeoutMs }, policy);
  }

  /** One call whose 2xx answer must be a JSON object: that object and the status; otherwise a GatewayResponseError `not a JSON object`. */
  async callForObject(
    request: Omit<GatewayRequest, 'expect'>,
    policy: RetryPolicy = this.policy,
  ): Promise<{ status: number; object: Record<string, unknown> }> {
    const answer = await this.call({ ...request, expect: 'json' }, policy);
    const json = answer.json;
    if (!json || typeof json !== 'object' || Array.isArray(json))
      throw unusableAnswer(request.method, displayUrl(request.url), answer.status, 'not a JSON object');
    return { status: answer.status, object: json as Record<string, unknown> };
  }
}
