// One request to Cal.com's API v2 (reference calendar-providers.md §3): the bearer key, the
// `cal-api-version` of the endpoint's family, a time limit per request, a deadline per method call,
// and retries for what is safe to repeat.
//   answered:     a 2xx answer resolves with its `data`; any other 4xx except 401/403/429 resolves as a
//                 refusal ({status, code, message}) the caller reads (slot taken, already cancelled,
//                 not found) — never retried here;
//   unavailable:  401/403 (never retried), 429, 5xx, timeout, network failure, an unusable answer:
//                 CalcomUnavailableError (a CalendarUnavailableError). 429/5xx/timeout/network are
//                 `transient`; with `retry` they are tried again (backoff 250 ms doubling, or the
//                 Retry-After header), at most 3 attempts and never past the call's deadline.
// Messages name the method and the path with any booking uid replaced by `{uid}` (a uid lets anyone
// cancel the booking; `uid=…` in Cal.com's own messages is masked too) and never the key (removed
// from every text taken from an answer).
import { sleep } from '../../../engine/run/retry.js';
import type { Clock } from '../../clock.js';
import { parseRetryAfter } from '../../gateway/backoff.js';
import { CalendarUnavailableError } from '../calendar.js';

/** A CalendarUnavailableError telling whether trying again may help (`transient`: 429, 5xx, timeout, network). */
export class CalcomUnavailableError extends CalendarUnavailableError {
  /** True for 429, 5xx, timeout and network failures; false for 401/403 and unusable answers. */
  readonly transient: boolean;
  /** The answer's Retry-After, ms (429/5xx that had one). */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, transient: boolean, retryAfterMs?: number) {
    super(message);
    this.transient = transient;
    this.retryAfterMs = retryAfterMs;
  }
}

/** A 4xx answer other than 401/403/429: Cal.com's error code and message (key removed, cut to 300 characters). */
export interface CalcomRefusal {
  ok: false;
  status: number;
  code: string;
  message: string;
}

/** A 2xx answer's `data`. */
export interface CalcomSuccess {
  ok: true;
  status: number;
  data: unknown;
}

/** What one request resolves to (see the file's head). */
export type CalcomAnswer = CalcomSuccess | CalcomRefusal;

/** One request to send. */
export interface CalcomRequest {
  method: 'GET' | 'POST';
  /** Below the base URL, e.g. `/slots`, `/bookings/<uid>/cancel`. */
  path: string;
  query?: Record<string, string>;
  body?: object;
  /** The `cal-api-version` header (CALCOM_API_VERSIONS). */
  version: string;
  /** Try transient failures again (only for requests safe to repeat). */
  retry: boolean;
}

/** The limits of one method call: a deadline (clock ms) and the caller's signal. */
export interface CalcomCall {
  deadline: number;
  signal?: AbortSignal | undefined;
}

/** What CalcomHttp is built from (units: ms). */
export interface CalcomHttpOptions {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  fetch: typeof fetch;
  clock: Clock;
}

/** Attempts of one request at most (the first and two retries). */
const MAX_ATTEMPTS = 3;
/** First wait before a retry, ms; doubles per retry. */
const BASE_DELAY_MS = 250;
/** Shortest time left for which a request is still started, ms. */
const MIN_ATTEMPT_MS = 100;
/** Longest message kept from an answer, characters. */
const MAX_MESSAGE_CHARS = 300;

/** Sends requests to one Cal.com account (see the file's head). */
export class CalcomHttp {
  constructor(private readonly options: CalcomHttpOptions) {}

  /** Sends `request` within `call`'s limits; resolves with the answer or rejects with CalcomUnavailableError (or the signal's reason). */
  async send(request: CalcomRequest, call: CalcomCall): Promise<CalcomAnswer> {
    const target = `${request.method} ${this.displayPath(request.path)}`;
    for (let attempt = 1; ; attempt++) {
      const left = call.deadline - this.options.clock.now();
      if (left < MIN_ATTEMPT_MS) throw new CalcomUnavailableError(`calcom: no answer in time for ${target}`, true);
      const outcome = await this.attempt(request, call.signal, target, Math.min(this.options.timeoutMs, left));
      if (!(outcome instanceof CalcomUnavailableError)) return outcome;
      if (!request.retry || !outcome.transient || attempt >= MAX_ATTEMPTS) throw outcome;
      const wait = outcome.retryAfterMs ?? BASE_DELAY_MS * 2 ** (attempt - 1);
      if (this.options.clock.now() + wait + MIN_ATTEMPT_MS > call.deadline) throw outcome;
      await sleep(wait, call.signal);
    }
  }

  /** `path` as messages show it: below the base URL's own path, booking uids replaced by `{uid}`. */
  displayPath(path: string): string {
    const prefix = new URL(this.options.baseUrl).pathname.replace(/\/$/, '');
    return prefix + path.replace(/^\/bookings\/[^/]+/, '/bookings/{uid}');
  }

  private async attempt(request: CalcomRequest, signal: AbortSignal | undefined, target: string, timeoutMs: number) {
    if (signal?.aborted) throw signal.reason;
    const timeout = AbortSignal.timeout(timeoutMs);
    const url = new URL(this.options.baseUrl.replace(/\/$/, '') + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) url.searchParams.set(key, value);
    let response: Response;
    let text: string;
    try {
      response = await this.options.fetch(url, {
        method: request.method,
        headers: {
          authorization: `Bearer ${this.options.apiKey}`,
          'cal-api-version': request.version,
          accept: 'application/json',
          ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
      text = await response.text();
    } catch {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) return new CalcomUnavailableError(`calcom: timeout after ${timeoutMs} ms on ${target}`, true);
      return new CalcomUnavailableError(`calcom: network failure on ${target}`, true);
    }
    return this.read(response, text, target);
  }

  private read(response: Response, text: string, target: string): CalcomAnswer | CalcomUnavailableError {
    const { status } = response;
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (status >= 200 && status < 300) {
      if (!isObject(body) || !('data' in body))
        return new CalcomUnavailableError(`calcom: unusable answer (HTTP ${status}) on ${target}`, false);
      return { ok: true, status, data: body.data };
    }
    const { code, message } = this.errorOf(body, text);
    if (status === 401 || status === 403 || status === 429 || status >= 500) {
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), this.options.clock.now());
      return new CalcomUnavailableError(
        `calcom: HTTP ${status} on ${target}${message ? ` (${message})` : ''}`,
        status >= 429,
        retryAfterMs,
      );
    }
    return { ok: false, status, code, message };
  }

  /** Cal.com's `{"status":"error","error":{"code","message"}}`, the key removed and cut. */
  private errorOf(body: unknown, text: string): { code: string; message: string } {
    const error = isObject(body) && isObject(body.error) ? body.error : undefined;
    const raw = error?.message ?? (isObject(body) ? body.message : undefined) ?? text;
    const message = typeof raw === 'string' ? raw : JSON.stringify(raw);
    // Cal.com's messages name booking uids (`Booking with uid=… not found`): masked like paths.
    const clean = this.redact(message)
      .replace(/uid=[^\s,.;:)]+/g, 'uid={uid}')
      .slice(0, MAX_MESSAGE_CHARS);
    return { code: typeof error?.code === 'string' ? this.redact(error.code) : '', message: clean };
  }

  private redact(text: string): string {
    return this.options.apiKey === '' ? text : text.split(this.options.apiKey).join('***');
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
