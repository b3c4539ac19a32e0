// One call to the WhatsApp Cloud (Graph) API or to a media URL it handed out, with the access token
// as `Authorization: Bearer`, a time limit per attempt and retries:
//   retried:      what classifyGraphError (graph-errors.ts) calls retryable (Meta's rate-limit and
//                 temporary codes, HTTP 429 and 5xx), network failures (refused, reset, DNS), and
//                 timeouts when the call changes nothing (`retryTimeouts`: GETs, never a send);
//   not retried:  131047 (OutsideWindowError), 131048, any other 4xx, unusable 2xx answers, the
//                 caller's abort (its reason is rethrown as is).
// Waits: the Retry-After header when the answer has one (above `maxRetryAfterMs` it is not waited
// for: the error is thrown at once, carrying `retryAfterMs`); else exponential backoff with jitter
// (backoff.ts); for Meta's pair rate limit (131056: one message every 6 s to the same user) at least
// `pairRateDelayMs`. The token is removed from every error body and message; errors name the call by
// origin and path only (a media URL's query string is never shown).
import type { JsonValue } from '../../../engine/types.js';
import { backoffDelay, parseRetryAfter, sleep } from '../backoff.js';
import { GraphApiError } from './errors.js';
import { GatewayNetworkError } from '../errors/gateway-network-error.js';
import { GatewayResponseError } from '../errors/gateway-response-error.js';
import { GatewayTimeoutError } from '../errors/gateway-timeout-error.js';
import { OutsideWindowError } from './errors.js';
import { displayUrl, type RetryPolicy } from '../post-json.js';
import { redactText, redactValue } from '../redact.js';
import { classifyGraphError, graphErrorOf, PAIR_RATE_LIMIT_CODE } from './error-codes.js';

export interface GraphPolicy extends RetryPolicy {
  /** Shortest wait before retrying Meta's pair rate limit (131056), ms. */
  pairRateDelayMs: number;
}

export interface GraphCall {
  method: 'GET' | 'POST';
  url: string;
  /** The access token: sent as bearer, removed from every error. */
  token: string;
  /** JSON body of a POST. */
  body?: JsonValue;
  /** Time limit of each attempt, ms (headers and body). */
  timeoutMs: number;
  /** Retry after a timeout (only for calls that change nothing). */
  retryTimeouts: boolean;
  /** Largest answer read, bytes. */
  maxResponseBytes: number;
  /** `json`: a 2xx answer must be JSON; `bytes`: the 2xx answer's bytes as they are. */
  expect: 'json' | 'bytes';
  signal?: AbortSignal;
}

export interface GraphAnswer {
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

type Attempt = { ok: GraphAnswer } | { error: Error; retryable: boolean; retryAfterMs?: number; minDelayMs?: number };

export async function graphCall(call: GraphCall, policy: GraphPolicy): Promise<GraphAnswer> {
  const target = displayUrl(call.url);
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(call, policy, target, attempt);
    if ('ok' in outcome) return outcome.ok;
    const { error } = outcome;
    let retryable = outcome.retryable && attempt <= policy.retries;
    if (retryable && outcome.retryAfterMs !== undefined && outcome.retryAfterMs > policy.maxRetryAfterMs) retryable = false;
    if (!retryable) throw error;
    const backoff = backoffDelay(attempt, policy.baseDelayMs, policy.maxDelayMs, policy.random);
    const delay = outcome.retryAfterMs ?? Math.max(backoff, outcome.minDelayMs ?? 0);
    policy.logger?.warn({ gateway: target, attempt, retry_in_ms: delay, error: error.message }, 'gateway call failed, retrying');
    policy.onRetry?.();
    await sleep(delay, call.signal);
  }
}

async function attemptOnce(call: GraphCall, policy: GraphPolicy, target: string, attempt: number): Promise<Attempt> {
  if (call.signal?.aborted) throw call.signal.reason;
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
  let status = 0;
  let retryAfter: string | null = null;
  let contentType = '';
  let raw: Buffer | null;
  try {
    const headers: Record<string, string> = {
      authorization: `Bearer ${call.token}`,
      accept: call.expect === 'json' ? 'application/json' : '*/*',
    };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    const response = await policy.fetch(call.url, {
      method: call.method,
      headers,
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
      signal,
    });
    status = response.status;
    retryAfter = response.headers.get('retry-after');
    contentType = response.headers.get('content-type') ?? '';
    raw = await readLimited(response, call.maxResponseBytes);
  } catch (err) {
    if (call.signal?.aborted) throw call.signal.reason;
    if (timeout.aborted)
      return { error: named(new GatewayTimeoutError(target, call.timeoutMs, { cause: err }), call.method), retryable: call.retryTimeouts };
    return { error: named(new GatewayNetworkError(target, networkCode(err), { cause: err }), call.method), retryable: true };
  }
  if (raw === null) {
    return { error: responseError(call, target, status, `answer larger than ${call.maxResponseBytes} bytes`), retryable: false };
  }
  if (status < 200 || status > 299) return failure(call, policy, target, status, raw.toString('utf8'), retryAfter);
  if (call.expect === 'bytes') return { ok: { status, bytes: raw, contentType, attempts: attempt } };
  const text = raw.toString('utf8');
  try {
    return { ok: { status, json: JSON.parse(text) as unknown, contentType, attempts: attempt } };
  } catch (err) {
    const snippet = JSON.stringify(redactText(text.slice(0, 80), call.token));
    return { error: responseError(call, target, status, `not JSON (starts ${snippet})`, err), retryable: false };
  }
}

function failure(call: GraphCall, policy: GraphPolicy, target: string, status: number, text: string, retryAfter: string | null): Attempt {
  const body = redactValue(errorBody(text), call.token);
  const info = graphErrorOf(body);
  const verdict = classifyGraphError(status, info);
  const retryAfterMs = parseRetryAfter(retryAfter);
  const init = { status, body, url: target, method: call.method, info, retryAfterMs };
  const error =
    verdict.class === 'outside-window' ? new OutsideWindowError(init) : new GraphApiError({ ...init, rateLimited: verdict.rateLimited });
  return {
    error,
    retryable: verdict.retryable,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    ...(info?.code === PAIR_RATE_LIMIT_CODE ? { minDelayMs: policy.pairRateDelayMs } : {}),
  };
}

function responseError(call: GraphCall, target: string, status: number, problem: string, cause?: unknown): GatewayResponseError {
  return unusableAnswer(call.method, target, status, problem, cause);
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

/** The body's bytes, or null when they are more than `limit` (the rest is not read). */
async function readLimited(response: Response, limit: number): Promise<Buffer | null> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
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
