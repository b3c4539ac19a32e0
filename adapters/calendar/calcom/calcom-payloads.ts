// Cal.com's API v2 payloads as LeadFlow reads and writes them (reference calendar-providers.md
// §3.2-3.4): the slots map, a booking, the create body, and the refusals that mean "this time is not
// free". Instants are ms since the epoch; Cal.com's are ISO 8601 strings (UTC `Z` when sent).
import type { Interval, ProviderAppointment } from '../calendar.js';

/** The metadata key holding `agendamentos.id` on a booking (reference §3.3: ≤ 40 characters). */
export const APPOINTMENT_KEY = 'leadflowAgendamento';
/** The metadata key holding the clinic's id. */
export const CLINIC_KEY = 'leadflowClinica';

/** The fields of a booking LeadFlow reads (BookingOutput_2024_08_13, shared by 2026-02-25). */
export interface CalcomBooking {
  uid: string;
  status: 'accepted' | 'pending' | 'cancelled' | 'rejected';
  /** ms since the epoch. */
  start: number;
  /** The booking this one was moved to (set on a rescheduled, cancelled booking). */
  rescheduledToUid?: string;
  metadata: Record<string, unknown>;
}

/** A booking that still holds its time: `accepted` or `pending` (awaiting the host's confirmation). */
export function isLive(booking: CalcomBooking): boolean {
  return booking.status === 'accepted' || booking.status === 'pending';
}

/** One booking of an answer's `data`, or undefined when it lacks a uid, a known status or a readable start. */
export function parseBooking(value: unknown): CalcomBooking | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const item = value as Record<string, unknown>;
  const status = typeof item.status === 'string' ? item.status.toLowerCase() : '';
  const start = typeof item.start === 'string' ? Date.parse(item.start) : Number.NaN;
  if (typeof item.uid !== 'string' || item.uid === '' || Number.isNaN(start)) return undefined;
  if (status !== 'accepted' && status !== 'pending' && status !== 'cancelled' && status !== 'rejected') return undefined;
  const metadata = typeof item.metadata === 'object' && item.metadata !== null ? (item.metadata as Record<string, unknown>) : {};
  return {
    uid: item.uid,
    status,
    start,
    ...(typeof item.rescheduledToUid === 'string' && item.rescheduledToUid !== '' ? { rescheduledToUid: item.rescheduledToUid } : {}),
    metadata,
  };
}

/** Whether `booking` was made for `appointment` (its metadata names the same appointment and, when present, clinic). */
export function isFor(booking: CalcomBooking, appointment: ProviderAppointment): boolean {
  if (String(booking.metadata[APPOINTMENT_KEY] ?? '') !== String(appointment.appointment_id)) return false;
  const clinic = booking.metadata[CLINIC_KEY];
  return clinic === undefined || String(clinic) === String(appointment.clinic_id);
}

/**
 * `POST /v2/bookings`'s body (reference §3.3): `start` in UTC, the lead as the attendee (name, else
 * the phone; the phone in international format, which a phone-only event type requires; pt-BR), the
 * appointment and clinic ids in `metadata` (how a retry finds the booking).
 */
export function bookingBody(appointment: ProviderAppointment, eventTypeId: number): object {
  const digits = appointment.lead_phone.replace(/\D/g, '');
  const phone = `+${digits}`;
  return {
    start: new Date(appointment.start).toISOString(),
    eventTypeId,
    attendee: { name: appointment.lead_name.trim() || phone, phoneNumber: phone, timeZone: appointment.time_zone, language: 'pt-BR' },
    metadata: { [APPOINTMENT_KEY]: String(appointment.appointment_id), [CLINIC_KEY]: String(appointment.clinic_id) },
  };
}

/**
 * `GET /v2/slots`'s `data` (reference §3.2: `{"<date>": [{"start", "end"?}, …]}`, `{}` when none) as
 * intervals of `durationMin` from each start, those starting in [from, to), sorted, without repeats.
 * Undefined when `data` is not that map; items without a readable start are skipped.
 */
export function parseSlots(data: unknown, from: number, to: number, durationMin: number): Interval[] | undefined {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined;
  const starts = new Set<number>();
  for (const day of Object.values(data as Record<string, unknown>)) {
    if (!Array.isArray(day)) return undefined;
    for (const item of day) {
      const start = typeof item?.start === 'string' ? Date.parse(item.start) : Number.NaN;
      if (!Number.isNaN(start) && start >= from && start < to) starts.add(start);
    }
  }
  return [...starts].sort((a, b) => a - b).map((start) => ({ start, end: start + durationMin * 60_000 }));
}

/**
 * Cal.com's 400 messages meaning the time is not free (reference §3.3, verbatim in its
 * errors.service): taken (`User either already has booking at this time or is not available`, the
 * team's `One of the hosts …`), outside notice or window (`The event type can't be booked at the
 * "start" time provided…`), past (`Attempting to book a meeting in the past.`).
 */
const SLOT_REFUSALS = [/already has booking at this time or is not available/i, /can't be booked at the "?start"? time/i, /in the past/i];

/** Whether a refusal (status and message) says the time is not free: one of SLOT_REFUSALS on a 400, or a 409. */
export function isSlotRefusal(status: number, message: string): boolean {
  if (status === 409) return true;
  return status === 400 && SLOT_REFUSALS.some((pattern) => pattern.test(message));
}
