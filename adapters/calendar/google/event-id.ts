// The Google event id LeadFlow gives an appointment's event (reference calendar-providers.md §2.5:
// base32hex, lowercase a-v and 0-9, 5 to 1024 characters, unique per calendar, kept by a deleted event).
//
//   lf <clinic id, hex, 8 digits at least> <appointment id, hex, 14 digits> [n <16 base32hex of SHA-256(namespace)>]
//   e.g. clinic 7, appointment 1234: lf0000000700000000000004d2
//
// The same appointment always gets the same id, so an insert repeated after a lost answer or a crash
// meets 409 `duplicate` and finds the event instead of making a second one. Clinic and appointment
// together keep the clinics of one LeadFlow database apart on a shared calendar; two LeadFlow databases
// booking into one calendar (say, a copy of production) can have the same clinic and appointment ids,
// so each should be given its own `namespace` (any stable text naming the database). Without one, such
// a collision is caught, not merged, as long as the two appointments are of different leads: an event
// found under our id whose private properties name another appointment, clinic, lead (phone hash) or
// namespace is an error (google-calendar.ts), never taken as ours.
// A deleted event keeps its id forever: an appointment whose event was deleted is never booked again
// under the same id (a cancelled appointment booked again is a new `agendamentos` row, hence a new id);
// a move whose event was deleted by hand in Google Calendar makes a new event under movedEventId.
import { createHash } from 'node:crypto';

/** Characters of base32hex (RFC 4648 §7), lowercase, as Google's event ids take them. */
const BASE32HEX = '0123456789abcdefghijklmnopqrstuv';

/** Google's rule for an event id. */
export const EVENT_ID_PATTERN = /^[a-v0-9]{5,1024}$/;

function hexId(value: number, digits: number, what: string): string {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`google event id: ${what} must be a non-negative integer, got ${value}`);
  return value.toString(16).padStart(digits, '0');
}

/** Lowercase base32hex of `bytes` (no padding). */
export function base32hex(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32HEX[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32HEX[(buffer << (5 - bits)) & 31];
  return out;
}

/** The `n…` part for `namespace` ('' when none): 16 base32hex characters (80 bits) of its SHA-256. */
export function namespaceTag(namespace: string | undefined): string {
  if (!namespace) return '';
  return `n${base32hex(createHash('sha256').update(namespace).digest()).slice(0, 16)}`;
}

/** The event id of appointment `appointmentId` of clinic `clinicId` (see the file's head). Throws RangeError for an id that is not a safe non-negative integer. */
export function eventIdFor(clinicId: number, appointmentId: number, namespace?: string): string {
  return `lf${hexId(clinicId, 8, 'clinic_id')}${hexId(appointmentId, 14, 'appointment_id')}${namespaceTag(namespace)}`;
}

/**
 * The id of the event a move makes when the appointment's event was deleted in Google Calendar: the
 * appointment's id, `m`, and the new start in minutes since the epoch (hex), so a repeated move to the
 * same time finds the event it made.
 */
export function movedEventId(baseId: string, startMs: number): string {
  return `${baseId}m${hexId(Math.floor(startMs / 60_000), 1, 'start')}`;
}
