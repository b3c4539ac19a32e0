// A clinic's Cal.com event type as its calendar (CONTRACT §12 `agenda.calcom`; reference
// calendar-providers.md §3): Cal.com's slots, and one booking per appointment, found again by its
// `metadata.leadflowAgendamento` (Cal.com has no client idempotency key).
//   availability  GET /v2/slots → the listed starts, each `duration_min` long (Cal.com's own grid).
//   create        looks first (GET /v2/bookings for the event type around the start, matched by the
//                 metadata) and returns a live booking made by an earlier call — so a crash between
//                 Cal.com accepting and the row being written leaves one booking after the retry;
//                 else POST /v2/bookings. A transient failure of the POST (timeout, network, 429, 5xx)
//                 is followed by another look, then another POST, within the call's deadline. A slot
//                 refusal is checked against one more look (the first POST may have been ours).
//   move          follows the booking (GET /v2/bookings/{uid}; a rescheduled one to its
//                 `rescheduledToUid`) and reschedules the live one: POST …/reschedule gives a NEW uid,
//                 returned as `external_id`. Repeated after its answer was lost, the old booking is
//                 found rescheduled and its successor returned; a booking cancelled outside LeadFlow is
//                 booked again at the new time.
//   cancel        POST …/cancel; one already cancelled, or unknown, counts as done; a rescheduled one's
//                 successor is cancelled instead. Without a uid (a create that failed midway), the
//                 appointment's booking is looked up and cancelled if there is one.
// `pending` (an event type that "requires confirmation", reference §3.7 #5): a booking the clinic has
// not confirmed is not an appointment LeadFlow can promise the lead, and may not even hold the time
// against another lead. create cancels it and rejects with CalendarUnavailableError naming the
// setting to turn off. A move under such an event type (switched on after booking) returns the new
// pending booking as it is: the old one is gone, so its uid is the one to track.
import { type Clock, systemClock } from '../../clock.js';
import {
  type Availability,
  type AvailabilityQuery,
  type CalendarProvider,
  type ProviderAppointment,
  type ProviderRef,
  SlotUnavailableError,
} from '../calendar.js';
import { type CalcomAnswer, type CalcomCall, CalcomHttp, type CalcomRefusal, CalcomUnavailableError } from './calcom-http.js';
import { CALCOM_API_VERSIONS, CALCOM_BASE_URL, CALCOM_DEADLINE_MS, CALCOM_TIMEOUT_MS, type CalcomOptions } from './calcom-options.js';
import { type CalcomBooking, bookingBody, isFor, isLive, isSlotRefusal, parseBooking, parseSlots } from './calcom-payloads.js';

/** POSTs of one create (each after a look), at most. */
const MAX_ROUNDS = 3;
/** Requests of one move or cancel following a booking (reads of rescheduled ones, tries), at most. */
const MAX_STEPS = 6;
/** Page size of GET /v2/bookings (Cal.com: ≤ 250) and pages read at most. */
const PAGE_SIZE = 100;
const MAX_PAGES = 5;
/** The look-up window around an appointment's start: from 1 minute before to 24 hours after (ms). */
const LOOK_BEFORE_MS = 60_000;
const LOOK_AFTER_MS = 24 * 3_600_000;
/** Sent as `reschedulingReason` on a move (the interface carries none). */
const MOVE_REASON = 'Remarcado via LeadFlow';

/**
 * Cal.com API v2 as a CalendarProvider (see the file's head for each method's contract).
 *
 * @example
 * const calendar = new CalcomCalendar({ api_key: 'cal_live_…', event_type_id: 123 });
 * const { slots } = await calendar.availability({ from, to, duration_min: 60, time_zone: 'America/Sao_Paulo' });
 */
export class CalcomCalendar implements CalendarProvider {
  readonly provider = 'calcom' as const;
  private readonly http: CalcomHttp;
  private readonly eventTypeId: number;
  private readonly deadlineMs: number;
  private readonly clock: Clock;

  /** Checks the options (a bad one throws a TypeError that never shows the key). */
  constructor(options: CalcomOptions) {
    if (typeof options.api_key !== 'string' || options.api_key.trim() === '') throw new TypeError('calcom: api_key is required');
    if (!Number.isInteger(options.event_type_id) || options.event_type_id <= 0)
      throw new TypeError('calcom: event_type_id must be a positive integer');
    const baseUrl = options.base_url ?? CALCOM_BASE_URL;
    if (!/^https?:\/\/[^/]/.test(baseUrl) || !URL.canParse(baseUrl)) throw new TypeError('calcom: base_url must be an http(s) URL');
    this.eventTypeId = options.event_type_id;
    this.deadlineMs = options.deadlineMs ?? CALCOM_DEADLINE_MS;
    this.clock = options.clock ?? systemClock;
    this.http = new CalcomHttp({
      apiKey: options.api_key,
      baseUrl,
      timeoutMs: options.timeoutMs ?? CALCOM_TIMEOUT_MS,
      fetch: options.fetch ?? globalThis.fetch,
      clock: this.clock,
    });
  }

  /** The starts Cal.com lists in [from, to), each `duration_min` long. */
  async availability(query: AvailabilityQuery, signal?: AbortSignal): Promise<Availability> {
    const request = {
      method: 'GET' as const,
      path: '/slots',
      query: {
        eventTypeId: String(this.eventTypeId),
        start: new Date(query.from).toISOString(),
        end: new Date(query.to).toISOString(),
        timeZone: query.time_zone,
        format: 'range',
      },
      version: CALCOM_API_VERSIONS.slots,
      retry: true,
    };
    const answer = await this.http.send(request, this.call(signal));
    if (!answer.ok) throw this.refused(answer, 'GET', '/slots');
    const slots = parseSlots(answer.data, query.from, query.to, query.duration_min);
    if (!slots) throw new CalcomUnavailableError(`calcom: unusable answer on GET ${this.http.displayPath('/slots')}`, false);
    return { kind: 'slots', slots };
  }

  /** The appointment's booking: found again, or made (see the file's head). */
  create(appointment: ProviderAppointment, signal?: AbortSignal): Promise<ProviderRef> {
    return this.book(appointment, this.call(signal));
  }

  /** The booking moved to the appointment's start; resolves to the new uid (see the file's head). */
  async move(ref: ProviderRef, appointment: ProviderAppointment, signal?: AbortSignal): Promise<ProviderRef> {
    const call = this.call(signal);
    let uid = ref.external_id;
    for (let round = 1; uid !== null; round++) {
      if (round > MAX_STEPS) throw new CalcomUnavailableError('calcom: the booking could not be moved in time', true);
      const current = await this.get(uid, call);
      if (!current) break;
      if (!isLive(current)) {
        if (!current.rescheduledToUid) break;
        uid = current.rescheduledToUid;
        continue;
      }
      if (current.start === appointment.start) return { external_id: current.uid };
      const moved = await this.reschedule(current, appointment, call);
      if (moved) return moved;
    }
    return this.book(appointment, call);
  }

  /** The booking (or the one it was rescheduled to) cancelled; without a uid, the appointment's found by its metadata (see the file's head). */
  async cancel(ref: ProviderRef, appointment: ProviderAppointment, reason: string, signal?: AbortSignal): Promise<void> {
    const call = this.call(signal);
    let uid = ref.external_id ?? (await this.find(appointment, call))?.uid;
    for (let round = 1; uid !== undefined; round++) {
      if (round > MAX_STEPS) throw new CalcomUnavailableError('calcom: the booking could not be cancelled in time', true);
      const answer = await this.post(
        `/bookings/${encodeURIComponent(uid)}/cancel`,
        reason ? { cancellationReason: reason } : {},
        true,
        call,
      );
      if (answer.ok || answer.status === 404) return;
      const current = await this.get(uid, call);
      if (!current) return;
      if (isLive(current)) throw this.refused(answer, 'POST', `/bookings/${uid}/cancel`);
      uid = current.rescheduledToUid;
    }
  }

  /** Looks, then books; a transient failure of the POST is followed by another look (see the file's head). */
  private async book(appointment: ProviderAppointment, call: CalcomCall): Promise<ProviderRef> {
    for (let round = 1; ; round++) {
      const found = await this.find(appointment, call);
      if (found) return this.settled(found, call);
      let answer: CalcomAnswer;
      try {
        answer = await this.post('/bookings', bookingBody(appointment, this.eventTypeId), false, call);
      } catch (err) {
        if (err instanceof CalcomUnavailableError && err.transient && round < MAX_ROUNDS) continue;
        throw err;
      }
      if (answer.ok) return this.settled(this.booking(answer.data, 'POST', '/bookings'), call);
      if (!isSlotRefusal(answer.status, answer.message)) throw this.refused(answer, 'POST', '/bookings');
      const mine = await this.find(appointment, call);
      if (mine) return this.settled(mine, call);
      throw new SlotUnavailableError(`calcom: ${answer.message}`);
    }
  }

  /** POST …/reschedule of a live booking; undefined after a transient failure (the caller looks again). */
  private async reschedule(current: CalcomBooking, appointment: ProviderAppointment, call: CalcomCall): Promise<ProviderRef | undefined> {
    const path = `/bookings/${encodeURIComponent(current.uid)}/reschedule`;
    let answer: CalcomAnswer;
    try {
      answer = await this.post(path, { start: new Date(appointment.start).toISOString(), reschedulingReason: MOVE_REASON }, false, call);
    } catch (err) {
      if (err instanceof CalcomUnavailableError && err.transient) return undefined;
      throw err;
    }
    if (answer.ok) return { external_id: this.booking(answer.data, 'POST', path).uid };
    // A repeat of a reschedule whose answer was lost is refused: the new booking already exists.
    const mine = await this.find(appointment, call);
    if (mine) return { external_id: mine.uid };
    if (isSlotRefusal(answer.status, answer.message)) throw new SlotUnavailableError(`calcom: ${answer.message}`);
    throw this.refused(answer, 'POST', path);
  }

  /** An accepted booking's reference; a pending one is cancelled and refused (see the file's head). */
  private async settled(booking: CalcomBooking, call: CalcomCall): Promise<ProviderRef> {
    if (booking.status === 'accepted') return { external_id: booking.uid };
    // Best effort: a pending booking left by a failed cancel is found and cancelled by the next create.
    const path = `/bookings/${encodeURIComponent(booking.uid)}/cancel`;
    await this.post(path, { cancellationReason: 'Tipo de evento exige confirmação' }, true, call).catch((err) => {
      if (call.signal?.aborted) throw err;
    });
    throw new CalcomUnavailableError(
      `calcom: event type ${this.eventTypeId} requires confirmation (its bookings come back pending); turn "Requires confirmation" off for LeadFlow to book`,
      false,
    );
  }

  /** The live booking made for `appointment` at its start, if any (GET /v2/bookings, matched by metadata). */
  private async find(appointment: ProviderAppointment, call: CalcomCall): Promise<CalcomBooking | undefined> {
    const query = {
      eventTypeId: String(this.eventTypeId),
      afterStart: new Date(appointment.start - LOOK_BEFORE_MS).toISOString(),
      beforeEnd: new Date(appointment.start + LOOK_AFTER_MS).toISOString(),
      sortStart: 'asc',
      take: String(PAGE_SIZE),
    };
    for (let page = 0; page < MAX_PAGES; page++) {
      const request = { method: 'GET' as const, path: '/bookings', version: CALCOM_API_VERSIONS.bookings, retry: true };
      const answer = await this.http.send({ ...request, query: { ...query, skip: String(page * PAGE_SIZE) } }, call);
      if (!answer.ok) throw this.refused(answer, 'GET', '/bookings');
      if (!Array.isArray(answer.data))
        throw new CalcomUnavailableError(`calcom: unusable answer on GET ${this.http.displayPath('/bookings')}`, false);
      const mine = answer.data
        .map(parseBooking)
        .filter((b): b is CalcomBooking => b !== undefined && isLive(b) && b.start === appointment.start && isFor(b, appointment));
      if (mine.length > 0) return mine.find((b) => b.status === 'accepted') ?? mine[0];
      if (answer.data.length < PAGE_SIZE) return undefined;
    }
    return undefined;
  }

  /** GET /v2/bookings/{uid}; undefined when Cal.com does not know it (404). */
  private async get(uid: string, call: CalcomCall): Promise<CalcomBooking | undefined> {
    const path = `/bookings/${encodeURIComponent(uid)}`;
    const answer = await this.http.send({ method: 'GET', path, version: CALCOM_API_VERSIONS.bookings, retry: true }, call);
    if (!answer.ok && answer.status === 404) return undefined;
    if (!answer.ok) throw this.refused(answer, 'GET', path);
    return this.booking(answer.data, 'GET', path);
  }

  private post(path: string, body: object, retry: boolean, call: CalcomCall): Promise<CalcomAnswer> {
    return this.http.send({ method: 'POST', path, body, version: CALCOM_API_VERSIONS.bookings, retry }, call);
  }

  private booking(data: unknown, method: string, path: string): CalcomBooking {
    const booking = parseBooking(data);
    if (!booking) throw new CalcomUnavailableError(`calcom: unusable answer on ${method} ${this.http.displayPath(path)}`, false);
    return booking;
  }

  /** A refusal that is not about the time: the provider cannot do what is asked (configuration, unknown event type). */
  private refused(answer: CalcomRefusal, method: string, path: string): CalcomUnavailableError {
    const why = answer.message ? ` (${answer.message})` : '';
    return new CalcomUnavailableError(`calcom: HTTP ${answer.status} on ${method} ${this.http.displayPath(path)}${why}`, false);
  }

  private call(signal: AbortSignal | undefined): CalcomCall {
    return { deadline: this.clock.now() + this.deadlineMs, signal };
  }
}
