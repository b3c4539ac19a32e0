// Each clinic's calendar provider, from its `agenda` (CONTRACT §12): `interno` (LeadFlow's own grid),
// `google` (its service account's calendar) or `calcom` (its event type). A client is built per
// call (they hold no connection); Google's access tokens are cached process-wide per service account
// (google/token-cache.ts), so building one per booking costs no token request.
import type { Clock } from '../clock.js';
import type { BookingClinic } from './appointments.js';
import { CalcomCalendar } from './calcom/calcom-calendar.js';
import type { CalendarProvider } from './calendar.js';
import { GoogleCalendar } from './google/google-calendar.js';
import { internoCalendar } from './interno.js';

/** Limits shared by the providers' clients, ms: one HTTP attempt, one call with its retries. */
export interface CalendarClientLimits {
  timeoutMs?: number;
  deadlineMs?: number;
  /** The clock Cal.com's client waits and dates with (tests); default the system's. */
  clock?: Clock;
}

/**
 * The provider of `clinic`'s agenda. Throws TypeError for a `google` or `calcom` agenda without its
 * block (parseAgenda never gives one); a client's own checks throw without showing a credential.
 */
export function calendarFor(clinic: BookingClinic, limits: CalendarClientLimits = {}): CalendarProvider {
  const { agenda } = clinic;
  const times = {
    ...(limits.timeoutMs !== undefined ? { timeoutMs: limits.timeoutMs } : {}),
    ...(limits.deadlineMs !== undefined ? { deadlineMs: limits.deadlineMs } : {}),
  };
  switch (agenda.provider) {
    case 'interno':
      return internoCalendar();
    case 'google': {
      if (!agenda.google) throw new TypeError(`clinic ${clinic.id}: agenda.google is missing`);
      const { calendar_id, service_account, base_url, token_url } = agenda.google;
      return new GoogleCalendar({ calendar_id, service_account: { ...service_account }, base_url, token_url, ...times });
    }
    case 'calcom': {
      if (!agenda.calcom) throw new TypeError(`clinic ${clinic.id}: agenda.calcom is missing`);
      const { api_key, event_type_id, base_url } = agenda.calcom;
      return new CalcomCalendar({ api_key, event_type_id, base_url, ...times, ...(limits.clock ? { clock: limits.clock } : {}) });
    }
  }
}
