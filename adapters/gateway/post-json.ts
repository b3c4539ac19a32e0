// One JSON POST to a gateway, with a time limit per attempt and retries:
//   retried:      429 and 5xx answers, network failures (refused, reset, DNS), and timeouts when the
//                 call is idempotent (`retryTimeouts`);
//   not retried:  any other 4xx, unusable 2xx answers, the caller's abort (its reason is rethrown).
// Waits: the Retry-After header when the answer has one (a value above `maxRetryAfterMs` is not
// waited for: the error is thrown at once, carrying `retryAfterMs`), else exponential backoff with
// jitter (backoff.ts). The secret (instance token) is removed from every error body and message.
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
}

export interface PostJsonCall {
  url: string;
  headers: Record<string, string>;
  body: JsonValue;
  /** Removed from error texts (the instance token). */
  secret: string;
  /** Time limit of each attempt, ms (headers and body). */
  timeoutMs: number;
  /** Retry after a timeout (only for calls that change nothing on the gateway). */
  retryTimeouts: boolean;
  /** Largest answer read, bytes. */
  maxResponseBytes: number;
  signal?: AbortSignal;
}

export interface JsonAnswer {
  status: number;
  /** Parsed JSON of a 2xx answer. */
  body: unknown;
  /** Attempts made (1 = no retry). */
  attempts: number;
}

/** Longest error body kept on GatewayHttpError, characters. */
const MAX_ERROR_BODY_CHARS = 4096;

type Attempt = { ok: JsonAnswer } | { error: Error; retryable: boolean; retryAfterMs?: number };

export async function postJson(call: PostJsonCall, policy: RetryPolicy): Promise<JsonAnswer> {
  const target = displayUrl(call.url);
  for (let attempt = 1; ; attempt++) {
    const outcome = await attemptOnce(call, policy, target, attempt);
    if ('ok' in outcome) return outcome.ok;
    const { error } = outcome;
    let retryable = outcome.retryable && attempt <= policy.retries;
    if (retryable && outcome.retryAfterMs !== undefined && outcome.retryAfterMs > policy.maxRetryAfterMs) retryable = false;
    if (!retryable) throw error;
    const delay = outcome.retryAfterMs ?? backoffDelay(attempt, policy.baseDelayMs, policy.maxDelayMs, policy.random);
    policy.logger?.warn({ gateway: target, attempt, retry_in_ms: delay, error: error.message }, 'gateway call failed, retrying');
    policy.onRetry?.();
    await sleep(delay, call.signal);
  }
}

async function attemptOnce(call: PostJsonCall, policy: RetryPolicy, target: string, attempt: number): Promise<Attempt> {
  if (call.signal?.aborted) throw call.signal.reason;
  const timeout = AbortSignal.timeout(call.timeoutMs);
  const signal = call.signal ? AbortSignal.any([timeout, call.signal]) : timeout;
  let status = 0;
  let retryAfter: string | null = null;
  let text: string | null;
  try {
    const response = await policy.fetch(call.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...call.headers },
      body: JSON.stringify(call.body),
      signal,
    });
    status = response.status;
    retryAfter = response.headers.get('retry-after');
    text = await readLimited(response, call.maxResponseBytes);
  } catch (err) {
    if (call.signal?.aborted) throw call.signal.reason;
    if (timeout.aborted) return { error: new GatewayTimeoutError(target, call.timeoutMs, { cause: err }), retryable: call.retryTimeouts };
    return { error: new GatewayNetworkError(target, networkCode(err), { cause: err }), retryable: true };
  }
  if (text === null) {
    return { error: new GatewayResponseError(target, status, `answer larger than ${call.maxResponseBytes} bytes`), retryable: false };
  }
  if (status < 200 || status > 299) {
    const retryAfterMs = parseRetryAfter(retryAfter);
    const error = new GatewayHttpError(status, redactValue(errorBody(text), call.secret), target, retryAfterMs);
    return { error, retryable: status === 429 || status >= 500, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }
  try {
    return { ok: { status, body: JSON.parse(text) as unknown, attempts: attempt } };
  } catch (err) {
    const snippet = JSON.stringify(redactText(text.slice(0, 80), call.secret));
    return { error: new GatewayResponseError(target, status, `not JSON (starts ${snippet})`, { cause: err }), retryable: false };
  }
}

/** The body text, or null when it is longer than `limit` bytes (the rest is not read). */
async function readLimited(response: Response, limit: number): Promise<string | null> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!response.body) return '';
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
  return Buffer.concat(chunks).toString('utf8');
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

/** Origin and path only: no query string, no user info. */
export function displayUrl(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}
