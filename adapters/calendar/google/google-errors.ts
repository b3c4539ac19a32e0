// What Google's error answers mean for LeadFlow (reference calendar-providers.md §2.7). Google's error
// body is `{"error":{"errors":[{"domain","reason","message","location"…}],"code","message"}}`; the
// token endpoint's is `{"error":"invalid_grant","error_description":"…"}`.
//   400 about the times (reason `timeRangeEmpty`, a location or message naming start/end/time)
//                                     -> SlotUnavailableError (the caller offers other times)
//   any other 400                     -> CalendarUnavailableError, not retried
//   401                               -> CalendarUnavailableError; the caller gets a new token once
//   403 rate limits (`rateLimitExceeded`, `userRateLimitExceeded`), 429, 5xx
//                                     -> CalendarUnavailableError, retried with backoff
//   any other 403 (sharing, `quotaExceeded`, `forbiddenForServiceAccounts`)
//                                     -> CalendarUnavailableError, not retried
// Messages hold the status, Google's reason and message (with the token and assertion removed),
// the call's method and path; never a credential.
import { CalendarUnavailableError, SlotUnavailableError } from '../calendar.js';

/** A CalendarUnavailableError of the Google provider, with the HTTP status and Google's reason when there was an answer. */
export class GoogleUnavailableError extends CalendarUnavailableError {
  /** HTTP status of Google's answer; undefined for a timeout or network failure. */
  readonly status: number | undefined;
  /** Google's `errors[0].reason` (or the token endpoint's `error`), when given. */
  readonly reason: string | undefined;
  constructor(message: string, status?: number, reason?: string) {
    super(message);
    this.status = status;
    this.reason = reason;
  }
}

/** A GoogleUnavailableError for a request that got no answer within its own time limit, `timeoutMs` (ms). */
export class GoogleTimeoutError extends GoogleUnavailableError {
  constructor(
    message: string,
    readonly timeoutMs: number,
  ) {
    super(message);
  }
}

/** Google's explanation of an error answer, as far as the body gives one. */
export interface GoogleErrorInfo {
  reason: string | undefined;
  message: string | undefined;
  location: string | undefined;
}

/** Reads reason, message and location from an error body of the Calendar API or the token endpoint (any shape: never throws). */
export function errorInfo(body: unknown): GoogleErrorInfo {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === 'string') {
    const description = (body as { error_description?: unknown }).error_description;
    return { reason: error, message: typeof description === 'string' ? description : undefined, location: undefined };
  }
  const object = error && typeof error === 'object' ? (error as Record<string, unknown>) : {};
  const first = Array.isArray(object.errors) ? (object.errors[0] as Record<string, unknown> | undefined) : undefined;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  return {
    reason: text(first?.reason),
    message: text(first?.message) ?? text(object.message),
    location: text(first?.location),
  };
}

const RATE_REASONS = new Set(['rateLimitExceeded', 'userRateLimitExceeded']);

/** A 400 that complains about the times asked for (reason, location or message). */
export function isAboutTime(info: GoogleErrorInfo): boolean {
  if (info.reason === 'timeRangeEmpty') return true;
  if (info.location && /^(start|end|timeMin|timeMax)\b/i.test(info.location)) return true;
  return info.message !== undefined && /\b(time range|start|end|time ?zone|date ?time)\b/i.test(info.message);
}

/** What an error answer means: the error to throw and whether the call may be repeated. */
export interface ErrorVerdict {
  error: CalendarUnavailableError | SlotUnavailableError;
  retryable: boolean;
  /** 401: the token was refused; a new one may be fetched once. */
  staleToken: boolean;
}

/** The verdict on Google's answer `status` with error `body` to the call `what` (`POST /freeBusy`); `redact` removes credentials from Google's text. */
export function verdictOf(status: number, body: unknown, what: string, redact: (text: string) => string): ErrorVerdict {
  const info = errorInfo(body);
  const detail = [info.reason, info.message].filter(Boolean).join(': ');
  const message = redact(`google: HTTP ${status} on ${what}${detail ? ` (${detail.slice(0, 300)})` : ''}`);
  if (status === 400 && isAboutTime(info)) return { error: new SlotUnavailableError(message), retryable: false, staleToken: false };
  const error = new GoogleUnavailableError(message, status, info.reason);
  const rate = status === 429 || (status === 403 && info.reason !== undefined && RATE_REASONS.has(info.reason));
  return { error, retryable: rate || status >= 500, staleToken: status === 401 };
}
