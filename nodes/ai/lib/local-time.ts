// The date and time a prompt states, as the clinic lives them: in the time zone of its business hours
// (CONTRACT.md §9, `horario_atendimento.timezone`, default America/Sao_Paulo), in Portuguese.
//
// Contract:
//   - clinicTimeZone reads only the `timezone` member of the hours (JSON text or object): hours whose
//     days are malformed still give their zone; no hours, no zone, or a name that is not an IANA zone
//     give DEFAULT_TIMEZONE. Never throws.
//   - localDateTime gives the instant's local date with its weekday (`segunda-feira, 9 de março de
//     2026`) and 24-hour time (`22:30`) in that zone, so near midnight the date is the clinic's, not
//     the server's or UTC's.
import { DateTime, IANAZone } from 'luxon';
import { DEFAULT_TIMEZONE } from '../../../adapters/hours/business-hours.js';
import type { JsonValue } from '../../../engine/types.js';

/** An instant as the clinic reads it. */
export interface LocalDateTime {
  /** Weekday, day, month and year in Portuguese, e.g. `segunda-feira, 9 de março de 2026`. */
  date: string;
  /** Hours and minutes, 24-hour clock, e.g. `22:30`. */
  time: string;
  /** The IANA zone they are in, e.g. `America/Sao_Paulo`. */
  zone: string;
}

/** The `timezone` member of business hours given as JSON text or as an object; undefined when there is none. */
function zoneMember(hours: JsonValue | undefined): unknown {
  let value: unknown = hours;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>).timezone : undefined;
}

/**
 * The IANA zone of a clinic's business hours (`horario_atendimento`, JSON text or object), by its
 * canonical name; DEFAULT_TIMEZONE when the hours name none or an unknown one. Never throws.
 */
export function clinicTimeZone(hours: JsonValue | undefined): string {
  const zone = zoneMember(hours);
  if (typeof zone !== 'string' || !IANAZone.isValidZone(zone.trim())) return DEFAULT_TIMEZONE;
  return new Intl.DateTimeFormat('en-US', { timeZone: zone.trim() }).resolvedOptions().timeZone;
}

/** The instant `nowMs` (ms since the epoch) as date and time in `zone` (an IANA zone, see clinicTimeZone). */
export function localDateTime(nowMs: number, zone: string): LocalDateTime {
  const local = DateTime.fromMillis(nowMs, { zone }).setLocale('pt-BR');
  return {
    date: local.toLocaleString({ weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }),
    time: local.toFormat('HH:mm'),
    zone,
  };
}
