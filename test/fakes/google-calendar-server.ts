// A fake Google (token endpoint and Calendar API v3) on 127.0.0.1 (random port) for tests, answering in
// the shapes of ../shared/reference/calendar-providers.md §2 (Google's discovery document and error guide):
//   POST /token                       JWT bearer grant: form grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer
//                                     &assertion=<RS256 JWT>. The signature is verified with the service
//                                     account's public key (addAccount); iss known, aud = <url>/token, exp - iat
//                                     <= 3600 s, "now" (the fake's clock) within [iat - 300 s, exp]. -> 200
//                                     {access_token: "ya29.fake.…", expires_in: lifetime - 1, token_type: "Bearer"};
//                                     else 400 {"error":"invalid_grant","error_description":"…"}.
//   POST /calendar/v3/freeBusy        busy windows of the events (confirmed, not transparent) of each
//                                     calendar overlapping [timeMin, timeMax), merged and clipped, in the
//                                     request's timeZone (UTC when none); a calendar missing or not shared
//                                     with the caller: {errors: [{domain: global, reason: notFound}], busy: []}
//                                     inside the 200; timeMin after timeMax: 400 timeRangeEmpty.
//   POST   /calendar/v3/calendars/{c}/events         insert: id /^[a-v0-9]{5,1024}$/ (400 otherwise), an id
//                                     already used (deleted ones too) 409 duplicate, attendees 403
//                                     forbiddenForServiceAccounts, end not after start 400 timeRangeEmpty
//   GET    /calendar/v3/calendars/{c}/events/{e}     the event, cancelled ones too; unknown 404 notFound
//   PATCH  /calendar/v3/calendars/{c}/events/{e}     patch semantics (extendedProperties, start and end merged,
//                                     null removes a field; `date` and `dateTime` together 400); a deleted
//                                     event 403 forbidden (as Google answers an update of one); unknown 404
//   DELETE /calendar/v3/calendars/{c}/events/{e}     204; already deleted 410 deleted; unknown 404
// Calls need `Authorization: Bearer <token>` of an unexpired token (401 authError otherwise) and a
// calendar shared with the token's service account (404 notFound; writes by a `freeBusyReader` 403
// requiredAccessLevel).
//
// Every request is recorded (method, path, body, arrival, answer status). fail(n, failure, {match, skip})
// makes the next n requests matching `match` (default: any Calendar API request, not /token) fail:
//   <status>          that status with Google's error body for it (401 authError, 403 requiredAccessLevel,
//                     404 notFound, 409 duplicate, 410 deleted, 429 rateLimitExceeded, 5xx backendError, 400 badRequest)
//   GoogleErrorSpec   {status, reason, message, location, retryAfter}; `$bearer` in message is replaced by the
//                     request's bearer token (Google never echoes it: this checks the client would not show it)
//   'hang'            no answer until close()
//   'reset'           the connection is destroyed without an answer
//   'accept-then-hang'  the request is carried out (state changes) and then never answered: a lost answer
//   'accept-then-reset' carried out, then the connection destroyed
import { createVerify, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import { type Clock, systemClock } from '../../adapters/clock.js';

export interface GoogleErrorSpec {
  status: number;
  reason?: string;
  message?: string;
  location?: string;
  retryAfter?: string;
}

export type GoogleFailure = number | GoogleErrorSpec | 'hang' | 'reset' | 'accept-then-hang' | 'accept-then-reset';

export interface RecordedGoogleRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the form's fields for /token. */
  body: any;
  at: number;
  status?: number;
}

export type CalendarRole = 'owner' | 'writer' | 'reader' | 'freeBusyReader';

/** Google's EventDateTime: `dateTime` (timed) or `date` (all-day, `YYYY-MM-DD`), never both. */
export interface EventTime {
  dateTime?: string;
  date?: string;
  timeZone?: string;
}

/** A stored event, as Google returns it, plus its instants. */
export interface FakeEvent {
  id: string;
  status: 'confirmed' | 'cancelled';
  summary?: string;
  description?: string;
  start: EventTime;
  end: EventTime;
  transparency?: 'opaque' | 'transparent';
  extendedProperties?: { private?: Record<string, string>; shared?: Record<string, string> };
  [field: string]: unknown;
}

interface StoredEvent {
  event: FakeEvent;
  startMs: number;
  endMs: number;
}

interface FakeCalendar {
  shares: Map<string, CalendarRole>;
  events: Map<string, StoredEvent>;
}

export interface FakeGoogleOptions {
  /** Service accounts: client_email -> public key (KeyObject or PEM). */
  accounts?: Record<string, KeyObject | string>;
  /** "now" for the JWT's iat/exp and token expiry. Default the system clock. */
  clock?: Clock;
  /** Lifetime of an issued token, seconds (expires_in answers one less). Default 3600. */
  tokenLifetimeS?: number;
}

interface Rule {
  failure: GoogleFailure;
  left: number;
  skip: number;
  match: (r: RecordedGoogleRequest) => boolean;
}

const CALENDAR_SCOPE = 'https://www.googleapis.com/auth/calendar';
const EVENT_ID = /^[a-v0-9]{5,1024}$/;

const DEFAULT_ERRORS: Record<number, { reason: string; message: string }> = {
  400: { reason: 'badRequest', message: 'Bad Request' },
  401: { reason: 'authError', message: 'Invalid Credentials' },
  403: { reason: 'requiredAccessLevel', message: 'You need to have writer access to this calendar.' },
  404: { reason: 'notFound', message: 'Not Found' },
  409: { reason: 'duplicate', message: 'The requested identifier already exists.' },
  410: { reason: 'deleted', message: 'Resource has been deleted' },
  429: { reason: 'rateLimitExceeded', message: 'Rate Limit Exceeded' },
};

class HttpError extends Error {
  constructor(readonly spec: GoogleErrorSpec) {
    super(spec.message ?? String(spec.status));
  }
}

/** Google's error body for `spec`. */
export function googleErrorBody(spec: GoogleErrorSpec): object {
  const known = DEFAULT_ERRORS[spec.status] ?? { reason: 'backendError', message: 'Backend Error' };
  const reason = spec.reason ?? known.reason;
  const message = spec.message ?? known.message;
  const detail = {
    domain: reason === 'requiredAccessLevel' ? 'calendar' : 'global',
    reason,
    message,
    ...(spec.location ? { locationType: 'parameter', location: spec.location } : {}),
  };
  return { error: { errors: [detail], code: spec.status, message } };
}

export class FakeGoogleCalendar {
  readonly requests: RecordedGoogleRequest[] = [];
  /** Every access token handed out (tests check none shows up in an error or log line). */
  readonly issuedTokens: string[] = [];
  private readonly accounts = new Map<string, KeyObject | string>();
  private readonly tokens = new Map<string, { email: string; expiresAt: number; scope: string }>();
  private readonly calendars = new Map<string, FakeCalendar>();
  private readonly rules: Rule[] = [];
  private readonly held = new Set<ServerResponse>();
  private readonly clock: Clock;
  private readonly lifetimeS: number;
  private server: Server | undefined;
  private origin = '';

  constructor(options: FakeGoogleOptions = {}) {
    for (const [email, key] of Object.entries(options.accounts ?? {})) this.accounts.set(email, key);
    this.clock = options.clock ?? systemClock;
    this.lifetimeS = options.tokenLifetimeS ?? 3600;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  get url(): string {
    if (!this.origin) throw new Error('fake Google not started');
    return this.origin;
  }

  /** The `base_url` to give the client. */
  get baseUrl(): string {
    return `${this.url}/calendar/v3`;
  }

  /** The `token_url` to give the client (the JWT's aud). */
  get tokenUrl(): string {
    return `${this.url}/token`;
  }

  addAccount(email: string, publicKey: KeyObject | string): this {
    this.accounts.set(email, publicKey);
    return this;
  }

  /** Creates calendar `id` (if new) shared with each e-mail at its role. */
  addCalendar(id: string, shares: Record<string, CalendarRole> = {}): this {
    const calendar = this.calendars.get(id) ?? { shares: new Map(), events: new Map() };
    for (const [email, role] of Object.entries(shares)) calendar.shares.set(email, role);
    this.calendars.set(id, calendar);
    return this;
  }

  /** An event put in by the clinic's staff (id generated unless given). */
  addEvent(calendarId: string, event: Partial<FakeEvent> & Pick<FakeEvent, 'start' | 'end'>): FakeEvent {
    const calendar = this.calendar(calendarId);
    const stored = this.toStored({ id: event.id ?? randomBytes(10).toString('hex'), status: 'confirmed', ...event });
    calendar.events.set(stored.event.id, stored);
    return stored.event;
  }

  /** The staff deletes an event in Google Calendar's UI (it becomes `cancelled`; its id stays taken). */
  deleteByStaff(calendarId: string, eventId: string): void {
    const stored = this.calendar(calendarId).events.get(eventId);
    if (stored) stored.event.status = 'cancelled';
  }

  /** Events of a calendar (`cancelled` ones only with includeDeleted). */
  events(calendarId: string, includeDeleted = false): FakeEvent[] {
    return [...this.calendar(calendarId).events.values()].map((s) => s.event).filter((e) => includeDeleted || e.status !== 'cancelled');
  }

  /** Requests answered or not, by method and a path pattern. */
  count(method: string, path: RegExp | string): number {
    return this.requests.filter((r) => r.method === method && (typeof path === 'string' ? r.path === path : path.test(r.path))).length;
  }

  /** The next `n` requests matching `match` fail this way (after `skip` matching ones pass); see the file's head. */
  fail(n: number, failure: GoogleFailure, options: { match?: { method?: string; path?: RegExp }; skip?: number } = {}): this {
    const { method, path } = options.match ?? {};
    const match = (r: RecordedGoogleRequest) =>
      (method === undefined || r.method === method) && (path === undefined ? r.path.startsWith('/calendar/v3/') : path.test(r.path));
    this.rules.push({ failure, left: n, skip: options.skip ?? 0, match });
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy();
    this.held.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private calendar(id: string): FakeCalendar {
    const calendar = this.calendars.get(id);
    if (!calendar) throw new Error(`fake Google: no calendar ${id}`);
    return calendar;
  }

  private nextFailure(record: RecordedGoogleRequest): GoogleFailure | undefined {
    const rule = this.rules.find((r) => r.left > 0 && r.match(record));
    if (!rule) return undefined;
    if (rule.skip > 0) {
      rule.skip--;
      return undefined;
    }
    rule.left--;
    return rule.failure;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://x');
    const isForm = String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded');
    let body: any;
    try {
      body = isForm ? Object.fromEntries(new URLSearchParams(text)) : text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const record: RecordedGoogleRequest = { method: req.method ?? '', path: url.pathname, headers: req.headers, body, at: Date.now() };
    this.requests.push(record);
    const send = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      if (res.destroyed) return;
      record.status = status;
      if (value === undefined) return void res.writeHead(status, headers).end();
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers }).end(JSON.stringify(value));
    };
    const failure = this.nextFailure(record);
    if (failure === 'reset') return void req.socket.destroy();
    if (failure === 'hang') return void this.held.add(res);
    if (typeof failure === 'number' || (typeof failure === 'object' && failure !== null)) {
      const bearer = String(req.headers.authorization ?? '').replace(/^Bearer /, '');
      const spec: GoogleErrorSpec =
        typeof failure === 'number' ? { status: failure } : { ...failure, message: failure.message?.replace('$bearer', bearer) };
      return send(spec.status, googleErrorBody(spec), spec.retryAfter ? { 'retry-after': spec.retryAfter } : {});
    }
    let answer: { status: number; body?: unknown };
    try {
      answer = this.route(record, url.searchParams);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      const spec = err.spec;
      const body = record.path === '/token' ? { error: spec.reason, error_description: spec.message } : googleErrorBody(spec);
      answer = { status: spec.status, body };
    }
    if (failure === 'accept-then-hang') return void this.held.add(res);
    if (failure === 'accept-then-reset') return void req.socket.destroy();
    send(answer.status, answer.body);
  }

  private route(r: RecordedGoogleRequest, query: URLSearchParams): { status: number; body?: unknown } {
    if (r.path === '/token' && r.method === 'POST') return { status: 200, body: this.issueToken(r.body ?? {}) };
    const email = this.caller(r);
    if (r.path === '/calendar/v3/freeBusy' && r.method === 'POST') return { status: 200, body: this.freeBusy(email, r.body ?? {}) };
    const m = /^\/calendar\/v3\/calendars\/([^/]+)\/events(?:\/([^/]+))?$/.exec(r.path);
    if (!m) throw new HttpError({ status: 404, message: `Not Found: ${r.method} ${r.path} ${query}` });
    const calendar = this.access(decodeURIComponent(m[1]!), email, r.method !== 'GET');
    const eventId = m[2] === undefined ? undefined : decodeURIComponent(m[2]);
    if (eventId === undefined && r.method === 'POST') return { status: 200, body: this.insert(calendar, r.body ?? {}) };
    if (eventId === undefined) throw new HttpError({ status: 404 });
    const stored = calendar.events.get(eventId);
    if (!stored) throw new HttpError({ status: 404 });
    if (r.method === 'GET') return { status: 200, body: stored.event };
    if (r.method === 'PATCH') return { status: 200, body: this.patch(calendar, stored, r.body ?? {}) };
    if (r.method === 'DELETE') {
      if (stored.event.status === 'cancelled') throw new HttpError({ status: 410 });
      stored.event.status = 'cancelled';
      stored.event.updated = new Date().toISOString();
      return { status: 204 };
    }
    throw new HttpError({ status: 404 });
  }

  private issueToken(form: Record<string, string>): object {
    const refuse = (message: string) => new HttpError({ status: 400, reason: 'invalid_grant', message });
    if (form.grant_type !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
      throw new HttpError({ status: 400, reason: 'unsupported_grant_type', message: 'Invalid grant_type: ' });
    }
    const parts = String(form.assertion ?? '').split('.');
    if (parts.length !== 3) throw refuse('Invalid JWT: not a JWT');
    const decode = (s: string) => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
    const header = decode(parts[0]!);
    const claims = decode(parts[1]!);
    const key = this.accounts.get(claims.iss);
    if (header.alg !== 'RS256' || !key) throw refuse('Invalid JWT Signature.');
    const signed = createVerify('RSA-SHA256').update(`${parts[0]}.${parts[1]}`).verify(key, Buffer.from(parts[2]!, 'base64url'));
    if (!signed) throw refuse('Invalid JWT Signature.');
    if (claims.aud !== this.tokenUrl) throw refuse('Invalid JWT audience.');
    const now = this.clock.now() / 1000;
    const timely = claims.exp - claims.iat <= 3600 && now >= claims.iat - 300 && now <= claims.exp;
    if (!timely) {
      throw refuse(
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    }
    const token = `ya29.fake.${randomBytes(24).toString('hex')}`;
    this.tokens.set(token, { email: claims.iss, expiresAt: this.clock.now() + this.lifetimeS * 1000, scope: String(claims.scope ?? '') });
    this.issuedTokens.push(token);
    return { access_token: token, expires_in: this.lifetimeS - 1, token_type: 'Bearer' };
  }

  /** The service account calling, from its bearer token. */
  private caller(r: RecordedGoogleRequest): string {
    const token = /^Bearer (.+)$/.exec(String(r.headers.authorization ?? ''))?.[1];
    const known = token === undefined ? undefined : this.tokens.get(token);
    if (!known || this.clock.now() >= known.expiresAt) throw new HttpError({ status: 401, location: 'Authorization' });
    if (!known.scope.split(' ').includes(CALENDAR_SCOPE)) {
      throw new HttpError({ status: 403, reason: 'insufficientPermissions', message: 'Request had insufficient authentication scopes.' });
    }
    return known.email;
  }

  private access(id: string, email: string, write: boolean): FakeCalendar {
    const calendar = this.calendars.get(id);
    const role = calendar?.shares.get(email);
    if (!calendar || !role) throw new HttpError({ status: 404 });
    if (role === 'freeBusyReader' || (write && role === 'reader')) throw new HttpError({ status: 403 });
    return calendar;
  }

  private freeBusy(email: string, body: any): object {
    const from = Date.parse(body.timeMin);
    const to = Date.parse(body.timeMax);
    if (!Number.isFinite(from) || !Number.isFinite(to)) throw new HttpError({ status: 400, reason: 'badRequest', message: 'Bad Request' });
    if (from > to) throw new HttpError({ status: 400, reason: 'timeRangeEmpty', message: 'The specified time range is empty.' });
    const zone = typeof body.timeZone === 'string' ? body.timeZone : 'UTC';
    const format = (ms: number) =>
      zone === 'UTC' ? new Date(ms).toISOString() : DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true });
    const calendars: Record<string, object> = {};
    for (const item of body.items ?? []) {
      const calendar = this.calendars.get(item.id);
      if (!calendar?.shares.get(email)) {
        calendars[item.id] = { errors: [{ domain: 'global', reason: 'notFound' }], busy: [] };
        continue;
      }
      calendars[item.id] = { busy: busyOf(calendar, from, to).map((b) => ({ start: format(b.start), end: format(b.end) })) };
    }
    return { kind: 'calendar#freeBusy', timeMin: new Date(from).toISOString(), timeMax: new Date(to).toISOString(), calendars };
  }

  private insert(calendar: FakeCalendar, body: any): FakeEvent {
    const id = body.id ?? randomBytes(10).toString('hex');
    if (typeof id !== 'string' || !EVENT_ID.test(id))
      throw new HttpError({ status: 400, reason: 'invalid', message: 'Invalid resource id value.' });
    if (calendar.events.has(id)) throw new HttpError({ status: 409 });
    if (Array.isArray(body.attendees) && body.attendees.length > 0) {
      throw new HttpError({
        status: 403,
        reason: 'forbiddenForServiceAccounts',
        message: 'Service accounts cannot invite attendees without Domain-Wide Delegation of Authority.',
      });
    }
    const now = new Date().toISOString();
    const stored = this.toStored({
      ...body,
      kind: 'calendar#event',
      etag: `"${Date.now()}"`,
      id,
      status: 'confirmed',
      created: now,
      updated: now,
      iCalUID: `${id}@google.com`,
      sequence: 0,
      eventType: 'default',
    });
    calendar.events.set(id, stored);
    return stored.event;
  }

  private patch(calendar: FakeCalendar, stored: StoredEvent, body: any): FakeEvent {
    if (stored.event.status === 'cancelled') throw new HttpError({ status: 403, reason: 'forbidden', message: 'Forbidden' });
    const merged: FakeEvent = { ...stored.event, ...body, id: stored.event.id, status: body.status ?? stored.event.status };
    // Patch semantics reach into start and end: fields not sent stay, fields sent as null go.
    for (const which of ['start', 'end'] as const) {
      if (!body[which]) continue;
      const time: Record<string, unknown> = { ...stored.event[which], ...body[which] };
      for (const [key, value] of Object.entries(time)) if (value === null) delete time[key];
      merged[which] = time as EventTime;
    }
    if (body.extendedProperties) {
      merged.extendedProperties = {
        private: { ...stored.event.extendedProperties?.private, ...body.extendedProperties.private },
        shared: { ...stored.event.extendedProperties?.shared, ...body.extendedProperties.shared },
      };
    }
    merged.sequence = Number(stored.event.sequence ?? 0) + 1;
    merged.updated = new Date().toISOString();
    const next = this.toStored(merged);
    calendar.events.set(next.event.id, next);
    return next.event;
  }

  private toStored(event: FakeEvent): StoredEvent {
    const startMs = instant(event.start, 'start');
    const endMs = instant(event.end, 'end');
    if (endMs <= startMs) throw new HttpError({ status: 400, reason: 'timeRangeEmpty', message: 'The specified time range is empty.' });
    return { event, startMs, endMs };
  }
}

/** An EventDateTime as ms: a dateTime with an offset, a local dateTime in its timeZone, or a date (midnight in its timeZone, else UTC). */
function instant(value: EventTime | undefined, which: 'start' | 'end'): number {
  if (value?.date !== undefined && value.dateTime !== undefined) {
    throw new HttpError({ status: 400, reason: 'invalid', message: 'Invalid start time.', location: which });
  }
  if (typeof value?.date === 'string') return DateTime.fromISO(value.date, { zone: value.timeZone ?? 'UTC' }).toMillis();
  const text = value?.dateTime;
  if (typeof text !== 'string')
    throw new HttpError({ status: 400, reason: 'required', message: `Missing ${which} time.`, location: which });
  const hasOffset = /(Z|[+-]\d\d:\d\d)$/.test(text);
  const ms = hasOffset ? Date.parse(text) : value?.timeZone ? DateTime.fromISO(text, { zone: value.timeZone }).toMillis() : Number.NaN;
  if (!Number.isFinite(ms)) throw new HttpError({ status: 400, reason: 'invalid', message: `Invalid ${which} time.`, location: which });
  return ms;
}

/** Busy windows of a calendar's opaque, confirmed events overlapping [from, to): clipped and merged. */
function busyOf(calendar: FakeCalendar, from: number, to: number): Array<{ start: number; end: number }> {
  const spans = [...calendar.events.values()]
    .filter((s) => s.event.status !== 'cancelled' && s.event.transparency !== 'transparent' && s.startMs < to && s.endMs > from)
    .map((s) => ({ start: Math.max(from, s.startMs), end: Math.min(to, s.endMs) }))
    .sort((a, b) => a.start - b.start);
  const merged: Array<{ start: number; end: number }> = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else merged.push({ ...span });
  }
  return merged;
}

/** A started fake Google for `options`. */
export function startFakeGoogleCalendar(options: FakeGoogleOptions = {}): Promise<FakeGoogleCalendar> {
  return new FakeGoogleCalendar(options).start();
}

/** A service account for tests: a fresh RSA key pair (2048 bits), the key JSON's two fields and the public key the fake verifies with. */
export function testServiceAccount(email = 'leadflow-agenda@clinica-aurora.iam.gserviceaccount.com'): {
  client_email: string;
  private_key: string;
  publicKey: string;
} {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { client_email: email, private_key: privateKey, publicKey };
}
