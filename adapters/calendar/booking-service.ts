// `ctx.services.booking`: the booking store (appointments.ts) of the host's database, with each
// clinic's calendar provider (calendar-for.ts) and the host's clock. A step opens it with its own
// abort signal, so a cancelled or timed-out step stops its provider calls.
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { Appointments } from './appointments.js';
import { type CalendarClientLimits, calendarFor } from './calendar-for.js';

/** What nodes reach booking through (see the file's head). */
export interface BookingService {
  /** The booking store, its provider calls stopped by `signal`. */
  open(signal?: AbortSignal): Appointments;
}

/** The host's BookingService over `db` (the clock: the host's; limits: the providers' clients'). */
export function bookingService(db: Database, options: { clock?: Clock; limits?: CalendarClientLimits } = {}): BookingService {
  return {
    open(signal) {
      return new Appointments(db, {
        ...(options.clock ? { clock: options.clock } : {}),
        calendarFor: (clinic) => calendarFor(clinic, options.limits ?? {}),
        ...(signal ? { signal } : {}),
      });
    },
  };
}
