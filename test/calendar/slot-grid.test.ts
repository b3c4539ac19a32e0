// The slot grid of CONTRACT.md §12 (adapters/calendar/slot-grid.ts): starts every intervalo_min from
// each open stretch's start, duracao_min fitting it, between now + antecedencia and now + dias, fewer
// than vagas booked, minus busy windows or exactly the provider's slots; in the hours' zone across DST
// changes and midnight; the ver_horarios selection and its Portuguese labels.
import { describe, expect, it } from 'vitest';
import type { Availability, Interval } from '../../adapters/calendar/calendar.js';
import { freeSlots, type GridRules, parseLocalSlot, pickHorarios, slotLabel, slotSpan } from '../../adapters/calendar/slot-grid.js';
import { parseBusinessHours } from '../../adapters/hours/business-hours.js';

const SP = 'America/Sao_Paulo';
const NY = 'America/New_York';
const DEFAULTS: GridRules = { duracao_min: 60, intervalo_min: 30, antecedencia_min: 120, dias: 14, vagas: 1 };
const WEEKDAYS = {
  timezone: SP,
  seg: '08:00-12:00,13:00-18:00',
  ter: '08:00-12:00,13:00-18:00',
  qua: '08:00-12:00,13:00-18:00',
  qui: '08:00-12:00,13:00-18:00',
  sex: '08:00-12:00,13:00-18:00',
};

/** ms of a local ISO time with its offset, e.g. `2026-12-01T09:00-03:00`. */
const at = (iso: string) => Date.parse(iso);
const HOUR = 3_600_000;

function slots(options: {
  hours: unknown;
  now: string;
  rules?: Partial<GridRules>;
  booked?: Interval[];
  availability?: Availability;
}): Interval[] {
  return freeSlots({
    hours: parseBusinessHours(options.hours),
    rules: { ...DEFAULTS, ...options.rules },
    now: at(options.now),
    booked: options.booked ?? [],
    availability: options.availability ?? { kind: 'grid' },
  });
}

/** The local `YYYY-MM-DDTHH:MM` of each slot, as the tools give them. */
const local = (list: Interval[], tz = SP) => pickHorarios(list, tz, {}).horarios.map((h) => h.inicio);
/** Every slot's local start (no per-day cap), `HH:MM` when `day` only. */
const starts = (list: Interval[], tz: string) =>
  list.map((s) => new Date(s.start).toLocaleString('sv-SE', { timeZone: tz }).slice(0, 16).replace(' ', 'T'));

describe('freeSlots', () => {
  it('steps by intervalo_min from each stretch start, keeping slots whose duration fits the stretch', () => {
    const list = slots({ hours: WEEKDAYS, now: '2026-12-01T09:00-03:00', rules: { dias: 1 } });
    expect(starts(list, SP)).toEqual([
      // Tuesday: 11:00 is now + 120 min (inclusive); 11:30 would end 12:30, past the morning stretch.
      '2026-12-01T11:00',
      ...['13:00', '13:30', '14:00', '14:30', '15:00', '15:30', '16:00', '16:30', '17:00'].map((t) => `2026-12-01T${t}`),
      // Wednesday up to now + 1 day (09:00 inclusive).
      '2026-12-02T08:00',
      '2026-12-02T08:30',
      '2026-12-02T09:00',
    ]);
    expect(list.every((s) => s.end - s.start === HOUR)).toBe(true);
  });

  it('antecedencia_min and dias bound the starts', () => {
    // One minute later, 11:00 is too soon.
    expect(starts(slots({ hours: WEEKDAYS, now: '2026-12-01T09:01-03:00', rules: { dias: 1 } }), SP)[0]).toBe('2026-12-01T13:00');
    const noNotice = slots({ hours: WEEKDAYS, now: '2026-12-01T09:00-03:00', rules: { dias: 1, antecedencia_min: 0 } });
    expect(starts(noNotice, SP).slice(0, 3)).toEqual(['2026-12-01T09:00', '2026-12-01T09:30', '2026-12-01T10:00']);
    const twoWeeks = starts(slots({ hours: WEEKDAYS, now: '2026-12-01T09:00-03:00' }), SP);
    expect(twoWeeks.at(-1)).toBe('2026-12-15T09:00');
    expect(new Set(twoWeeks.map((s) => s.slice(0, 10))).size).toBe(11);
  });

  it('a clinic without hours, or with every day closed, offers none', () => {
    expect(slots({ hours: null, now: '2026-12-01T09:00-03:00' })).toEqual([]);
    expect(slots({ hours: { timezone: SP, dom: '' }, now: '2026-12-01T09:00-03:00' })).toEqual([]);
  });

  it('vagas: a slot stays free while fewer appointments than vagas overlap it', () => {
    const booked = [{ start: at('2026-12-01T13:00-03:00'), end: at('2026-12-01T14:00-03:00') }];
    const one = starts(slots({ hours: WEEKDAYS, now: '2026-12-01T09:00-03:00', rules: { dias: 1 }, booked }), SP);
    // 13:00 and 13:30 overlap the appointment; 12:30 is not on the grid; 14:00 touches it only.
    expect(one.slice(0, 3)).toEqual(['2026-12-01T11:00', '2026-12-01T14:00', '2026-12-01T14:30']);
    const two = starts(slots({ hours: WEEKDAYS, now: '2026-12-01T09:00-03:00', rules: { dias: 1, vagas: 2 }, booked }), SP);
    expect(two.slice(0, 3)).toEqual(['2026-12-01T11:00', '2026-12-01T13:00', '2026-12-01T13:30']);
    const full = starts(
      slots({ hours: WEEKDAYS, now: '2026-12-01T09:00-03:00', rules: { dias: 1, vagas: 2 }, booked: [...booked, ...booked] }),
      SP,
    );
    expect(full.slice(0, 2)).toEqual(['2026-12-01T11:00', '2026-12-01T14:00']);
  });

  it('busy windows (google) take slots away; provider slots (calcom) replace the grid within the bounds and vagas', () => {
    const busy: Availability = { kind: 'busy', busy: [{ start: at('2026-12-01T13:10-03:00'), end: at('2026-12-01T13:40-03:00') }] };
    expect(
      starts(slots({ hours: WEEKDAYS, now: '2026-12-01T09:00-03:00', rules: { dias: 1 }, availability: busy }), SP).slice(0, 2),
    ).toEqual(['2026-12-01T11:00', '2026-12-01T14:00']);
    const offered = ['2026-12-01T10:00-03:00', '2026-12-01T15:15-03:00', '2026-12-01T16:00-03:00', '2026-12-20T10:00-03:00'];
    const calcom: Availability = { kind: 'slots', slots: offered.map((s) => ({ start: at(s), end: at(s) + HOUR })) };
    const booked = [{ start: at('2026-12-01T16:30-03:00'), end: at('2026-12-01T17:30-03:00') }];
    // 10:00 is sooner than the notice, 16:00 overlaps a booking, the 20th is past `dias`; 15:15 is off the grid but Cal.com's.
    expect(starts(slots({ hours: WEEKDAYS, now: '2026-12-01T09:00-03:00', availability: calcom, booked }), SP)).toEqual([
      '2026-12-01T15:15',
    ]);
  });

  it("busy windows lose LeadFlow's own appointments (counted as booked instead), even merged with an outside event", () => {
    // Google merges the appointment 13:00-14:00 and an outside event 14:00-15:00 into one busy window.
    const busy: Availability = { kind: 'busy', busy: [{ start: at('2026-12-01T13:00-03:00'), end: at('2026-12-01T15:00-03:00') }] };
    const ours = [{ start: at('2026-12-01T13:00-03:00'), end: at('2026-12-01T14:00-03:00') }];
    const base = {
      hours: parseBusinessHours(WEEKDAYS),
      rules: { ...DEFAULTS, dias: 1 },
      now: at('2026-12-01T09:00-03:00'),
      availability: busy,
    };
    // The appointment's own lead (its appointment not booked against it) may keep or take 13:00, not 13:30.
    expect(starts(freeSlots({ ...base, booked: [], ours }), SP).slice(0, 3)).toEqual([
      '2026-12-01T11:00',
      '2026-12-01T13:00',
      '2026-12-01T15:00',
    ]);
    expect(starts(freeSlots({ ...base, booked: ours, ours }), SP).slice(0, 2)).toEqual(['2026-12-01T11:00', '2026-12-01T15:00']);
    expect(starts(freeSlots({ ...base, booked: [] }), SP).slice(0, 2)).toEqual(['2026-12-01T11:00', '2026-12-01T15:00']);
  });

  it('across a spring-forward change (New York, 8 March 2026): the skipped hour offers nothing, the stretch ends in the new offset', () => {
    const list = slots({
      hours: { timezone: NY, dom: '00:00-06:00' },
      now: '2026-03-07T12:00-05:00',
      rules: { intervalo_min: 60, antecedencia_min: 0, dias: 2 },
    });
    expect(starts(list, NY)).toEqual(['2026-03-08T00:00', '2026-03-08T01:00', '2026-03-08T03:00', '2026-03-08T04:00', '2026-03-08T05:00']);
    expect(list.map((s) => new Date(s.start).toISOString().slice(11, 16))).toEqual(['05:00', '06:00', '07:00', '08:00', '09:00']);
    expect(slotLabel(list[2]!.start, NY)).toBe('domingo, 08/03 às 03:00');
  });

  it('across a fall-back change (New York, 1 November 2026): a repeated wall time is offered once, the stretch lasts its real length', () => {
    const list = slots({
      hours: { timezone: NY, dom: '00:00-04:00' },
      now: '2026-10-31T12:00-04:00',
      rules: { intervalo_min: 30, duracao_min: 30, antecedencia_min: 0, dias: 2 },
    });
    expect(starts(list, NY)).toEqual(
      ['00:00', '00:30', '01:00', '01:30', '02:00', '02:30', '03:00', '03:30'].map((t) => `2026-11-01T${t}`),
    );
    // 01:00 and 01:30 are the first (EDT) ones; the last slot ends at 04:00 EST, 09:00 UTC.
    expect(new Date(list[2]!.start).toISOString()).toBe('2026-11-01T05:00:00.000Z');
    expect(new Date(list.at(-1)!.end).toISOString()).toBe('2026-11-01T09:00:00.000Z');
  });

  it('in Lisbon the grid keeps its wall-clock hours on both sides of the change (29 March 2026)', () => {
    const hours = { timezone: 'Europe/Lisbon', sab: '09:00-11:00', dom: '09:00-11:00' };
    const list = slots({ hours, now: '2026-03-28T07:00Z', rules: { intervalo_min: 60, antecedencia_min: 0, dias: 2 } });
    expect(starts(list, 'Europe/Lisbon')).toEqual(['2026-03-28T09:00', '2026-03-28T10:00', '2026-03-29T09:00', '2026-03-29T10:00']);
    expect(list.map((s) => new Date(s.start).toISOString().slice(11, 16))).toEqual(['09:00', '10:00', '08:00', '09:00']);
  });

  it('across midnight: a stretch running past 24:00 into the next day is one stretch; late evening west of UTC is the next UTC day', () => {
    const hours = { timezone: SP, sex: '20:00-24:00', sab: '00:00-02:00' };
    const list = slots({
      hours,
      now: '2026-12-03T12:00-03:00',
      rules: { intervalo_min: 60, duracao_min: 90, antecedencia_min: 0, dias: 7 },
    });
    // 23:00 ends 00:30 and 00:00 ends 01:30 inside the joined stretch; 01:00 would end 02:30.
    expect(starts(list, SP)).toEqual(['2026-12-04T20:00', '2026-12-04T21:00', '2026-12-04T22:00', '2026-12-04T23:00', '2026-12-05T00:00']);
    expect(new Date(list[1]!.start).toISOString()).toBe('2026-12-05T00:00:00.000Z');
    // ver_horarios counts local days: three on Friday, then Saturday's.
    expect(pickHorarios(list, SP).horarios).toEqual([
      { inicio: '2026-12-04T20:00', texto: 'sexta, 04/12 às 20:00' },
      { inicio: '2026-12-04T21:00', texto: 'sexta, 04/12 às 21:00' },
      { inicio: '2026-12-04T22:00', texto: 'sexta, 04/12 às 22:00' },
      { inicio: '2026-12-05T00:00', texto: 'sábado, 05/12 às 00:00' },
    ]);
    const endsAtMidnight = slots({
      hours: { timezone: SP, sex: '21:00-24:00' },
      now: '2026-12-03T12:00-03:00',
      rules: { intervalo_min: 60, antecedencia_min: 0, dias: 7 },
    });
    expect(starts(endsAtMidnight, SP)).toEqual(['2026-12-04T21:00', '2026-12-04T22:00', '2026-12-04T23:00']);
  });

  it('slotSpan is the window the provider and the appointments are asked about', () => {
    const span = slotSpan(DEFAULTS, at('2026-12-01T09:00-03:00'), SP);
    expect(new Date(span.start).toISOString()).toBe('2026-12-01T14:00:00.000Z');
    expect(new Date(span.end).toISOString()).toBe('2026-12-15T13:00:00.000Z');
  });
});

describe('pickHorarios (ver_horarios)', () => {
  const list = slots({ hours: WEEKDAYS, now: '2026-12-01T09:00-03:00' });

  it('the earliest, at most 3 per day and 6 in all, in time order, labelled in Portuguese', () => {
    expect(pickHorarios(list, SP)).toEqual({
      horarios: [
        { inicio: '2026-12-01T11:00', texto: 'terça, 01/12 às 11:00' },
        { inicio: '2026-12-01T13:00', texto: 'terça, 01/12 às 13:00' },
        { inicio: '2026-12-01T13:30', texto: 'terça, 01/12 às 13:30' },
        { inicio: '2026-12-02T08:00', texto: 'quarta, 02/12 às 08:00' },
        { inicio: '2026-12-02T08:30', texto: 'quarta, 02/12 às 08:30' },
        { inicio: '2026-12-02T09:00', texto: 'quarta, 02/12 às 09:00' },
      ],
    });
  });

  it('dia and periodo filter by local day and start time; none gives a motivo', () => {
    expect(local(list).length).toBe(6);
    expect(pickHorarios(list, SP, { dia: '2026-12-03', periodo: 'tarde' }).horarios.map((h) => h.inicio)).toEqual([
      '2026-12-03T13:00',
      '2026-12-03T13:30',
      '2026-12-03T14:00',
    ]);
    const mornings = pickHorarios(list, SP, { periodo: 'Manhã' }).horarios.map((h) => h.inicio);
    expect(mornings).toEqual([
      '2026-12-01T11:00',
      '2026-12-02T08:00',
      '2026-12-02T08:30',
      '2026-12-02T09:00',
      '2026-12-03T08:00',
      '2026-12-03T08:30',
    ]);
    const afternoons = pickHorarios(list, SP, { periodo: 'tarde' }).horarios.map((h) => h.inicio.slice(11));
    expect(afternoons).toEqual(['13:00', '13:30', '14:00', '13:00', '13:30', '14:00']);
    const evening = slots({ hours: { timezone: SP, sex: '17:00-20:00' }, now: '2026-12-01T09:00-03:00' });
    expect(pickHorarios(evening, SP, { periodo: 'noite' }).horarios.map((h) => h.texto)).toEqual([
      'sexta, 04/12 às 18:00',
      'sexta, 04/12 às 18:30',
      'sexta, 04/12 às 19:00',
      'sexta, 11/12 às 18:00',
      'sexta, 11/12 às 18:30',
      'sexta, 11/12 às 19:00',
    ]);
    expect(pickHorarios(list, SP, { periodo: 'noite' })).toEqual({
      horarios: [],
      motivo: 'Não há horários livres à noite nos próximos dias.',
    });
    expect(pickHorarios(list, SP, { dia: '2026-12-05', periodo: 'manha' })).toEqual({
      horarios: [],
      motivo: 'Não há horários livres em 05/12 de manhã.',
    });
    expect(pickHorarios([], SP)).toEqual({ horarios: [], motivo: 'Não há horários livres nos próximos dias.' });
    expect(pickHorarios(list, SP, { dia: '02/12' }).motivo).toBe('Dia inválido: use AAAA-MM-DD.');
    expect(pickHorarios(list, SP, { periodo: 'madrugada' }).motivo).toBe('Período inválido: use manha, tarde ou noite.');
  });
});

describe('parseLocalSlot', () => {
  it('reads YYYY-MM-DDTHH:MM in the zone; refuses what is malformed, not a date, or skipped by a change', () => {
    expect(parseLocalSlot('2026-12-01T13:00', SP)).toBe(at('2026-12-01T13:00-03:00'));
    expect(parseLocalSlot('2026-12-01 13:00:00', SP)).toBe(at('2026-12-01T13:00-03:00'));
    expect(parseLocalSlot('2026-11-01T01:30', NY)).toBe(at('2026-11-01T01:30-04:00'));
    for (const bad of ['2026-02-30T10:00', '2026-12-01T24:00', '2026-12-01T13:00Z', 'amanhã às 10', 1764604800000, null])
      expect(parseLocalSlot(bad, SP)).toBeNull();
    expect(parseLocalSlot('2026-03-08T02:30', NY)).toBeNull();
  });
});
