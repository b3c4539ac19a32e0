// The slot grid of CONTRACT.md §12: which appointment starts a clinic offers, and how they are shown.
//
// Contract:
//   - Slots are cut from the calendar's hours (agenda-config.ts `agendaHours`) in their IANA zone;
//     no hours (null) offer no slots, except provider slots (calcom: days and bounds then in the
//     given zone, default São Paulo's). Within each open stretch (business-hours.ts
//     `openWallStretches`: intervals touching across midnight are one stretch), starts step by
//     `intervalo_min` of wall-clock time from the stretch's start, each whose `duracao_min` (elapsed)
//     ends by the stretch's end. A wall time a spring-forward gap skips is no slot; one a fall-back
//     repeats is its earlier instant only (so a local `YYYY-MM-DDTHH:MM` names one slot).
//   - Bounds: start >= now + `antecedencia_min`; start <= now + `dias` calendar days in the zone.
//   - Taken: a slot overlapped by `vagas` or more `booked` intervals (the clinic's `marcado` and
//     `confirmado` appointments, the asking lead's own left out by the caller) is not free; with
//     availability `busy` (google) neither is one overlapping a busy window (LeadFlow's own
//     appointments, `ours`, cut out of the windows first: they are counted as `booked`); with
//     `slots` (calcom) the provider's starts replace the grid (still within the bounds and under
//     `vagas`).
//   - Overlap: [a, b) and [c, d) overlap when a < d and c < b. Instants are ms since the epoch.
//   - `ver_horarios` (pickHorarios): the earliest free slots, at most 3 per local day and 6 in all,
//     in time order, filtered by `dia` (`YYYY-MM-DD`, local) and `periodo` (`manha` before 12:00,
//     `tarde` 12:00–18:00, `noite` from 18:00, by local start); each `{inicio: "YYYY-MM-DDTHH:MM",
//     texto: "terça, 02/12 às 14:30"}`; none: `motivo`, a sentence in Portuguese.
import { DateTime } from 'luxon';
import { DEFAULT_TIMEZONE, openWallStretches, type BusinessHours } from '../hours/business-hours.js';
import { exactInstantOfWall, instantAtWallIn } from '../hours/wall-time.js';
import type { AgendaConfig } from './agenda-config.js';
import type { Availability, Interval } from './calendar.js';

const MINUTE_MS = 60_000;
const DAY_MS = 1440 * MINUTE_MS;

/** The agenda's fields the grid reads. */
export type GridRules = Pick<AgendaConfig, 'duracao_min' | 'intervalo_min' | 'antecedencia_min' | 'dias' | 'vagas'>;

/** Everything the grid needs: hours (null: none), rules, now, the booked appointments and the provider's word. */
export interface SlotGridInput {
  hours: BusinessHours | null;
  /** The zone of days and bounds; default the hours' zone, else DEFAULT_TIMEZONE (São Paulo's). */
  timezone?: string;
  rules: GridRules;
  /** ms since the epoch. */
  now: number;
  /** Appointments holding a place (marcado/confirmado), the asking lead's own left out. */
  booked: readonly Interval[];
  /**
   * Every appointment of the clinic holding a place, the asking lead's own included: their spans are
   * taken out of `busy` windows, which show LeadFlow's own events too (places are counted by `booked`).
   */
  ours?: readonly Interval[];
  /** What the provider says (calendar.ts); `{kind: 'grid'}` for interno. */
  availability: Availability;
}

/** The span slots may fall in: `from` = now + antecedencia, `to` = now + dias days (in `timezone`) + duracao (the last slot's end). */
export function slotSpan(rules: GridRules, now: number, timezone: string): Interval {
  const last = DateTime.fromMillis(now, { zone: timezone }).plus({ days: rules.dias }).toMillis();
  return { start: now + rules.antecedencia_min * MINUTE_MS, end: last + rules.duracao_min * MINUTE_MS };
}

const overlaps = (a: Interval, b: Interval) => a.start < b.end && b.start < a.end;

/** Every free slot (see the file comment), in time order. */
export function freeSlots(input: SlotGridInput): Interval[] {
  const { hours, rules, now, availability } = input;
  if (!hours && availability.kind !== 'slots') return [];
  const span = slotSpan(rules, now, input.timezone ?? hours?.timezone ?? DEFAULT_TIMEZONE);
  const lastStart = span.end - rules.duracao_min * MINUTE_MS;
  const duration = rules.duracao_min * MINUTE_MS;
  const candidates =
    availability.kind === 'slots'
      ? availability.slots.map((s) => ({ start: s.start, end: s.start + duration }))
      : gridStarts(hours!, rules, now, lastStart).map((start) => ({ start, end: start + duration }));
  const busy = availability.kind === 'busy' ? withoutSpans(availability.busy, input.ours ?? []) : [];
  return candidates
    .filter((s) => s.start >= span.start && s.start <= lastStart)
    .filter((s) => input.booked.filter((b) => overlaps(b, s)).length < rules.vagas)
    .filter((s) => !busy.some((b) => overlaps(b, s)))
    .sort((a, b) => a.start - b.start)
    .filter((s, i, all) => i === 0 || all[i - 1]!.start !== s.start);
}

/** `windows` minus every span of `spans` (a window may split in two). */
function withoutSpans(windows: readonly Interval[], spans: readonly Interval[]): Interval[] {
  let out = windows.map((w) => ({ ...w }));
  for (const span of spans) {
    out = out.flatMap((w) => {
      if (!overlaps(w, span)) return [w];
      const parts: Interval[] = [];
      if (w.start < span.start) parts.push({ start: w.start, end: span.start });
      if (span.end < w.end) parts.push({ start: span.end, end: w.end });
      return parts;
    });
  }
  return out;
}

/** The grid's starts up to `lastStart`, from the stretches of the day before now's on (a stretch open since then starts there). */
function gridStarts(hours: BusinessHours, rules: GridRules, now: number, lastStart: number): number[] {
  const tz = hours.timezone;
  const days = Math.ceil((lastStart - now) / DAY_MS) + 3;
  const step = rules.intervalo_min * MINUTE_MS;
  const duration = rules.duracao_min * MINUTE_MS;
  const starts: number[] = [];
  for (const stretch of openWallStretches(hours, now - DAY_MS, days)) {
    const end = instantAtWallIn(tz, stretch.end);
    for (let wall = stretch.start; wall < stretch.end; wall += step) {
      const start = exactInstantOfWall(tz, wall);
      if (start === null) continue;
      if (start + duration > end || start > lastStart) break;
      starts.push(start);
    }
  }
  return starts;
}

const WEEKDAYS = ['segunda', 'terça', 'quarta', 'quinta', 'sexta', 'sábado', 'domingo'];
const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DDTHH:MM`: the local time of `t` in `timezone` (the tools' `inicio`). */
export function localSlotText(t: number, timezone: string): string {
  const d = DateTime.fromMillis(t, { zone: timezone });
  return `${d.year}-${pad(d.month)}-${pad(d.day)}T${pad(d.hour)}:${pad(d.minute)}`;
}

/** `terça, 02/12 às 14:30`: weekday in lower case, day/month and time in `timezone`. */
export function slotLabel(t: number, timezone: string): string {
  const d = DateTime.fromMillis(t, { zone: timezone });
  return `${WEEKDAYS[d.weekday - 1]}, ${pad(d.day)}/${pad(d.month)} às ${pad(d.hour)}:${pad(d.minute)}`;
}

const LOCAL = /^\s*(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::00(?:\.0+)?)?\s*$/;

/**
 * The instant a local `YYYY-MM-DDTHH:MM` names in `timezone` (`:00` seconds and a space for `T`
 * accepted); null when malformed, not a real date or time, or skipped by a spring-forward gap. A
 * time a fall-back repeats is its earlier instant, as on the grid.
 */
export function parseLocalSlot(text: unknown, timezone: string): number | null {
  if (typeof text !== 'string') return null;
  const m = LOCAL.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  if (mo < 1 || mo > 12 || h > 23 || mi > 59) return null;
  const wall = Date.UTC(y, mo - 1, d, h, mi);
  if (new Date(wall).getUTCDate() !== d) return null;
  return exactInstantOfWall(timezone, wall);
}

/** One slot as the tools show it to the model. */
export interface Horario {
  inicio: string;
  texto: string;
}

/** `ver_horarios`'s arguments, as the model gave them. */
export interface HorarioFilter {
  dia?: unknown;
  periodo?: unknown;
}

/** `ver_horarios`'s result: the slots, or none and why. */
export interface HorariosResult {
  horarios: Horario[];
  motivo?: string;
}

const PERIODS = { manha: [0, 720], tarde: [720, 1080], noite: [1080, 1440] } as const;
const PERIOD_WORDS = { manha: 'de manhã', tarde: 'à tarde', noite: 'à noite' } as const;
type Period = keyof typeof PERIODS;

/** Most slots `ver_horarios` gives per local day. */
export const HORARIOS_PER_DAY = 3;
/** Most slots `ver_horarios` gives in all. */
export const HORARIOS_MAX = 6;

function periodOf(value: unknown): Period | null | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') return null;
  const key = value
    .trim()
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '');
  return key in PERIODS ? (key as Period) : null;
}

/** The `ver_horarios` selection (see the file comment) of `slots` (free, in time order). */
export function pickHorarios(slots: readonly Interval[], timezone: string, filter: HorarioFilter = {}): HorariosResult {
  const period = periodOf(filter.periodo);
  if (period === null) return { horarios: [], motivo: 'Período inválido: use manha, tarde ou noite.' };
  const dia = filter.dia === undefined || filter.dia === null || filter.dia === '' ? undefined : filter.dia;
  if (dia !== undefined && (typeof dia !== 'string' || parseLocalSlot(`${dia.trim()}T12:00`, 'UTC') === null))
    return { horarios: [], motivo: 'Dia inválido: use AAAA-MM-DD.' };
  const perDay = new Map<string, number>();
  const horarios: Horario[] = [];
  for (const slot of slots) {
    const inicio = localSlotText(slot.start, timezone);
    const day = inicio.slice(0, 10);
    if (dia !== undefined && day !== (dia as string).trim()) continue;
    const minute = Number(inicio.slice(11, 13)) * 60 + Number(inicio.slice(14, 16));
    if (period && !(PERIODS[period][0] <= minute && minute < PERIODS[period][1])) continue;
    if ((perDay.get(day) ?? 0) >= HORARIOS_PER_DAY) continue;
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
    horarios.push({ inicio, texto: slotLabel(slot.start, timezone) });
    if (horarios.length >= HORARIOS_MAX) break;
  }
  if (horarios.length > 0) return { horarios };
  return { horarios, motivo: noneText(dia as string | undefined, period) };
}

function noneText(dia: string | undefined, period: Period | undefined): string {
  const when = period ? ` ${PERIOD_WORDS[period]}` : '';
  if (dia === undefined) return `Não há horários livres${when} nos próximos dias.`;
  const [, month, day] = dia.trim().split('-');
  return `Não há horários livres em ${day}/${month}${when}.`;
}
