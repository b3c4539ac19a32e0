// One HTTP call to a gateway, with a time limit per attempt and retries: the call every provider's
// client makes (through GatewayHttp, http-client.ts), written once.
//   retried:      what the policy's `judge` calls retryable of a non-2xx answer (default: 429 and
//                 5xx; the Cloud API's judge reads Meta's codes, cloud/error-codes.ts), network
//                 failures (refused, reset, DNS), and timeouts when the call changes nothing
//                 (`retryTimeouts`: downloads and GETs, never a send: it may have been delivered);
//   not retried:  any other answer, unusable 2xx answers, the caller's abort (its reason is rethrown
//                 as is).
// Waits: the Retry-After header when the answer has one (a value above `maxRetryAfterMs` is not
// waited for: the error is thrown at once, carrying `retryAfterMs`), else exponential backoff with
// jitter (backoff.ts), at least the judge's `minDelayMs`. The secret (instance token, access token)
// is removed from every error body and message; errors name the call by its method, origin and path
// only (a media URL's query string is never shown). Error bodies keep at most 4096 characters.
import type { JsonValue } from '../../engine/types.js';
import { backoffDelay, parseRetryAfter, sleep } from './backoff.js';
import { GatewayHttpError } from './errors/gateway-http-error.js';
import { GatewayNetworkError } from './errors/gateway-network-error.js';
import { GatewayResponseError } from './errors/gateway-response-error.js';
import { GatewayTimeoutError } from './errors/gateway-timeout-error.js';
import { redactText, redactValue } from './redact.js';

/** pino- and engine-Logger-compatible sink for retry notices (fields never hold the token). */
export interface GatewayLogger {
  warn(fields: object, message: string): void;
}

/** A non-2xx answer as a judge sees it: its body already cut to 4096 characters and rid of the secret. */
export interface ErrorAnswer {
  status: number;
  /** The answer's JSON, else its text (cut). */
  body: JsonValue;
  /** Origin and path of the call (no query, no credentials). */
  url: string;
  method: 'GET' | 'POST';
  /** The Retry-After header in ms, when the answer had a readable one. */
  retryAfterMs?: number | undefined;
}

/** What a non-2xx answer means: the error to throw, whether to retry, and the shortest wait before a retry (ms). */
export interface ErrorVerdict {
  error: Error;
  retryable: boolean;
  minDelayMs?: number;
}

/** Turns a non-2xx answer into its verdict. Must not throw. */
export type ErrorAnswerJudge = (answer: ErrorAnswer) => ErrorVerdict;

/** The retry policy of a client's calls (defaults: http-client.ts). Units: ms. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /** First backoff delay, ms; doubles per retry. */
  baseDelayMs: number;
  /** Cap of one backoff delay, ms. */
  maxDelayMs: number;
  /** Longest Retry-After honoured by waiting, ms. */
  maxRetryAfterMs: number;
  random: () => number;
  fetch: typeof fetch;
  logger?: GatewayLogger;
  /** Called before each retry's wait (metrics); must not throw. */
  onRetry?: () => void;
  /** What a non-2xx answer means; default gatewayHttpVerdict (a GatewayHttpError, retried for 429 and 5xx). */
  judge?: ErrorAnswerJudge;
}

/** One call: what is sent, and what its answer may be. */
export interface HttpCall {
  method: 'GET' | 'POST';
  url: string;
  /** Request headers beside content-type and accept (the credential's, e.g. `token`, `apikey`, `authorization`). */
  headers: Record<string, string>;
  /** JSON body (sent as `application/json`); absent: no body. */
  body?: JsonValue;
  /** Removed from every error text and body (the instance token or access token). */
  secret: string;
  /** Time limit of each attempt, ms (headers and body). */
  timeoutMs: number;
  /** Retry after a timeout (only for calls that change nothing on the gateway). */
  retryTimeouts: boolean;
  /** Largest answer read, bytes. */
  maxResponseBytes: number;
  /** `json`: a 2xx answer must be JSON; `bytes`: the 2xx answer's bytes as they are. */
  expect: 'json' | 'bytes';
  signal?: AbortSignal;
}

/** A 2xx answer. */
export interface HttpAnswer {
  status: number;
  /** Parsed JSON (expect `json`). */
  json?: unknown;
  /** The body (expect `bytes`). */
  bytes?: Buffer;
  /** The answer's Content-Type header ('' when none). */
  contentType: string;
  /** Attempts made (1 = no retry). */
  attempts: number;
}

/** Longest error body kept on an error, characters. */
const MAX_ERROR_BODY_CHARS = 4096;

type Attempt = { ok: HttpAnswer } | { error: Error; retryable: boolean; retryAfterMs?: number; minDelayMs?: number };

/** Makes `call`, retried under `policy` (see the file's head); resolves with the 2xx answer or throws the last error. */
export async function httpCall(call: HttpCall, policy: RetryPolicy): Promise<HttpAnswer> {
  const target = displayUrl(call.url);
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(call, policy, target, attempt);
    if ('ok' in outcome) return outcome.ok;
    const { error } = outcome;
    let retryable = outcome.retryable && attempt <= policy.retries;
    if (retryable && outcome.retryAfterMs !== undefined && outcome.retryAfterMs > policy.maxRetryAfterMs) retryable = false;
    if (!retryable) throw error;
    const delay =
      outcome.retryAfterMs ??
      Math.max(backoffDelay(attempt, policy.baseDelayMs, policy.maxDelayMs, policy.random), outcome.minDelayMs ?? 0);
    policy.logger?.warn({ gateway: target, attempt, retry_in_ms: delay, error: error.message }, 'gateway call failed, retrying');
    policy.onRetry?.();
    await sleep(delay, call.signal);
  }
}

/** The answer of one attempt as status, headers read and body (null: longer than allowed), or the failure to reach it. */
type Received = { status: number; retryAfter: string | null; contentType: string; raw: Buffer | null } | { failed: Attempt };

async function receive(call: HttpCall, policy: RetryPolicy, target: string): Promise<Received> {
  if (call.signal?.aborted) throw call.signal.reason;
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
  try {
    const response = await policy.fetch(call.url, {
      method: call.method,
      headers: {
        ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}),
        accept: call.expect === 'json' ? 'application/json' : '*/*',
        ...call.headers,
      },
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
      signal,
    });
    const { status } = response;
    const retryAfter = response.headers.get('retry-after');
    const contentType = response.headers.get('content-type') ?? '';
    return { status, retryAfter, contentType, raw: await readLimited(response, call.maxResponseBytes) };
  } catch (err) {
    if (call.signal?.aborted) throw call.signal.reason;
    if (timeout.aborted)
      return {
        failed: {
          error: named(new GatewayTimeoutError(target, call.timeoutMs, { cause: err }), call.method),
          retryable: call.retryTimeouts,
        },
      };
    return { failed: { error: named(new GatewayNetworkError(target, networkCode(err), { cause: err }), call.method), retryable: true } };
  }
}

async function attemptOnce(call: HttpCall, policy: RetryPolicy, target: string, attempt: number): Promise<Attempt> {
  const received = await receive(call, policy, target);
  if ('failed' in received) return received.failed;
  const { status, raw, contentType } = received;
  if (raw === null) {
    return { error: unusableAnswer(call.method, target, status, `answer larger than ${call.maxResponseBytes} bytes`), retryable: false };
  }
  if (status < 200 || status > 299) return failure(call, policy, target, status, raw.toString('utf8'), received.retryAfter);
  if (call.expect === 'bytes') return { ok: { status, bytes: raw, contentType, attempts: attempt } };
  const text = raw.toString('utf8');
  try {
    return { ok: { status, json: JSON.parse(text) as unknown, contentType, attempts: attempt } };
  } catch (err) {
    const snippet = JSON.stringify(redactText(text.slice(0, 80), call.secret));
    return { error: unusableAnswer(call.method, target, status, `not JSON (starts ${snippet})`, err), retryable: false };
  }
}

function failure(call: HttpCall, policy: RetryPolicy, target: string, status: number, text: string, retryAfter: string | null): Attempt {
  const retryAfterMs = parseRetryAfter(retryAfter);
  const body = redactValue(errorBody(text), call.secret);
  const verdict = (policy.judge ?? gatewayHttpVerdict)({ status, body, url: target, method: call.method, retryAfterMs });
  return {
    error: verdict.error,
    retryable: verdict.retryable,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(verdict.minDelayMs !== undefined ? { minDelayMs: verdict.minDelayMs } : {}),
  };
}

/** The default judge: a GatewayHttpError, retried for 429 and 5xx (never for another 4xx). */
export function gatewayHttpVerdict(answer: ErrorAnswer): ErrorVerdict {
  return {
    error: new GatewayHttpError(answer.status, answer.body, answer.url, answer.retryAfterMs),
    retryable: answer.status === 429 || answer.status >= 500,
  };
}

/** A GatewayResponseError naming the call's method (`unusable answer from GET …`). */
export function unusableAnswer(
  method: 'GET' | 'POST',
  target: string,
  status: number,
  problem: string,
  cause?: unknown,
): GatewayResponseError {
  return named(new GatewayResponseError(target, status, problem, cause === undefined ? undefined : { cause }), method);
}

/** The shared gateway errors say "POST" in their message; a GET says GET. */
function named<E extends Error>(error: E, method: 'GET' | 'POST'): E {
  if (method !== 'POST') error.message = error.message.replace(/\bPOST\b/, method);
  return error;
}

/** The body's bytes, or null when they are more than `limit` bytes (declared or read; the rest is not read, the body cancelled). */
export async function readLimited(response: Response, limit: number): Promise<Buffer | null> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** The JSON of an error answer, else its text; cut to MAX_ERROR_BODY_CHARS. */
function errorBody(text: string): JsonValue {
  if (text.length > MAX_ERROR_BODY_CHARS) return text.slice(0, MAX_ERROR_BODY_CHARS);
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text.slice(0, MAX_ERROR_BODY_CHARS);
  }
}

/** The first string `code` along the cause chain (undici puts the socket error under `cause`). */
function networkCode(err: unknown): string {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return 'network';
}

/** Origin and path only: no query string, no user info. */
export function displayUrl(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}
