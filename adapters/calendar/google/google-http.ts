// One call to the Calendar API v3, with its bearer token, time limits and retries (reference
// calendar-providers.md §2.7). Every call LeadFlow makes is safe to repeat (GETs, freeBusy, PATCH with
// the same body, DELETE, and the insert thanks to the event id LeadFlow chooses), so:
//   retried:     timeouts, network failures, 429, 5xx, 403 rate limits, and a failed token request of
//                the same kinds; at most `attempts` attempts (default 3), waiting Retry-After when given
//                or exponential backoff with jitter (`baseDelayMs` 200, capped at `maxDelayMs` 1000);
//   401:         the token is dropped and the call made once more with a new one (not counted);
//   not retried: any other answer (see google-errors.ts), the caller's abort (its reason rethrown).
// Time: each attempt is limited to `timeoutMs` (default 5000) and the whole call, token included, to
// `deadlineMs` (default 8000): no retry starts that could not finish in time, so a call fails within
// about `deadlineMs`. Statuses named in `accept` are answers, not errors (404 on a lookup, 409 on an
// insert, 410 on a delete). Errors and log lines hold the method and path, never a token or key.
import { backoffDelay, parseRetryAfter } from '../../gateway/backoff.js';
import { sleep } from '../../../engine/run/retry.js';
import type { Clock } from '../../clock.js';
import { CalendarUnavailableError, type SlotUnavailableError } from '../calendar.js';
import { GoogleTimeoutError, GoogleUnavailableError, verdictOf } from './google-errors.js';
import type { ServiceAccount } from './service-account.js';
import type { TokenCache } from './token-cache.js';
import { networkText } from './token-request.js';

/** pino-compatible sink of retry notices (fields never hold a credential). */
export interface CalendarLogger {
  warn(fields: object, message: string): void;
}

/** How GoogleHttp reaches Google (defaults in GoogleCalendar). Units: ms. */
export interface GoogleHttpOptions {
  account: ServiceAccount;
  /** API base without a trailing slash, e.g. `https://www.googleapis.com/calendar/v3`. */
  baseUrl: string;
  tokenUrl: string;
  tokens: TokenCache;
  fetch: typeof fetch;
  /** Reads "now" for the JWT's `iat` and token expiry. */
  clock: Clock;
  timeoutMs: number;
  deadlineMs: number;
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  random: () => number;
  logger?: CalendarLogger | undefined;
}

/** One request: method, path under the base (already encoded), JSON body, statuses that are answers. */
export interface GoogleRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  accept?: readonly number[];
}

/** An answer: 2xx or a status of `accept`; `json` is undefined for an empty or non-JSON body. */
export interface GoogleAnswer {
  status: number;
  json: unknown;
}

/** A retry is not started with less than this left before the deadline, ms. */
const MIN_ATTEMPT_MS = 100;

type Attempt =
  | { answer: GoogleAnswer }
  | { error: CalendarUnavailableError | SlotUnavailableError; retryable: boolean; staleToken?: boolean; retryAfterMs?: number };

/** The Calendar API's HTTP client (see the file's head). */
export class GoogleHttp {
  constructor(private readonly o: GoogleHttpOptions) {}

  /** Makes `req` (see the file's head); resolves with its answer or rejects with the last attempt's error. */
  async request(req: GoogleRequest, signal?: AbortSignal): Promise<GoogleAnswer> {
    const deadline = performance.now() + this.o.deadlineMs;
    let refreshed = false;
    for (let attempt = 1; ; ) {
      const remaining = deadline - performance.now();
      const outcome = await this.attempt(req, Math.max(1, Math.floor(Math.min(this.o.timeoutMs, remaining))), signal);
      if ('answer' in outcome) return outcome.answer;
      if (outcome.staleToken && !refreshed) {
        refreshed = true;
        continue;
      }
      if (!outcome.retryable || attempt >= this.o.attempts) throw outcome.error;
      const delay = outcome.retryAfterMs ?? backoffDelay(attempt, this.o.baseDelayMs, this.o.maxDelayMs, this.o.random);
      if (performance.now() + delay > deadline - MIN_ATTEMPT_MS) throw outcome.error;
      this.o.logger?.warn(
        { calendar: 'google', call: `${req.method} ${req.path}`, attempt, retry_in_ms: delay, error: outcome.error.message },
        'calendar call failed, retrying',
      );
      await sleep(delay, signal);
      attempt++;
    }
  }

  private async attempt(req: GoogleRequest, timeoutMs: number, signal: AbortSignal | undefined): Promise<Attempt> {
    const what = `${req.method} ${req.path.split('?')[0]}`;
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([timeout, signal]) : timeout;
    const failed = (err: unknown, stage: string): Attempt => {
      if (signal?.aborted) throw signal.reason;
      // A token request joined from an earlier attempt may time out on its own timer before this attempt's.
      const limitMs = timeout.aborted ? timeoutMs : err instanceof GoogleTimeoutError ? err.timeoutMs : undefined;
      if (limitMs !== undefined)
        return { error: new GoogleUnavailableError(`google: timeout after ${Math.round(limitMs)} ms on ${stage}`), retryable: true };
      if (err instanceof CalendarUnavailableError) return { error: err, retryable: transient(err) };
      return { error: new GoogleUnavailableError(`google: ${networkText(err)} on ${stage}`), retryable: true };
    };
    let token: string;
    try {
      token = await untilAborted(this.o.tokens.token(this.o.account, this.o.tokenUrl, this.tokenFetch()), combined);
    } catch (err) {
      return failed(err, `the token for ${what}`);
    }
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const response = await this.o.fetch(`${this.o.baseUrl}${req.path}`, {
        method: req.method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
        signal: combined,
      });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      text = await response.text();
    } catch (err) {
      return failed(err, what);
    }
    const json = parseJson(text);
    if ((status >= 200 && status <= 299) || req.accept?.includes(status)) return { answer: { status, json } };
    const verdict = verdictOf(status, json, what, (t) => t.split(token).join('***'));
    if (verdict.staleToken) this.o.tokens.invalidate(this.o.account, this.o.tokenUrl, token);
    const retryAfterMs = parseRetryAfter(retryAfter);
    return { ...verdict, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }

  private tokenFetch() {
    return { fetch: this.o.fetch, clock: this.o.clock, timeoutMs: this.o.timeoutMs };
  }
}

/** A token request's failure worth another attempt: no answer (timeout, network), 429 or 5xx. */
function transient(err: CalendarUnavailableError): boolean {
  if (!(err instanceof GoogleUnavailableError)) return false;
  return err.status === undefined || err.status === 429 || err.status >= 500;
}

/** `promise`, or the signal's reason as soon as `signal` aborts (the promise itself goes on, for its other waiters). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
