// What a WhatsApp Cloud (Graph) API error means for a retry. Meta: "build your app's error handling
// logic around code values and details payload properties ... instead of subcodes or HTTP response
// status codes"; titles will be deprecated (developers.facebook.com/documentation/business-messaging/
// whatsapp/support/error-codes, read 2026; reference whatsapp-providers.md §2.11). So the code decides
// first, and the HTTP status only when the code says nothing:
//
//   131047                      outside the 24-hour window       OutsideWindowError, never retried
//   4, 80007                    app / WABA API-call rate limit   rate limit, retried with backoff
//   130429                      Cloud API throughput reached     rate limit, retried with backoff
//   131056                      pair rate limit (1 msg / 6 s     rate limit, retried; first wait at
//                               to the same user)                least `pairRateDelayMs` (6 s)
//   131048                      spam-rate restriction on the     rate limit, NOT retried: it lasts
//                               number                           (quality), resending makes it worse
//   1, 2, 131000, 131016,       unknown / service unavailable /  retried with backoff
//   131057                      temporary / account maintenance
//   anything else               HTTP 429 or 5xx: retried; any other 4xx: not retried
import type { ErrorAnswerJudge } from '../http-call.js';
import { GraphApiError, type GraphErrorInfo, OutsideWindowError } from './errors.js';

/** Meta's code for a free-form message outside the lead's 24-hour window (OutsideWindowError, never retried). */
export const OUTSIDE_WINDOW_CODE = 131047;
/** Meta's pair rate limit: one message every 6 s to the same user (retried, the first wait at least `pairRateDelayMs`). */
export const PAIR_RATE_LIMIT_CODE = 131056;
/** Meta's spam-rate restriction on the number: a rate limit that lasts, never retried. */
export const SPAM_RATE_LIMIT_CODE = 131048;
/** Rate limits worth retrying after a wait. */
export const RETRIED_RATE_LIMIT_CODES: ReadonlySet<number> = new Set([4, 80007, 130429, PAIR_RATE_LIMIT_CODE]);
/** Temporary failures on Meta's side. */
export const TRANSIENT_CODES: ReadonlySet<number> = new Set([1, 2, 131000, 131016, 131057]);

/** What kind of failure a Graph error answer is (see the table above). */
export type GraphErrorClass = 'outside-window' | 'rate-limit' | 'transient' | 'other';

/** classifyGraphError's answer: the kind, whether a retry may help, and whether Meta counts it as a rate limit. */
export interface GraphErrorVerdict {
  class: GraphErrorClass;
  retryable: boolean;
  rateLimited: boolean;
}

const asObj = (v: unknown): Record<string, unknown> | undefined =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** An integer from a number or a numeric string (Meta's docs show both), else undefined. */
function intOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\d{1,12}$/.test(v)) return Number(v);
  return undefined;
}

/** The `error` object of a Graph API error answer, or undefined when the body has none. */
export function graphErrorOf(body: unknown): GraphErrorInfo | undefined {
  const error = asObj(asObj(body)?.error);
  if (!error) return undefined;
  const info: GraphErrorInfo = {};
  const code = intOf(error.code);
  const subcode = intOf(error.error_subcode);
  if (code !== undefined) info.code = code;
  if (subcode !== undefined) info.error_subcode = subcode;
  if (typeof error.type === 'string') info.type = error.type;
  if (typeof error.message === 'string') info.message = error.message;
  const details = asObj(error.error_data)?.details;
  if (typeof details === 'string') info.details = details;
  if (typeof error.fbtrace_id === 'string') info.fbtrace_id = error.fbtrace_id;
  return info;
}

/** How to treat a non-2xx answer with this HTTP status and Graph error (see the table above). */
export function classifyGraphError(status: number, info: GraphErrorInfo | undefined): GraphErrorVerdict {
  const code = info?.code;
  if (code === OUTSIDE_WINDOW_CODE) return { class: 'outside-window', retryable: false, rateLimited: false };
  if (code !== undefined && RETRIED_RATE_LIMIT_CODES.has(code)) return { class: 'rate-limit', retryable: true, rateLimited: true };
  if (code === SPAM_RATE_LIMIT_CODE) return { class: 'rate-limit', retryable: false, rateLimited: true };
  if (code !== undefined && TRANSIENT_CODES.has(code)) return { class: 'transient', retryable: true, rateLimited: false };
  if (status === 429) return { class: 'rate-limit', retryable: true, rateLimited: true };
  if (status >= 500) return { class: 'transient', retryable: true, rateLimited: false };
  return { class: 'other', retryable: false, rateLimited: false };
}

/**
 * The Cloud API's judge of a non-2xx answer (http-call.ts): a GraphApiError with Meta's fields, or
 * OutsideWindowError for 131047; retried as classifyGraphError says; Meta's pair rate limit (131056)
 * waits at least `pairRateDelayMs` before its retry.
 */
export function graphErrorJudge(pairRateDelayMs: number): ErrorAnswerJudge {
  return ({ status, body, url, method, retryAfterMs }) => {
    const info = graphErrorOf(body);
    const verdict = classifyGraphError(status, info);
    const init = { status, body, url, method, info, retryAfterMs };
    const error =
      verdict.class === 'outside-window' ? new OutsideWindowError(init) : new GraphApiError({ ...init, rateLimited: verdict.rateLimited });
    return { error, retryable: verdict.retryable, ...(info?.code === PAIR_RATE_LIMIT_CODE ? { minDelayMs: pairRateDelayMs } : {}) };
  };
}
