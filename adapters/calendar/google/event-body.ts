// The event LeadFlow writes for an appointment (reference calendar-providers.md §2.5): title
// `Avaliação — <lead's first name, else +phone> (LeadFlow)`, a description with the clinic and the
// lead's WhatsApp link, start and end as `dateTime` with the zone's offset AND `timeZone` (the IANA name),
// and `extendedProperties.private` stamps {leadflowAgendamento, leadflowClinica, leadflowContato[,
// leadflowBase]} that say whose event it is (`leadflowContato`: 16 hex of the SHA-256 of the lead's
// phone digits, opaque; the phone itself is in the description for the clinic's staff). Never `attendees` (a service account cannot invite) nor `reminders` (they would
// ring for the service account; the lead's reminders are LeadFlow's).
import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import { CalendarUnavailableError, type ProviderAppointment } from '../calendar.js';

/** The private properties that mark an event as an appointment's. */
export interface EventStamp {
  leadflowAgendamento: string;
  leadflowClinica: string;
  /** 16 hex of SHA-256(`leadflow:` + the lead's phone digits). */
  leadflowContato: string;
  /** The namespace tag (event-id.ts) when the provider has a namespace. */
  leadflowBase?: string;
}

/** `ms` as RFC 3339 with the offset `zone` has at that instant (`2026-12-02T14:30:00-03:00`). */
export function zonedDateTime(ms: number, zone: string): string {
  const text = DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true });
  if (!text) throw new CalendarUnavailableError(`google: invalid time zone or instant (${zone}, ${ms})`);
  return text;
}

/** The event's title: the lead's first name, or its phone when the name is empty. */
export function eventSummary(appointment: ProviderAppointment): string {
  const first = appointment.lead_name.trim().split(/\s+/)[0];
  const who = first || `+${appointment.lead_phone.replace(/\D/g, '')}`;
  return `Avaliação — ${who} (LeadFlow)`;
}

/** `start` and `end` of the event, each with offset and zone. */
export function eventTimes(appointment: ProviderAppointment) {
  return {
    start: { dateTime: zonedDateTime(appointment.start, appointment.time_zone), timeZone: appointment.time_zone },
    end: { dateTime: zonedDateTime(appointment.end, appointment.time_zone), timeZone: appointment.time_zone },
  };
}

/**
 * `start` and `end` for a PATCH: as eventTimes with `date: null`, so an event the staff turned into an
 * all-day one (which has `date`, not `dateTime`) becomes a timed one again instead of a 400 (timed and
 * all-day fields must not be mixed; reference calendar-providers.md §2.5).
 */
export function eventTimesPatch(appointment: ProviderAppointment) {
  const { start, end } = eventTimes(appointment);
  return { start: { ...start, date: null }, end: { ...end, date: null } };
}

/** The stamp of `appointment` (`base`: the namespace tag, '' for none). */
export function eventStamp(appointment: ProviderAppointment, base: string): EventStamp {
  return {
    leadflowAgendamento: String(appointment.appointment_id),
    leadflowClinica: String(appointment.clinic_id),
    leadflowContato: createHash('sha256')
      .update(`leadflow:${appointment.lead_phone.replace(/\D/g, '')}`)
      .digest('hex')
      .slice(0, 16),
    ...(base ? { leadflowBase: base } : {}),
  };
}

/** The body of `events.insert` for `appointment` under event id `id`. */
export function eventBody(id: string, appointment: ProviderAppointment, base: string) {
  const digits = appointment.lead_phone.replace(/\D/g, '');
  const name = appointment.lead_name.trim();
  return {
    id,
    summary: eventSummary(appointment),
    description: [
      `Avaliação agendada pelo LeadFlow${appointment.clinic_name ? ` — ${appointment.clinic_name}` : ''}.`,
      ...(name ? [`Nome: ${name}`] : []),
      `WhatsApp: https://wa.me/${digits}`,
      `Ref: agendamento ${appointment.appointment_id}`,
    ].join('\n'),
    ...eventTimes(appointment),
    extendedProperties: { private: eventStamp(appointment, base) },
  };
}

/** Whether the event `found` (as Google returned it) carries exactly `stamp` in its private properties. */
export function hasStamp(found: unknown, stamp: EventStamp): boolean {
  const own = (found as { extendedProperties?: { private?: Record<string, unknown> } } | null)?.extendedProperties?.private ?? {};
  return (
    own.leadflowAgendamento === stamp.leadflowAgendamento &&
    own.leadflowClinica === stamp.leadflowClinica &&
    own.leadflowContato === stamp.leadflowContato &&
    (own.leadflowBase ?? '') === (stamp.leadflowBase ?? '')
  );
}
