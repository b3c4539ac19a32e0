// The `google` calendar provider (CONTRACT §12; reference calendar-providers.md §2): Google Calendar
// API v3 with a service account the clinic shared its calendar with ("Make changes to events").
//   availability  POST /freeBusy for the calendar -> {kind: 'busy'} (the slot grid minus these)
//   create        POST /calendars/{id}/events with the event id of event-id.ts; 409 `duplicate` (an
//                 earlier call's insert, answer lost or process killed) -> GET it, check it is this
//                 appointment's (private stamps), put it at the appointment's times if it is not, and
//                 return it: one event per appointment however often create is repeated
//   move          PATCH the same event's start and end (stamps re-asserted); an event deleted by hand
//                 in Google Calendar is made again under movedEventId (a deleted id is never reused)
//   cancel        DELETE the event; 404 and 410 (already deleted) are done. With no external_id (the
//                 row never got one: a crash right after the insert) the appointment's own id is deleted.
//   erase         (the lead's erasure) PATCH the event blank of the lead, then as cancel: Google keeps
//                 deleted events in the calendar's trash
// A cancelled appointment booked again is a new appointment (a new `agendamentos` row, so a new event
// id) made by the caller with create: never move a cancelled appointment's ref.
// Errors: see google-errors.ts and google-http.ts (CalendarUnavailableError within about `deadlineMs`,
// SlotUnavailableError for a 400 about the times); never a credential in a message or log line.
import { sleep } from '../../../engine/run/retry.js';
import { type Clock, systemClock } from '../../clock.js';
import type { Availability, AvailabilityQuery, CalendarProvider, ProviderAppointment, ProviderRef } from '../calendar.js';
import { CalendarUnavailableError } from '../calendar.js';
import { eventBody, eventStamp, eventTimesPatch, hasStamp, zonedDateTime } from './event-body.js';
import { eventIdFor, movedEventId, namespaceTag } from './event-id.js';
import { readBusy } from './free-busy.js';
import { GoogleUnavailableError } from './google-errors.js';
import { type CalendarLogger, GoogleHttp } from './google-http.js';
import { checkedServiceAccount, type ServiceAccount, type ServiceAccountInput } from './service-account.js';
import { sharedTokenCache, type TokenCache } from './token-cache.js';

/** Google's API base. */
export const DEFAULT_GOOGLE_BASE_URL = 'https://www.googleapis.com/calendar/v3';
/** Google's token endpoint (the JWT's `aud`). */
export const DEFAULT_GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';

/** `agenda.google` of CONTRACT §12 plus what a host or test injects. Units: ms. */
export interface GoogleCalendarOptions {
  /** The clinic's calendar id (an e-mail-like id; never `primary`, the service account's own calendar). */
  calendar_id: string;
  /** The key JSON, object or text (only `client_email` and `private_key` are read; a key with literal backslash-n is repaired). */
  service_account: ServiceAccountInput | string;
  /** Default DEFAULT_GOOGLE_BASE_URL. */
  base_url?: string;
  /** Default DEFAULT_GOOGLE_TOKEN_URL. */
  token_url?: string;
  /** Time limit of one HTTP attempt (token request included), default 5000. */
  timeoutMs?: number;
  /** Time limit of one method call with its retries, default 8000. */
  deadlineMs?: number;
  /** Stable text naming this LeadFlow database, when several book into one calendar (event-id.ts). Default none. */
  namespace?: string;
  /** Attempts per call, default 3; backoff from `baseDelayMs` (200) doubling up to `maxDelayMs` (1000). */
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** [0, 1) source of the backoff's jitter, default Math.random. */
  random?: () => number;
  fetch?: typeof fetch;
  /** "now" for the JWT and token expiry, default systemClock. */
  clock?: Clock;
  /** Token cache, default sharedTokenCache (one per process). */
  tokens?: TokenCache;
  /** Receives retry notices. */
  logger?: CalendarLogger;
}

/** Wait before reading again an event that answered 409 on insert and 404 on read, ms. */
const READ_AGAIN_MS = 300;

/** The event Google returned, as far as it is read here. */
interface FoundEvent {
  status?: string;
  start?: { dateTime?: string };
  end?: { dateTime?: string };
}

/**
 * A clinic's Google calendar (see the file's head).
 *
 * @example
 * const calendar = new GoogleCalendar({ calendar_id: 'clinica.aurora@gmail.com', service_account: keyJson });
 * const { busy } = (await calendar.availability({ from, to, duration_min: 60, time_zone: 'America/Sao_Paulo' })) as { busy: Interval[] };
 * const ref = await calendar.create(appointment); // { external_id: 'lf0000000700000000000004d2' }
 */
export class GoogleCalendar implements CalendarProvider {
  readonly provider = 'google' as const;
  private readonly http: GoogleHttp;
  private readonly calendarId: string;
  private readonly account: ServiceAccount;
  private readonly namespace: string | undefined;

  constructor(options: GoogleCalendarOptions) {
    const id = typeof options.calendar_id === 'string' ? options.calendar_id.trim() : '';
    if (!id || id === 'primary') {
      throw new CalendarUnavailableError("google: calendar_id must name the clinic's calendar (not empty, not 'primary')");
    }
    this.calendarId = id;
    this.account = checkedServiceAccount(options.service_account);
    this.namespace = options.namespace || undefined;
    this.http = new GoogleHttp({
      account: this.account,
      baseUrl: (options.base_url ?? DEFAULT_GOOGLE_BASE_URL).replace(/\/+$/, ''),
      tokenUrl: options.token_url ?? DEFAULT_GOOGLE_TOKEN_URL,
      tokens: options.tokens ?? sharedTokenCache,
      fetch: options.fetch ?? fetch,
      clock: options.clock ?? systemClock,
      timeoutMs: options.timeoutMs ?? 5000,
      deadlineMs: options.deadlineMs ?? 8000,
      attempts: options.attempts ?? 3,
      baseDelayMs: options.baseDelayMs ?? 200,
      maxDelayMs: options.maxDelayMs ?? 1000,
      random: options.random ?? Math.random,
      logger: options.logger,
    });
  }

  /** The event id of `appointment` on this calendar (event-id.ts). */
  eventId(appointment: Pick<ProviderAppointment, 'clinic_id' | 'appointment_id'>): string {
    return eventIdFor(appointment.clinic_id, appointment.appointment_id, this.namespace);
  }

  /** The calendar's busy windows in `query`'s span (`{kind: 'busy'}`); an empty or reversed span asks nothing. */
  async availability(query: AvailabilityQuery, signal?: AbortSignal): Promise<Availability> {
    if (query.to <= query.from) return { kind: 'busy', busy: [] };
    const answer = await this.http.request(
      {
        method: 'POST',
        path: '/freeBusy',
        body: {
          timeMin: zonedDateTime(query.from, query.time_zone),
          timeMax: zonedDateTime(query.to, query.time_zone),
          timeZone: query.time_zone,
          items: [{ id: this.calendarId }],
        },
      },
      signal,
    );
    return { kind: 'busy', busy: readBusy(answer.json, this.calendarId, this.account.client_email) };
  }

  /** Inserts the appointment's event, or finds the one an earlier call inserted (see the file's head). */
  async create(appointment: ProviderAppointment, signal?: AbortSignal): Promise<ProviderRef> {
    const id = this.eventId(appointment);
    await this.ensureEvent(id, appointment, signal);
    return { external_id: id };
  }

  /** Moves the event `ref` names to the appointment's times (see the file's head). */
  async move(ref: ProviderRef, appointment: ProviderAppointment, signal?: AbortSignal): Promise<ProviderRef> {
    if (!ref.external_id) return this.create(appointment, signal);
    const id = ref.external_id;
    let moved: FoundEvent | undefined;
    try {
      const answer = await this.http.request(
        {
          method: 'PATCH',
          path: this.eventPath(id),
          body: { ...eventTimesPatch(appointment), extendedProperties: { private: this.stamp(appointment) } },
        },
        signal,
      );
      moved = answer.json as FoundEvent | undefined;
    } catch (err) {
      if (!(err instanceof GoogleUnavailableError && [403, 404, 410].includes(err.status ?? 0))) throw err;
      const found = await this.getEvent(id, signal);
      if (found && found.status !== 'cancelled') throw err;
    }
    if (moved && moved.status !== 'cancelled') return { external_id: id };
    const again = movedEventId(this.eventId(appointment), appointment.start);
    await this.ensureEvent(again, appointment, signal);
    return { external_id: again };
  }

  /**
   * The lead's erasure: the event's title and description blanked of the lead (name, WhatsApp link)
   * and its contact stamp removed, then deleted as `cancel` does — Google keeps a deleted event in
   * the calendar's trash, so what it held goes first. An event already deleted cannot be changed
   * (403) nor found (404/410): then only the delete is asked.
   */
  async erase(ref: ProviderRef, appointment: ProviderAppointment, signal?: AbortSignal): Promise<void> {
    const id = ref.external_id ?? this.eventId(appointment);
    const blank = { summary: 'Avaliação (LeadFlow)', description: 'Contato excluído pelo LeadFlow.' };
    const body = { ...blank, extendedProperties: { private: { leadflowContato: null } } };
    await this.http.request({ method: 'PATCH', path: this.eventPath(id), body, accept: [403, 404, 410] }, signal);
    await this.cancel(ref, appointment, 'lead erased', signal);
  }

  /** Deletes the event (the appointment's own id when `ref` has none); one already gone is done. `reason` is not sent to Google. */
  async cancel(ref: ProviderRef, appointment: ProviderAppointment, _reason: string, signal?: AbortSignal): Promise<void> {
    const id = ref.external_id ?? this.eventId(appointment);
    await this.http.request({ method: 'DELETE', path: this.eventPath(id), accept: [404, 410] }, signal);
  }

  /** Inserts event `id` for `appointment`, or adopts the one already there when it is this appointment's. */
  private async ensureEvent(id: string, appointment: ProviderAppointment, signal?: AbortSignal): Promise<void> {
    const body = eventBody(id, appointment, namespaceTag(this.namespace));
    const inserted = await this.http.request({ method: 'POST', path: this.eventsPath(), body, accept: [409] }, signal);
    if (inserted.status !== 409) return;
    // Google may not show an event right after its insert: one more look after a short wait.
    const found = (await this.getEvent(id, signal)) ?? (await sleep(READ_AGAIN_MS, signal).then(() => this.getEvent(id, signal)));
    if (!found) throw new GoogleUnavailableError(`google: event ${id} exists (409) but cannot be read`, 404);
    if (found.status === 'cancelled') {
      throw new GoogleUnavailableError(
        `google: event ${id} was deleted and its id cannot be used again; book the appointment again as a new appointment`,
        409,
        'deleted',
      );
    }
    if (!hasStamp(found, this.stamp(appointment))) {
      throw new GoogleUnavailableError(
        `google: event id ${id} is taken by an event of another appointment (another LeadFlow database on calendar ${this.calendarId}? give each its own namespace)`,
        409,
        'duplicate',
      );
    }
    if (Date.parse(found.start?.dateTime ?? '') === appointment.start && Date.parse(found.end?.dateTime ?? '') === appointment.end) return;
    await this.http.request({ method: 'PATCH', path: this.eventPath(id), body: eventTimesPatch(appointment) }, signal);
  }

  /** The event `id` (cancelled ones included), or null when Google does not know it (404, 410). */
  private async getEvent(id: string, signal?: AbortSignal): Promise<FoundEvent | null> {
    const answer = await this.http.request({ method: 'GET', path: this.eventPath(id), accept: [404, 410] }, signal);
    if (answer.status === 404 || answer.status === 410) return null;
    return (answer.json ?? {}) as FoundEvent;
  }

  private stamp(appointment: ProviderAppointment) {
    return eventStamp(appointment, namespaceTag(this.namespace));
  }

  private eventsPath(): string {
    return `/calendars/${encodeURIComponent(this.calendarId)}/events`;
  }

  private eventPath(id: string): string {
    return `${this.eventsPath()}/${encodeURIComponent(id)}`;
  }
}
