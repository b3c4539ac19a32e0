// Wall time: a local time in an IANA zone written as if it were UTC (ms since the epoch of that
// reading), and the instants it maps to. A spring-forward gap skips wall times; a fall-back repeats
// them. Used by the business hours (business-hours.ts) and the booking slot grid
// (adapters/calendar/slot-grid.ts), so both read the clinic's hours the same way.
import { IANAZone } from 'luxon';

const MINUTE_MS = 60_000;
const DAY_MS = 1440 * MINUTE_MS;

/** The local wall time of instant `t` in `zone`, read as if it were UTC. */
export function wallOf(zone: IANAZone, t: number): number {
  return t + zone.offset(t) * MINUTE_MS;
}

/**
 * The first instant whose wall time in `zone` is `wall` or later (`wall`: a local time read as if
 * UTC). Usually the instant showing exactly that wall time (the earlier one when a fall-back shows it
 * twice); for a wall time skipped by a spring-forward gap, the instant the gap ends.
 */
export function instantAtWall(zone: IANAZone, wall: number): number {
  const offsets = new Set([zone.offset(wall - DAY_MS), zone.offset(wall), zone.offset(wall + DAY_MS)]);
  const guesses = [...offsets].map((o) => wall - o * MINUTE_MS).sort((a, b) => a - b);
  const exact = guesses.find((t) => wallOf(zone, t) === wall);
  if (exact !== undefined) return exact;
  let lo = guesses[0]!;
  let hi = guesses.at(-1)!;
  if (!(wallOf(zone, lo) < wall && wallOf(zone, hi) >= wall)) return hi;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (wallOf(zone, mid) >= wall) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** The wall time of instant `t` in the IANA zone `timezone` (see the file comment). */
export function wallTimeIn(timezone: string, t: number): number {
  return wallOf(IANAZone.create(timezone), t);
}

/** `instantAtWall` in the IANA zone `timezone`: a skipped wall time gives the instant its gap ends. */
export function instantAtWallIn(timezone: string, wall: number): number {
  return instantAtWall(IANAZone.create(timezone), wall);
}

/**
 * The instant showing wall time `wall` in `timezone`, or null when a spring-forward gap skips it. A
 * wall time a fall-back shows twice is its earlier instant.
 */
export function exactInstantOfWall(timezone: string, wall: number): number | null {
  const zone = IANAZone.create(timezone);
  const t = instantAtWall(zone, wall);
  return wallOf(zone, t) === wall ? t : null;
}
