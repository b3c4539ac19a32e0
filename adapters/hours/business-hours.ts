// A clinic's business hours (CONTRACT.md §9, `clinicas_com_atendentes.horario_atendimento`) and the
// questions asked of them: is it open at an instant, when does it open next, when does the current
// open stretch close, and the one-line statement (pt-BR) the agent's system prompt carries.
//
// Contract:
//   - The value is JSON, as text or as an object: `{"timezone": "America/Sao_Paulo", "seg":
//     "08:00-12:00,13:00-18:00", "ter": …, "qua": …, "qui": …, "sex": …, "sab": "08:00-12:00", "dom": ""}`.
//     Day keys: seg ter qua qui sex sab dom. A missing day, null or '' is closed that day. A day holds
//     intervals `HH:MM-HH:MM`, comma-separated, between 00:00 and 24:00, each ending after it starts;
//     overlapping intervals are an error, touching ones join. `timezone` is an IANA zone (any letter
//     case), default America/Sao_Paulo. null, undefined, '' and the JSON text `null` mean no hours:
//     always open. Anything else malformed throws BusinessHoursError listing every problem.
//   - Times are wall-clock times in the clinic's zone (luxon does the IANA zone arithmetic), so an
//     interval keeps its hours on both sides of a DST switch. A wall time skipped by a switch (spring
//     forward) is reached at the first instant after the gap. An interval ending 24:00 and the next
//     day's interval starting 00:00 are one open stretch.
//   - Instants are milliseconds since the epoch. Searches look at most MAX_SEARCH_DAYS (8) days ahead.
import { DateTime, IANAZone } from 'luxon';
import { BusinessHoursError, type BusinessHoursProblem } from './business-hours-error.js';
import { instantAtWall } from './wall-time.js';

export { BusinessHoursError, type BusinessHoursProblem } from './business-hours-error.js';

/** Day keys in luxon weekday order (1 = Monday … 7 = Sunday). */
export const DAY_KEYS = ['seg', 'ter', 'qua', 'qui', 'sex', 'sab', 'dom'] as const;
/** A day key of the clinic's hours, `seg` (Monday) to `dom` (Sunday). */
export type DayKey = (typeof DAY_KEYS)[number];

/** The IANA zone of hours that name none (or an empty one): São Paulo's. */
export const DEFAULT_TIMEZONE = 'America/Sao_Paulo';

/** How many days past the given instant's day the searches look at. */
export const MAX_SEARCH_DAYS = 8;

/** Minutes since midnight: open from `start` (inclusive) to `end` (exclusive), 0 <= start < end <= 1440. */
export interface OpenInterval {
  start: number;
  end: number;
}

/** Parsed business hours: the zone's canonical IANA name and each day's intervals, sorted and disjoint. */
export interface BusinessHours {
  timezone: string;
  days: Record<DayKey, OpenInterval[]>;
}

const MINUTE_MS = 60_000;
const DAY_MINUTES = 1440;
const DAY_MS = DAY_MINUTES * MINUTE_MS;
const INTERVAL = /^(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})$/;
const WEEKDAY_NAMES = ['segunda-feira', 'terça-feira', 'quarta-feira', 'quinta-feira', 'sexta-feira', 'sábado', 'domingo'];

function shown(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

/** Business hours from the column value (JSON text or object); null when there are none (always open). */
export function parseBusinessHours(value: unknown): BusinessHours | null {
  let data = value;
  if (data === undefined || data === null) return null;
  if (typeof data === 'string') {
    if (data.trim() === '') return null;
    try {
      data = JSON.parse(data) as unknown;
    } catch (err) {
      throw new BusinessHoursError([{ key: '', message: `is not JSON (${(err as Error).message})` }], { cause: err });
    }
    if (data === null) return null;
  }
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw new BusinessHoursError([
      { key: '', message: `must be an object like {"timezone": "America/Sao_Paulo", "seg": "08:00-18:00"}, got ${shown(data)}` },
    ]);
  }
  const raw = data as Record<string, unknown>;
  const problems: BusinessHoursProblem[] = [];
  for (const key of Object.keys(raw)) {
    if (key !== 'timezone' && !(DAY_KEYS as readonly string[]).includes(key))
      problems.push({ key, message: `is not a day key (${DAY_KEYS.join(', ')}) nor timezone` });
  }
  const timezone = parseZone(raw.timezone, problems);
  const days = {} as Record<DayKey, OpenInterval[]>;
  for (const day of DAY_KEYS) days[day] = parseDay(day, raw[day], problems);
  if (problems.length > 0) throw new BusinessHoursError(problems);
  return { timezone, days };
}

function parseZone(value: unknown, problems: BusinessHoursProblem[]): string {
  if (value === undefined || value === null || value === '') return DEFAULT_TIMEZONE;
  if (typeof value !== 'string') {
    problems.push({ key: 'timezone', message: `must be an IANA time zone name such as "America/Sao_Paulo", got ${shown(value)}` });
    return DEFAULT_TIMEZONE;
  }
  if (!IANAZone.isValidZone(value.trim())) {
    problems.push({ key: 'timezone', message: `${shown(value)} is not an IANA time zone (e.g. "America/Sao_Paulo")` });
    return DEFAULT_TIMEZONE;
  }
  // The canonical spelling ("america/sao_paulo" is accepted and shown as "America/Sao_Paulo").
  return new Intl.DateTimeFormat('en-US', { timeZone: value.trim() }).resolvedOptions().timeZone;
}

function parseDay(day: DayKey, value: unknown, problems: BusinessHoursProblem[]): OpenInterval[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'string') {
    problems.push({ key: day, message: `must be text like "08:00-12:00,13:00-18:00" ('' when closed), got ${shown(value)}` });
    return [];
  }
  if (value.trim() === '') return [];
  const intervals: Array<OpenInterval & { text: string }> = [];
  for (const piece of value.split(',').map((p) => p.trim())) {
    const interval = parseInterval(piece);
    if (typeof interval === 'string') problems.push({ key: day, message: interval });
    else intervals.push({ ...interval, text: piece });
  }
  intervals.sort((a, b) => a.start - b.start);
  const joined: OpenInterval[] = [];
  for (const [i, interval] of intervals.entries()) {
    const previous = intervals[i - 1];
    if (previous && interval.start < previous.end) {
      problems.push({ key: day, message: `intervals "${previous.text}" and "${interval.text}" overlap` });
      continue;
    }
    const last = joined.at(-1);
    if (last && last.end === interval.start) last.end = interval.end;
    else joined.push({ start: interval.start, end: interval.end });
  }
  return joined;
}

/** The interval, or the problem with it. */
function parseInterval(piece: string): OpenInterval | string {
  if (piece === '') return 'has an empty interval (a stray comma?)';
  const match = INTERVAL.exec(piece);
  if (!match) return `"${piece}" is not an interval HH:MM-HH:MM`;
  const [, sh, sm, eh, em] = match.map(Number) as [number, number, number, number, number];
  for (const [h, m] of [
    [sh, sm],
    [eh, em],
  ] as const) {
    if (h > 24 || m > 59 || (h === 24 && m > 0)) return `"${piece}": ${pad(h)}:${pad(m)} is not a time between 00:00 and 24:00`;
  }
  const start = sh * 60 + sm;
  const end = eh * 60 + em;
  if (end <= start)
    return `"${piece}": the end must be after the start (to open past midnight, end the day at 24:00 and start the next at 00:00)`;
  return { start, end };
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** `HH:MM` of minutes since midnight (1440 is `24:00`). */
function clockText(minutes: number): string {
  return `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;
}

/** The hours as JSON text in the column's shape: `timezone` first, then every day (closed days ''). */
export function formatBusinessHours(hours: BusinessHours): string {
  const out: Record<string, string> = { timezone: hours.timezone };
  for (const day of DAY_KEYS) out[day] = hours.days[day].map((i) => `${clockText(i.start)}-${clockText(i.end)}`).join(',');
  return JSON.stringify(out);
}

/** True when some day has an open interval. */
export function hasOpenDays(hours: BusinessHours): boolean {
  return DAY_KEYS.some((day) => hours.days[day].length > 0);
}

function localTime(hours: BusinessHours, atMs: number): DateTime {
  return DateTime.fromMillis(atMs, { zone: hours.timezone });
}

function dayKeyOf(weekday: number): DayKey {
  return DAY_KEYS[weekday - 1]!;
}

/** True when the clinic is open at `atMs`; always true without hours. */
export function isOpenAt(hours: BusinessHours | null, atMs: number): boolean {
  if (!hours) return true;
  const local = localTime(hours, atMs);
  const minute = local.hour * 60 + local.minute + local.second / 60 + local.millisecond / MINUTE_MS;
  return hours.days[dayKeyOf(local.weekday)].some((i) => i.start <= minute && minute < i.end);
}

/** The calendar dates from the local date of `atMs` to MAX_SEARCH_DAYS after it, as UTC midnights. */
function searchDates(hours: BusinessHours, atMs: number): DateTime[] {
  const local = localTime(hours, atMs);
  const first = DateTime.utc(local.year, local.month, local.day);
  return Array.from({ length: MAX_SEARCH_DAYS + 1 }, (_, i) => first.plus({ days: i }));
}

/**
 * When the clinic next opens: `atMs` itself when it is open then (or has no hours); null when it
 * does not open within the search window (every day closed).
 */
export function nextOpeningAt(hours: BusinessHours | null, atMs: number): number | null {
  if (!hours || isOpenAt(hours, atMs)) return atMs;
  if (!hasOpenDays(hours)) return null;
  const zone = IANAZone.create(hours.timezone);
  for (const date of searchDates(hours, atMs)) {
    for (const interval of hours.days[dayKeyOf(date.weekday)]) {
      const t = instantAtWall(zone, date.toMillis() + interval.start * MINUTE_MS);
      if (t > atMs && isOpenAt(hours, t)) return t;
    }
  }
  return null;
}

/**
 * When the open stretch holding `atMs` ends (an interval ending 24:00 goes on into the next day's
 * 00:00 interval); null when the clinic is closed at `atMs`, has no hours, or stays open through the
 * whole search window (open around the clock).
 */
export function closesAt(hours: BusinessHours | null, atMs: number): number | null {
  if (!hours || !isOpenAt(hours, atMs)) return null;
  const zone = IANAZone.create(hours.timezone);
  for (const date of searchDates(hours, atMs)) {
    for (const interval of hours.days[dayKeyOf(date.weekday)]) {
      const t = instantAtWall(zone, date.toMillis() + interval.end * MINUTE_MS);
      if (t > atMs && !isOpenAt(hours, t)) return t;
    }
  }
  return null;
}

/**
 * The open stretches of `days` local dates from the local date of `fromMs` on, in wall time (local
 * times in the hours' zone read as if UTC, ms: convert with wall-time.ts), in time order. Intervals
 * that touch (one ending 24:00, the next day's starting 00:00) are one stretch; a stretch still open
 * at the end of the last date ends there.
 */
export function openWallStretches(hours: BusinessHours, fromMs: number, days: number): OpenInterval[] {
  const local = localTime(hours, fromMs);
  const first = Date.UTC(local.year, local.month - 1, local.day);
  const stretches: OpenInterval[] = [];
  for (let i = 0; i < days; i++) {
    const date = first + i * DAY_MS;
    const weekday = ((new Date(date).getUTCDay() + 6) % 7) + 1;
    for (const interval of hours.days[dayKeyOf(weekday)]) {
      const start = date + interval.start * MINUTE_MS;
      const end = date + interval.end * MINUTE_MS;
      const last = stretches.at(-1);
      if (last && last.end === start) last.end = end;
      else stretches.push({ start, end });
    }
  }
  return stretches;
}

/** Whole calendar days from the local date of `fromMs` to the local date of `toMs`. */
function daysBetween(hours: BusinessHours, fromMs: number, toMs: number): number {
  const from = localTime(hours, fromMs);
  const to = localTime(hours, toMs);
  return Math.round((Date.UTC(to.year, to.month - 1, to.day) - Date.UTC(from.year, from.month - 1, from.day)) / DAY_MS);
}

/** The time of day with the article Portuguese puts before it: `às 08:00`, `à 01:30`, `à meia-noite`, `ao meio-dia`. */
function timeOfDay(local: DateTime): { article: 'às' | 'à' | 'ao'; text: string } {
  if (local.hour === 0 && local.minute === 0) return { article: 'à', text: 'meia-noite' };
  if (local.hour === 12 && local.minute === 0) return { article: 'ao', text: 'meio-dia' };
  const text = `${pad(local.hour)}:${pad(local.minute)}`;
  return { article: local.hour === 1 ? 'à' : 'às', text };
}

/** `hoje às 13:00`, `amanhã, sábado, às 08:00`, `segunda-feira, 17/03, às 08:00`. */
function whenText(hours: BusinessHours, nowMs: number, atMs: number): string {
  const local = localTime(hours, atMs);
  const { article, text } = timeOfDay(local);
  const weekday = WEEKDAY_NAMES[local.weekday - 1]!;
  const days = daysBetween(hours, nowMs, atMs);
  if (days === 0) return `hoje ${article} ${text}`;
  if (days === 1) return `amanhã, ${weekday}, ${article} ${text}`;
  return `${weekday}, ${pad(local.day)}/${pad(local.month)}, ${article} ${text}`;
}

/** What follows "até": `as 18:00`, `a meia-noite` (the end of today), or a later day's `amanhã, sábado, às 02:00`. */
function untilText(hours: BusinessHours, nowMs: number, atMs: number): string {
  const local = localTime(hours, atMs);
  const days = daysBetween(hours, nowMs, atMs);
  const { article, text } = timeOfDay(local);
  const bare = { às: 'as', à: 'a', ao: 'o' }[article];
  if (days === 0 || (days === 1 && local.hour === 0 && local.minute === 0)) return `${bare} ${text}`;
  return whenText(hours, nowMs, atMs);
}

/**
 * One line in Portuguese stating whether the clinic is open at `atMs` and, when closed, when it opens
 * next (weekday and time in the clinic's zone, "hoje"/"amanhã" when they apply). For the agent's
 * system prompt, so it can tell the lead when a person of the team will answer.
 */
export function describeHours(hours: BusinessHours | null, atMs: number): string {
  if (!hours) return 'A clínica atende a qualquer hora.';
  if (!hasOpenDays(hours))
    return 'A clínica não tem nenhum dia de atendimento cadastrado, então não há previsão de quando a equipe responde.';
  const zone = `(horário de ${hours.timezone})`;
  if (isOpenAt(hours, atMs)) {
    const close = closesAt(hours, atMs);
    if (close === null) return 'A clínica está aberta agora e atende 24 horas por dia, todos os dias.';
    return `A clínica está aberta agora, até ${untilText(hours, atMs, close)} ${zone}.`;
  }
  const open = nextOpeningAt(hours, atMs);
  if (open === null) return 'A clínica está fechada agora e não há previsão de quando abre.';
  return `A clínica está fechada agora; abre ${whenText(hours, atMs, open)} ${zone}.`;
}
