// A fake Cal.com API v2 on 127.0.0.1 (random port) for tests, answering in the shapes of the
// reference (calendar-providers.md §3; Cal.com's apps/api/v2 bookings 2024-08-13/2026-02-25 and
// slots 2024-09-04 controllers, inputs and outputs):
//   GET  /v2/slots?eventTypeId&start&end&timeZone&format=range
//        -> 200 {"status":"success","data":{"<yyyy-mm-dd in timeZone>":[{"start","end"?}]}}: the grid's
//           starts in [start, end], after "now", not overlapping a live booking; `{}` when none
//   POST /v2/bookings {start, eventTypeId, attendee {name, timeZone, phoneNumber|email, language}, metadata}
//        -> 201 the booking (uid, status accepted — pending with requiresConfirmation —, metadata kept);
//           400 with Cal.com's messages for a start in the past, off the grid, or taken (same host+start)
//   GET  /v2/bookings?eventTypeId(s)&afterStart&beforeEnd&status&bookingUid&take&skip&sortStart
//        -> 200 {"status":"success","data":[…],"pagination":{…}}
//   GET  /v2/bookings/{uid}                -> 200 the booking, 404 unknown
//   POST /v2/bookings/{uid}/reschedule {start, reschedulingReason}
//        -> 201 a NEW booking (new uid, rescheduledFromUid = old, metadata and attendee copied); the old
//           one becomes cancelled with rescheduledToUid; its own time does not count against the move
//   POST /v2/bookings/{uid}/cancel {cancellationReason}
//        -> 200 the cancelled booking; 400 "…has been cancelled already…"; 404 unknown
// Every request needs `Authorization: Bearer <apiKey>` (else 401 with Cal.com's error body) and the
// `cal-api-version` of its family: slots `2024-09-04`, bookings `2026-02-25` or `2024-08-13` (else a
// 400 naming the header: the real API silently answers an older shape, which a test would miss).
// Errors: {"status":"error","timestamp","path","error":{"code","message"}}.
//
// Every request is recorded (route, method, path, query, headers, body, answer status); count(route).
// Failures are queued with fail(n, failure, {route, skip, ms, retryAfter}): after `skip` normal
// requests (of `route`, or of any route), the next n answer
//   <number>            that HTTP status with an error body (429 and 503 with Retry-After when given)
//   'slot-taken'        400 "User either already has booking at this time or is not available"
//   'conflict'          409 CONFLICT (a duplicate booking refused by its idempotency key)
//   'reset'             the connection destroyed without an answer
//   'hang'              no answer until close(), or with {ms} that long and then the normal answer
//   'accept-then-hang'  the request is carried out (booking made, moved, cancelled) and never answered
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';

export type CalcomRoute = 'slots' | 'list' | 'get' | 'create' | 'reschedule' | 'cancel';
export type CalcomFailure = number | 'slot-taken' | 'conflict' | 'reset' | 'hang' | 'accept-then-hang';

/** Cal.com's 400 messages (reference §3.3, errors.service). */
export const CALCOM_MESSAGES = {
  taken: 'User either already has booking at this time or is not available',
  notBookable:
    'The event type can\'t be booked at the "start" time provided. This could mean that this time slot is not available or that the booking is outside the event type\'s booking window. Try fetching available slots first using the GET /v2/slots endpoint and then make a booking with "start" time set to one of the available slots.',
  past: 'Attempting to book a meeting in the past.',
};

export interface FakeCalcomOptions {
  /** The one accepted API key. Default `cal_test_fakekey_0123456789abcdef`. */
  apiKey?: string;
  /** The event type served. Default 123. */
  eventTypeId?: number;
  /** Its length, minutes. Default 60. */
  lengthMin?: number;
  /** The grid: bookable starts, ms since the epoch. Default none (setSlots). */
  slots?: number[];
  /** "Now" for the past check and the slots list. Default Date.now. */
  now?: () => number;
  /** Event type "requires confirmation": new bookings are `pending`. Default false. */
  requiresConfirmation?: boolean;
}

/** A booking as the fake keeps it (and answers it, see output()). */
export interface FakeBooking {
  id: number;
  uid: string;
  status: 'accepted' | 'pending' | 'cancelled' | 'rejected';
  start: number;
  end: number;
  attendee: { name: string; email: string; phoneNumber?: string; timeZone: string; language?: string };
  metadata: Record<string, string>;
  rescheduledFromUid?: string;
  rescheduledToUid?: string;
  cancellationReason?: string;
  reschedulingReason?: string;
  createdAt: number;
  updatedAt: number;
}

export interface RecordedCalcomRequest {
  route: CalcomRoute | 'unknown';
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: any;
  status?: number;
}

interface Queued {
  route: CalcomRoute | undefined;
  failure: CalcomFailure | 'pass';
  ms?: number;
  retryAfter?: string;
}

type Answer = { status: number; body: unknown };

const VERSIONS: Record<'slots' | 'bookings', string[]> = { slots: ['2024-09-04'], bookings: ['2026-02-25', '2024-08-13'] };
const LANGUAGES = new Set(['pt-BR', 'pt', 'en', 'es', 'fr', 'de', 'it']);

export class FakeCalcom {
  readonly requests: RecordedCalcomRequest[] = [];
  readonly apiKey: string;
  readonly eventTypeId: number;
  readonly lengthMin: number;
  requiresConfirmation: boolean;
  private readonly store = new Map<string, FakeBooking>();
  private grid: number[];
  private readonly now: () => number;
  private readonly failures: Queued[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private server: Server | undefined;
  private baseUrl = '';
  private nextId = 1;

  constructor(options: FakeCalcomOptions = {}) {
    this.apiKey = options.apiKey ?? 'cal_test_fakekey_0123456789abcdef';
    this.eventTypeId = options.eventTypeId ?? 123;
    this.lengthMin = options.lengthMin ?? 60;
    this.grid = [...(options.slots ?? [])];
    this.now = options.now ?? Date.now;
    this.requiresConfirmation = options.requiresConfirmation ?? false;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this;
  }

  /** The `base_url` to configure: `http://127.0.0.1:<port>/v2`. */
  get url(): string {
    if (!this.baseUrl) throw new Error('fake Cal.com not started');
    return `${this.baseUrl}/v2`;
  }

  /** Replaces the grid of bookable starts (ms). */
  setSlots(starts: number[]): this {
    this.grid = [...starts];
    return this;
  }

  /** Every booking, in creation order. */
  get bookings(): FakeBooking[] {
    return [...this.store.values()];
  }

  /** The bookings holding their time (accepted or pending). */
  get live(): FakeBooking[] {
    return this.bookings.filter((b) => b.status === 'accepted' || b.status === 'pending');
  }

  booking(uid: string): FakeBooking | undefined {
    return this.store.get(uid);
  }

  /** Requests of `route` received (answered or not). */
  count(route: CalcomRoute): number {
    return this.requests.filter((r) => r.route === route).length;
  }

  /** The next `n` requests (of `route`, or any) fail this way, after `skip` normal ones (see the file's head). */
  fail(n: number, failure: CalcomFailure, options: { route?: CalcomRoute; skip?: number; ms?: number; retryAfter?: string } = {}): this {
    const base = { route: options.route, ...(options.ms !== undefined ? { ms: options.ms } : {}) };
    for (let i = 0; i < (options.skip ?? 0); i++) this.failures.push({ ...base, failure: 'pass' });
    for (let i = 0; i < n; i++)
      this.failures.push({ ...base, failure, ...(options.retryAfter !== undefined ? { retryAfter: options.retryAfter } : {}) });
    return this;
  }

  /** Drops the failures still queued. */
  clearFailures(): this {
    this.failures.length = 0;
    return this;
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const { route, uid } = routeOf(req.method ?? '', url.pathname);
    const record: RecordedCalcomRequest = {
      route,
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
    };
    this.requests.push(record);
    const send = (answer: Answer, headers: Record<string, string> = {}) => {
      this.hanging.delete(res);
      if (res.destroyed) return;
      record.status = answer.status;
      res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(answer.body));
    };

    const queued = route === 'unknown' ? undefined : this.takeFailure(route);
    if (queued && queued.failure !== 'pass') {
      const { failure } = queued;
      if (failure === 'reset') return void req.socket.destroy();
      if (typeof failure === 'number') {
        const code =
          failure === 401
            ? 'UNAUTHORIZED'
            : failure === 429
              ? 'TOO_MANY_REQUESTS'
              : failure >= 500
                ? 'INTERNAL_SERVER_ERROR'
                : 'BAD_REQUEST';
        return send(
          errorAnswer(failure, code, `fake failure ${failure}`, url.pathname),
          queued.retryAfter ? { 'retry-after': queued.retryAfter } : {},
        );
      }
      if (failure === 'slot-taken') return send(errorAnswer(400, 'BAD_REQUEST', CALCOM_MESSAGES.taken, url.pathname));
      if (failure === 'conflict') return send(errorAnswer(409, 'CONFLICT', 'Booking already exists', url.pathname));
      if (failure === 'hang') {
        this.hanging.add(res);
        if (queued.ms === undefined) return;
        await new Promise((resolve) => setTimeout(resolve, queued.ms));
        if (!this.hanging.has(res) || res.destroyed) return;
      }
    }
    const answer = this.answer(req, route, uid, url, body);
    if (queued?.failure === 'accept-then-hang') {
      record.status = answer.status;
      this.hanging.add(res);
      return;
    }
    send(answer);
  }

  private takeFailure(route: CalcomRoute): Queued | undefined {
    const index = this.failures.findIndex((q) => q.route === undefined || q.route === route);
    if (index < 0) return undefined;
    return this.failures.splice(index, 1)[0];
  }

  private answer(req: IncomingMessage, route: CalcomRoute | 'unknown', uid: string, url: URL, body: any): Answer {
    const path = url.pathname;
    if (route === 'unknown') return errorAnswer(404, 'NOT_FOUND', `Cannot ${req.method} ${path}`, path);
    const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    if (token !== this.apiKey) return errorAnswer(401, 'UNAUTHORIZED', 'Invalid API Key', path);
    const family = route === 'slots' ? 'slots' : 'bookings';
    const version = String(req.headers['cal-api-version'] ?? '');
    if (!VERSIONS[family].includes(version))
      return errorAnswer(
        400,
        'BAD_REQUEST',
        `fake Cal.com: cal-api-version "${version}" does not serve ${family} (expected ${VERSIONS[family].join(' or ')})`,
        path,
      );
    if (route === 'slots') return this.slots(url.searchParams, path);
    if (route === 'list') return this.list(url.searchParams, path);
    if (route === 'create') return this.create(body, path);
    const booking = this.store.get(uid);
    if (!booking) return errorAnswer(404, 'NOT_FOUND', `Booking with uid=${uid} not found`, path);
    if (route === 'get') return success(200, output(booking, this.eventTypeId));
    if (route === 'cancel') return this.cancel(booking, body, path);
    return this.reschedule(booking, body, path);
  }

  private slots(query: URLSearchParams, path: string): Answer {
    if (Number(query.get('eventTypeId')) !== this.eventTypeId)
      return errorAnswer(404, 'NOT_FOUND', `Event type with id ${query.get('eventTypeId')} not found.`, path);
    const from = boundary(query.get('start'), 'start');
    const to = boundary(query.get('end'), 'end');
    if (from === undefined || to === undefined)
      return errorAnswer(400, 'BAD_REQUEST', 'start and end must be ISO 8601 date strings in UTC', path);
    const zone = query.get('timeZone') ?? 'UTC';
    if (!DateTime.now().setZone(zone).isValid) return errorAnswer(400, 'BAD_REQUEST', 'timeZone must be a valid IANA time zone', path);
    const range = query.get('format') === 'range';
    const data: Record<string, { start: string; end?: string }[]> = {};
    for (const start of [...this.grid].sort((a, b) => a - b)) {
      if (start < from || start > to || start <= this.now() || this.taken(start, undefined)) continue;
      const local = DateTime.fromMillis(start, { zone });
      const item = { start: iso(start, zone), ...(range ? { end: iso(start + this.lengthMin * 60_000, zone) } : {}) };
      const day = local.toFormat('yyyy-MM-dd');
      data[day] = [...(data[day] ?? []), item];
    }
    return success(200, data);
  }

  private create(body: any, path: string): Answer {
    if (Number(body?.eventTypeId) !== this.eventTypeId)
      return errorAnswer(404, 'NOT_FOUND', `Event type with id ${body?.eventTypeId} not found.`, path);
    const problem = attendeeProblem(body?.attendee) ?? metadataProblem(body?.metadata);
    if (problem) return errorAnswer(400, 'BAD_REQUEST', problem, path);
    const start = startOf(body?.start);
    if (start === undefined) return errorAnswer(400, 'BAD_REQUEST', 'start must be a valid ISO 8601 date string in UTC', path);
    const refusal = this.refusal(start, undefined);
    if (refusal) return errorAnswer(400, 'BAD_REQUEST', refusal, path);
    const attendee = body.attendee;
    const digits = typeof attendee.phoneNumber === 'string' ? attendee.phoneNumber.replace(/\D/g, '') : '';
    const booking = this.insert(start, {
      name: attendee.name,
      // Hidden e-mail field: Cal.com stores `<digits>@sms.cal.com` (reference §3.3).
      email: attendee.email ?? `${digits}@sms.cal.com`,
      ...(attendee.phoneNumber ? { phoneNumber: attendee.phoneNumber } : {}),
      timeZone: attendee.timeZone,
      ...(attendee.language ? { language: attendee.language } : {}),
    });
    booking.metadata = { ...(body.metadata ?? {}) };
    return success(201, output(booking, this.eventTypeId));
  }

  private reschedule(old: FakeBooking, body: any, path: string): Answer {
    // Wording for a booking that is no longer live is not in the reference (unconfirmed).
    if (old.status === 'cancelled' || old.status === 'rejected')
      return errorAnswer(400, 'BAD_REQUEST', `Can't reschedule booking with uid=${old.uid} because it has been cancelled.`, path);
    const start = startOf(body?.start);
    if (start === undefined) return errorAnswer(400, 'BAD_REQUEST', 'start must be a valid ISO 8601 date string in UTC', path);
    const refusal = this.refusal(start, old.uid);
    if (refusal) return errorAnswer(400, 'BAD_REQUEST', refusal, path);
    const moved = this.insert(start, { ...old.attendee });
    moved.metadata = { ...old.metadata };
    moved.rescheduledFromUid = old.uid;
    if (typeof body?.reschedulingReason === 'string') moved.reschedulingReason = body.reschedulingReason;
    old.status = 'cancelled';
    old.rescheduledToUid = moved.uid;
    old.updatedAt = this.now();
    return success(201, output(moved, this.eventTypeId));
  }

  private cancel(booking: FakeBooking, body: any, path: string): Answer {
    if (booking.status === 'cancelled')
      return errorAnswer(
        400,
        'BAD_REQUEST',
        `Can't cancel booking with uid=${booking.uid} because it has been cancelled already. Please provide uid of a booking that is not cancelled.`,
        path,
      );
    booking.status = 'cancelled';
    if (typeof body?.cancellationReason === 'string') booking.cancellationReason = body.cancellationReason;
    booking.updatedAt = this.now();
    return success(200, output(booking, this.eventTypeId));
  }

  private list(query: URLSearchParams, path: string): Answer {
    const take = Number(query.get('take') ?? 100);
    const skip = Number(query.get('skip') ?? 0);
    if (!Number.isInteger(take) || take < 1 || take > 250)
      return errorAnswer(400, 'BAD_REQUEST', 'take must not be greater than 250', path);
    const typeIds = (query.get('eventTypeIds') ?? query.get('eventTypeId') ?? '').split(',').filter(Boolean).map(Number);
    const afterStart = query.has('afterStart') ? Date.parse(query.get('afterStart')!) : undefined;
    const beforeEnd = query.has('beforeEnd') ? Date.parse(query.get('beforeEnd')!) : undefined;
    const statuses = (query.get('status') ?? '').split(',').filter(Boolean);
    const uid = query.get('bookingUid');
    const now = this.now();
    // Every booking of the fake is of its one event type.
    const ofType = typeIds.length === 0 || typeIds.includes(this.eventTypeId) ? this.bookings : [];
    const matching = ofType
      .filter((b) => (afterStart === undefined || b.start >= afterStart) && (beforeEnd === undefined || b.end <= beforeEnd))
      .filter((b) => uid === null || b.uid === uid)
      .filter((b) => statuses.length === 0 || statuses.some((s) => statusMatches(s, b, now)))
      .sort((a, b) => (query.get('sortStart') === 'desc' ? b.start - a.start : a.start - b.start));
    const page = matching.slice(skip, skip + take);
    const pagination = {
      totalItems: matching.length,
      remainingItems: Math.max(0, matching.length - skip - page.length),
      returnedItems: page.length,
      itemsPerPage: take,
      currentPage: Math.floor(skip / take) + 1,
      totalPages: Math.ceil(matching.length / take),
      hasNextPage: skip + page.length < matching.length,
      hasPreviousPage: skip > 0,
    };
    return { status: 200, body: { status: 'success', data: page.map((b) => output(b, this.eventTypeId)), pagination } };
  }

  /** Why `start` cannot be booked (Cal.com's message), ignoring booking `except` (a move's own). */
  private refusal(start: number, except: string | undefined): string | undefined {
    if (start <= this.now()) return CALCOM_MESSAGES.past;
    if (!this.grid.includes(start)) return CALCOM_MESSAGES.notBookable;
    if (this.taken(start, except)) return CALCOM_MESSAGES.taken;
    return undefined;
  }

  /** Whether a live booking (other than `except`) overlaps [start, start + length). */
  private taken(start: number, except: string | undefined): boolean {
    const end = start + this.lengthMin * 60_000;
    return this.live.some((b) => b.uid !== except && b.start < end && start < b.end);
  }

  private insert(start: number, attendee: FakeBooking['attendee']): FakeBooking {
    const now = this.now();
    const booking: FakeBooking = {
      id: this.nextId++,
      uid: randomBytes(16).toString('base64url').slice(0, 22),
      status: this.requiresConfirmation ? 'pending' : 'accepted',
      start,
      end: start + this.lengthMin * 60_000,
      attendee,
      metadata: {},
      createdAt: now,
      updatedAt: now,
    };
    this.store.set(booking.uid, booking);
    return booking;
  }
}

function routeOf(method: string, pathname: string): { route: CalcomRoute | 'unknown'; uid: string } {
  const segments = pathname.split('/').filter(Boolean);
  if (segments[0] !== 'v2') return { route: 'unknown', uid: '' };
  const [, family, uid = '', action] = segments;
  if (family === 'slots' && segments.length === 2 && method === 'GET') return { route: 'slots', uid };
  if (family !== 'bookings') return { route: 'unknown', uid };
  if (segments.length === 2) return { route: method === 'GET' ? 'list' : method === 'POST' ? 'create' : 'unknown', uid };
  if (segments.length === 3 && method === 'GET') return { route: 'get', uid };
  if (segments.length === 4 && method === 'POST' && (action === 'cancel' || action === 'reschedule')) return { route: action, uid };
  return { route: 'unknown', uid };
}

function statusMatches(status: string, booking: FakeBooking, now: number): boolean {
  const live = booking.status === 'accepted' || booking.status === 'pending';
  if (status === 'upcoming') return live && booking.end >= now;
  if (status === 'past') return booking.end < now;
  if (status === 'cancelled') return booking.status === 'cancelled' || booking.status === 'rejected';
  if (status === 'unconfirmed') return booking.status === 'pending';
  return false;
}

function attendeeProblem(attendee: any): string | undefined {
  if (typeof attendee !== 'object' || attendee === null) return 'attendee must be an object';
  if (typeof attendee.name !== 'string' || attendee.name.trim() === '') return 'attendee.name should not be empty';
  if (typeof attendee.timeZone !== 'string' || !DateTime.now().setZone(attendee.timeZone).isValid)
    return 'attendee.timeZone must be a valid IANA time zone';
  if (attendee.phoneNumber !== undefined && !/^\+[1-9]\d{7,14}$/.test(String(attendee.phoneNumber)))
    return 'attendee.phoneNumber must be a valid phone number';
  if (attendee.phoneNumber === undefined && attendee.email === undefined)
    return 'Attendee must have at least one contact method (email or phone number)';
  if (attendee.language !== undefined && !LANGUAGES.has(attendee.language)) return 'attendee.language must be one of the following values';
  return undefined;
}

function metadataProblem(metadata: any): string | undefined {
  if (metadata === undefined) return undefined;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return 'metadata must be an object';
  const entries = Object.entries(metadata);
  if (entries.length > 50) return 'metadata can have at most 50 keys';
  for (const [key, value] of entries) {
    if (key.length > 40) return 'metadata keys can be at most 40 characters';
    if (typeof value === 'string' && value.length > 500) return 'metadata string values can be at most 500 characters';
  }
  return undefined;
}

/** A booking's `start`: ISO 8601 in UTC (`Z` or +00:00), as Cal.com requires. */
function startOf(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|\+00:00)$/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A slots query bound: ISO 8601, or a bare date (00:00:00 for `start`, 23:59:59 for `end`, UTC). */
function boundary(value: string | null, which: 'start' | 'end'): number | undefined {
  if (value === null) return undefined;
  const text = /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T${which === 'start' ? '00:00:00' : '23:59:59'}Z` : value;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** `2026-12-02T09:00:00.000-03:00`: the instant in `zone`, with its offset. */
function iso(ms: number, zone: string): string {
  return DateTime.fromMillis(ms, { zone }).toISO({ includeOffset: true }) ?? '';
}

function output(b: FakeBooking, eventTypeId: number): object {
  return {
    id: b.id,
    uid: b.uid,
    title: `Avaliação between Clínica and ${b.attendee.name}`,
    description: '',
    hosts: [{ id: 1, name: 'Clínica', email: 'clinica@example.com', username: 'clinica', timeZone: 'America/Sao_Paulo' }],
    status: b.status,
    ...(b.cancellationReason !== undefined ? { cancellationReason: b.cancellationReason } : {}),
    ...(b.reschedulingReason !== undefined ? { reschedulingReason: b.reschedulingReason } : {}),
    ...(b.rescheduledFromUid !== undefined ? { rescheduledFromUid: b.rescheduledFromUid } : {}),
    ...(b.rescheduledToUid !== undefined ? { rescheduledToUid: b.rescheduledToUid } : {}),
    start: new Date(b.start).toISOString(),
    end: new Date(b.end).toISOString(),
    duration: Math.round((b.end - b.start) / 60_000),
    eventTypeId,
    eventType: { id: eventTypeId, slug: 'avaliacao' },
    location: '',
    absentHost: false,
    createdAt: new Date(b.createdAt).toISOString(),
    updatedAt: new Date(b.updatedAt).toISOString(),
    metadata: b.metadata,
    attendees: [{ ...b.attendee, displayEmail: b.attendee.email, absent: false }],
    guests: [],
    bookingFieldsResponses: { name: b.attendee.name, email: b.attendee.email, attendeePhoneNumber: b.attendee.phoneNumber },
  };
}

function success(status: number, data: unknown): Answer {
  return { status, body: { status: 'success', data } };
}

function errorAnswer(status: number, code: string, message: string, path: string): Answer {
  return { status, body: { status: 'error', timestamp: new Date().toISOString(), path, error: { code, message } } };
}

/** Starts a fake Cal.com API v2 (see FakeCalcom). */
export function startFakeCalcom(options: FakeCalcomOptions = {}): Promise<FakeCalcom> {
  return new FakeCalcom(options).start();
}
