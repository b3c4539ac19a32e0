// Reading a `freebusy.query` answer (reference calendar-providers.md §2.4):
//   {"calendars":{"<calendar id>":{"busy":[{"start":"2026-12-02T09:00:00-03:00","end":"…"}]}}}
// A calendar Google could not compute comes inside the 200 with `errors` (e.g. `notFound`: the calendar
// does not exist or is not shared with the service account) and an empty `busy`: that is "cannot
// check", never "free", so it is a CalendarUnavailableError, as is a missing entry or an unreadable time.
import type { Interval } from '../calendar.js';
import { GoogleUnavailableError } from './google-errors.js';

function entryOf(calendars: Record<string, unknown>, calendarId: string): Record<string, unknown> | undefined {
  const exact = calendars[calendarId];
  if (exact && typeof exact === 'object') return exact as Record<string, unknown>;
  const lower = calendarId.toLowerCase();
  const key = Object.keys(calendars).find((k) => k.toLowerCase() === lower);
  const found = key === undefined ? undefined : calendars[key];
  return found && typeof found === 'object' ? (found as Record<string, unknown>) : undefined;
}

function unreadable(calendarId: string, errors: unknown[], serviceEmail: string): GoogleUnavailableError {
  const reasons = errors.map((e) => String((e as { reason?: unknown } | null)?.reason ?? 'unknown'));
  if (reasons.includes('notFound')) {
    return new GoogleUnavailableError(
      `google: calendar ${calendarId} not found or not shared with the service account ${serviceEmail} ` +
        '(share it with that e-mail, permission "Make changes to events")',
      200,
      'notFound',
    );
  }
  return new GoogleUnavailableError(`google: freeBusy could not read calendar ${calendarId} (${reasons.join(', ')})`, 200, reasons[0]);
}

/** The busy windows of `calendarId` in a freeBusy answer, ms since the epoch, in start order (see the file's head). */
export function readBusy(json: unknown, calendarId: string, serviceEmail: string): Interval[] {
  const calendars = (json as { calendars?: unknown } | null)?.calendars;
  if (!calendars || typeof calendars !== 'object') throw new GoogleUnavailableError('google: freeBusy answer without calendars', 200);
  const entry = entryOf(calendars as Record<string, unknown>, calendarId);
  if (!entry) throw new GoogleUnavailableError(`google: freeBusy answer has no entry for calendar ${calendarId}`, 200);
  if (Array.isArray(entry.errors) && entry.errors.length > 0) throw unreadable(calendarId, entry.errors, serviceEmail);
  if (!Array.isArray(entry.busy)) throw new GoogleUnavailableError(`google: freeBusy answer for ${calendarId} has no busy list`, 200);
  const busy = entry.busy.map((period) => {
    const { start, end } = (period ?? {}) as { start?: unknown; end?: unknown };
    const interval = { start: Date.parse(String(start)), end: Date.parse(String(end)) };
    if (!Number.isFinite(interval.start) || !Number.isFinite(interval.end)) {
      throw new GoogleUnavailableError(`google: freeBusy answer for ${calendarId} has an unreadable busy time`, 200);
    }
    return interval;
  });
  return busy.sort((a, b) => a.start - b.start);
}
