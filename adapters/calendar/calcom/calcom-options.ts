// What a clinic's Cal.com calendar is built from (`agenda.calcom`, CONTRACT §12) and the constants of
// Cal.com's API v2 it relies on (reference calendar-providers.md §3).
import type { Clock } from '../../clock.js';

/** Cal.com's API v2 base URL (reference §3): the default of `base_url`. */
export const CALCOM_BASE_URL = 'https://api.cal.com/v2';

/**
 * The `cal-api-version` header each endpoint family needs (reference §3.1; sent byte-exact): slots
 * `2024-09-04` (another value silently answers an older shape), bookings `2026-02-25`.
 */
export const CALCOM_API_VERSIONS = { slots: '2024-09-04', bookings: '2026-02-25' } as const;

/** How a CalcomCalendar reaches one clinic's event type. Units: ms. */
export interface CalcomOptions {
  /** The clinic's API key (`cal_live_…`, test keys `cal_…`): sent as `Authorization: Bearer`, never shown. */
  api_key: string;
  /** The event type LeadFlow books (its slots, its bookings). */
  event_type_id: number;
  /** Default `https://api.cal.com/v2` (CALCOM_BASE_URL); a test points it at a fake server. */
  base_url?: string;
  /** Time limit of one HTTP request (headers and body), ms. Default 5000. */
  timeoutMs?: number;
  /**
   * Time limit of one method call with all its requests, retries and waits, ms. Default 8000: a
   * provider down or slow is answered within a few seconds. A request never outlives it.
   */
  deadlineMs?: number;
  /** Default globalThis.fetch. */
  fetch?: typeof fetch;
  /** Reads "now" for the deadline and the Retry-After dates. Default systemClock. */
  clock?: Clock;
}

/** Default of CalcomOptions.timeoutMs (ms). */
export const CALCOM_TIMEOUT_MS = 5000;
/** Default of CalcomOptions.deadlineMs (ms). */
export const CALCOM_DEADLINE_MS = 8000;
