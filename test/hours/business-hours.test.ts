// Business hours (CONTRACT.md §9): parsing the column value, open/closed at chosen instants, the next
// opening and the closing of the current stretch in the clinic's zone (DST included), and the
// Portuguese line the agent's prompt carries.
import { describe, expect, it } from 'vitest';
import {
  BusinessHoursError,
  closesAt,
  describeHours,
  formatBusinessHours,
  isOpenAt,
  nextOpeningAt,
  parseBusinessHours,
  type BusinessHours,
} from '../../adapters/hours/business-hours.js';

/** An instant given as São Paulo wall time (UTC-3 all year since 2019). */
const sp = (local: string) => Date.parse(`${local}-03:00`);
const isoOf = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const WEEKDAYS = '08:00-12:00,13:00-18:00';
const CLINIC = parseBusinessHours({
  timezone: 'America/Sao_Paulo',
  seg: WEEKDAYS,
  ter: WEEKDAYS,
  qua: WEEKDAYS,
  qui: WEEKDAYS,
  sex: WEEKDAYS,
  sab: '08:00-12:00',
  dom: '',
})!;

function hours(value: unknown): BusinessHours {
  const parsed = parseBusinessHours(value);
  if (!parsed) throw new Error('expected hours');
  return parsed;
}

function problemsOf(value: unknown): string[] {
  try {
    parseBusinessHours(value);
  } catch (err) {
    if (err instanceof BusinessHoursError) return err.problems.map((p) => (p.key ? `${p.key}: ${p.message}` : p.message));
    throw err;
  }
  throw new Error(`expected a BusinessHoursError for ${JSON.stringify(value)}`);
}

describe('parseBusinessHours', () => {
  it('reads JSON text and objects alike; missing and empty days are closed; timezone defaults to America/Sao_Paulo', () => {
    const fromText = parseBusinessHours('{"seg": "08:00-12:00,13:00-18:00", "sab": "08:00-12:00", "dom": ""}');
    expect(fromText).toEqual({
      timezone: 'America/Sao_Paulo',
      days: {
        seg: [
          { start: 480, end: 720 },
          { start: 780, end: 1080 },
        ],
        ter: [],
        qua: [],
        qui: [],
        sex: [],
        sab: [{ start: 480, end: 720 }],
        dom: [],
      },
    });
    expect(parseBusinessHours({ seg: '08:00-12:00,13:00-18:00', sab: '08:00-12:00', dom: '' })).toEqual(fromText);
  });

  it('null, undefined, empty text and JSON null mean no hours (always open)', () => {
    for (const value of [null, undefined, '', '   ', 'null']) expect(parseBusinessHours(value)).toBeNull();
  });

  it('accepts spaces, one-digit hours, 24:00, any letter case of the zone, and joins touching intervals', () => {
    const h = hours({ timezone: 'america/new_york', seg: ' 8:00 - 12:00 , 12:00-13:30 ', ter: '22:00-24:00', qua: '00:00-24:00' });
    expect(h.timezone).toBe('America/New_York');
    expect(h.days.seg).toEqual([{ start: 480, end: 810 }]);
    expect(formatBusinessHours(h)).toBe(
      '{"timezone":"America/New_York","seg":"08:00-13:30","ter":"22:00-24:00","qua":"00:00-24:00","qui":"","sex":"","sab":"","dom":""}',
    );
    expect(parseBusinessHours(formatBusinessHours(h))).toEqual(h);
  });

  it('refuses malformed values with a BusinessHoursError naming each problem', () => {
    expect(problemsOf('{"seg": "08:00-12:00"')).toEqual([expect.stringMatching(/^is not JSON \(/)]);
    expect(problemsOf(['08:00-12:00'])).toEqual([expect.stringMatching(/^must be an object like \{"timezone"/)]);
    expect(problemsOf(42)).toEqual(['must be an object like {"timezone": "America/Sao_Paulo", "seg": "08:00-18:00"}, got 42']);
    expect(problemsOf({ seg: '25:00-26:00' })).toEqual(['seg: "25:00-26:00": 25:00 is not a time between 00:00 and 24:00']);
    expect(problemsOf({ ter: '08:00-24:30' })).toEqual(['ter: "08:00-24:30": 24:30 is not a time between 00:00 and 24:00']);
    expect(problemsOf({ qua: '08:60-12:00' })).toEqual(['qua: "08:60-12:00": 08:60 is not a time between 00:00 and 24:00']);
    expect(problemsOf({ qui: '12:00-12:00' })).toEqual([
      'qui: "12:00-12:00": the end must be after the start (to open past midnight, end the day at 24:00 and start the next at 00:00)',
    ]);
    expect(problemsOf({ sex: '22:00-02:00' })).toEqual([expect.stringContaining('the end must be after the start')]);
    expect(problemsOf({ sab: '8h-12h' })).toEqual(['sab: "8h-12h" is not an interval HH:MM-HH:MM']);
    expect(problemsOf({ dom: '08:00-12:00,' })).toEqual(['dom: has an empty interval (a stray comma?)']);
    expect(problemsOf({ seg: '08:00-12:00,11:00-14:00' })).toEqual(['seg: intervals "08:00-12:00" and "11:00-14:00" overlap']);
    expect(problemsOf({ seg: 8 })).toEqual([`seg: must be text like "08:00-12:00,13:00-18:00" ('' when closed), got 8`]);
    expect(problemsOf({ timezone: 'Mars/Olympus' })).toEqual([
      'timezone: "Mars/Olympus" is not an IANA time zone (e.g. "America/Sao_Paulo")',
    ]);
    expect(problemsOf({ timezone: -3 })).toEqual(['timezone: must be an IANA time zone name such as "America/Sao_Paulo", got -3']);
    expect(problemsOf({ segunda: '08:00-12:00' })).toEqual(['segunda: is not a day key (seg, ter, qua, qui, sex, sab, dom) nor timezone']);
  });

  it('lists every problem of a value at once, in its message too', () => {
    let error: unknown;
    try {
      parseBusinessHours({ timezone: 'Nowhere', seg: '25:00-26:00', dom: 'sempre' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(BusinessHoursError);
    expect((error as BusinessHoursError).code).toBe('invalid-business-hours');
    expect((error as BusinessHoursError).problems.map((p) => p.key)).toEqual(['timezone', 'seg', 'dom']);
    expect((error as Error).message).toMatch(/^invalid business hours: timezone: .*; seg: .*; dom: "sempre" is not an interval/);
  });
});

describe('isOpenAt, nextOpeningAt and closesAt (America/Sao_Paulo)', () => {
  it('is open inside an interval and closed outside it, over the lunch break, on Saturday afternoon and on Sunday', () => {
    const cases: Array<[string, boolean]> = [
      ['2025-03-10T07:59:59', false], // Monday
      ['2025-03-10T08:00:00', true],
      ['2025-03-10T11:59:59', true],
      ['2025-03-10T12:00:00', false], // lunch
      ['2025-03-10T12:59:00', false],
      ['2025-03-10T13:00:00', true],
      ['2025-03-10T17:59:59', true],
      ['2025-03-10T18:00:00', false],
      ['2025-03-15T11:00:00', true], // Saturday
      ['2025-03-15T12:00:00', false],
      ['2025-03-16T10:00:00', false], // Sunday
    ];
    expect(cases.map(([local]) => [local, isOpenAt(CLINIC, sp(local))])).toEqual(cases);
  });

  it('the next opening is the instant itself when open, after lunch the same day, and across the weekend', () => {
    const next = (local: string) => isoOf(nextOpeningAt(CLINIC, sp(local)));
    expect(next('2025-03-10T09:30:00')).toBe('2025-03-10T12:30:00.000Z');
    expect(next('2025-03-10T12:15:00')).toBe('2025-03-10T16:00:00.000Z');
    expect(next('2025-03-14T18:30:00')).toBe('2025-03-15T11:00:00.000Z'); // Friday evening: Saturday 08:00
    expect(next('2025-03-15T12:00:00')).toBe('2025-03-17T11:00:00.000Z'); // Saturday noon: Monday 08:00
    expect(next('2025-03-16T23:59:00')).toBe('2025-03-17T11:00:00.000Z');
  });

  it('the current stretch closes at its interval end; closed gives null', () => {
    expect(isoOf(closesAt(CLINIC, sp('2025-03-10T10:00:00')))).toBe('2025-03-10T15:00:00.000Z');
    expect(isoOf(closesAt(CLINIC, sp('2025-03-10T14:00:00')))).toBe('2025-03-10T21:00:00.000Z');
    expect(closesAt(CLINIC, sp('2025-03-10T12:30:00'))).toBeNull();
  });

  it('skips closed days: open on Wednesdays only, the next opening is up to a week ahead', () => {
    const wednesdays = hours({ qua: '09:00-10:00', qui: '', sex: null });
    expect(isoOf(nextOpeningAt(wednesdays, sp('2025-03-13T09:30:00')))).toBe('2025-03-19T12:00:00.000Z'); // Thursday
    expect(isoOf(nextOpeningAt(wednesdays, sp('2025-03-12T10:00:00')))).toBe('2025-03-19T12:00:00.000Z'); // Wednesday, just closed
  });

  it('with every day closed it never opens: null next opening and no closing', () => {
    const never = hours({ timezone: 'America/Sao_Paulo', seg: '', dom: '' });
    const at = sp('2025-03-10T10:00:00');
    expect([isOpenAt(never, at), nextOpeningAt(never, at), closesAt(never, at)]).toEqual([false, null, null]);
  });

  it('without hours it is always open and never closes', () => {
    const at = sp('2025-03-16T03:00:00');
    expect([isOpenAt(null, at), nextOpeningAt(null, at), closesAt(null, at)]).toEqual([true, at, null]);
  });

  it('an interval ending 24:00 goes on into the next day 00:00 interval as one open stretch', () => {
    const late = hours({ sex: '18:00-24:00', sab: '00:00-02:00,08:00-12:00' });
    expect(isOpenAt(late, sp('2025-03-14T23:59:59'))).toBe(true);
    expect(isOpenAt(late, sp('2025-03-15T00:00:00'))).toBe(true);
    expect(isoOf(closesAt(late, sp('2025-03-14T20:00:00')))).toBe('2025-03-15T05:00:00.000Z'); // Saturday 02:00
    const lateOnly = hours({ sex: '18:00-24:00' });
    expect(isoOf(closesAt(lateOnly, sp('2025-03-14T20:00:00')))).toBe('2025-03-15T03:00:00.000Z'); // midnight
  });

  it('open around the clock: no closing within the search window', () => {
    const always = hours(Object.fromEntries(['seg', 'ter', 'qua', 'qui', 'sex', 'sab', 'dom'].map((d) => [d, '00:00-24:00'])));
    expect(closesAt(always, sp('2025-03-12T03:00:00'))).toBeNull();
    expect(isOpenAt(always, sp('2025-03-16T23:59:59'))).toBe(true);
  });
});

describe('across DST switches (America/New_York)', () => {
  const office = hours({
    timezone: 'America/New_York',
    seg: '09:00-17:00',
    ter: '09:00-17:00',
    qua: '09:00-17:00',
    qui: '09:00-17:00',
    sex: '09:00-17:00',
  });

  it('spring forward (2025-03-09): Friday evening to Monday 09:00 EDT is 62 hours, not 63', () => {
    const friday = Date.parse('2025-03-07T18:00:00-05:00');
    const monday = nextOpeningAt(office, friday)!;
    expect(isoOf(monday)).toBe('2025-03-10T13:00:00.000Z');
    expect((monday - friday) / 3_600_000).toBe(62);
    expect(isOpenAt(office, Date.parse('2025-03-10T13:30:00Z'))).toBe(true); // 09:30 EDT
    expect(isOpenAt(office, Date.parse('2025-03-07T13:30:00Z'))).toBe(false); // 08:30 EST
    expect(isoOf(closesAt(office, Date.parse('2025-03-10T13:30:00Z')))).toBe('2025-03-10T21:00:00.000Z');
  });

  it('fall back (2025-11-02): Friday evening to Monday 09:00 EST is 64 hours', () => {
    const friday = Date.parse('2025-10-31T18:00:00-04:00');
    const monday = nextOpeningAt(office, friday)!;
    expect(isoOf(monday)).toBe('2025-11-03T14:00:00.000Z');
    expect((monday - friday) / 3_600_000).toBe(64);
  });

  it('a wall time skipped by spring forward opens when the gap ends; an interval wholly inside the gap is skipped that day', () => {
    const night = hours({ timezone: 'America/New_York', dom: '02:30-05:00' });
    const saturday = Date.parse('2025-03-08T23:00:00-05:00');
    expect(isoOf(nextOpeningAt(night, saturday))).toBe('2025-03-09T07:00:00.000Z'); // 03:00 EDT
    const inGap = hours({ timezone: 'America/New_York', dom: '02:00-02:45' });
    expect(isoOf(nextOpeningAt(inGap, saturday))).toBe('2025-03-16T06:00:00.000Z'); // next Sunday, 02:00 EDT
    const closing = hours({ timezone: 'America/New_York', dom: '01:00-02:30' });
    expect(isoOf(closesAt(closing, Date.parse('2025-03-09T01:30:00-05:00')))).toBe('2025-03-09T07:00:00.000Z'); // 03:00 EDT
  });

  it('a wall time shown twice by fall back opens at its first showing and is open at both', () => {
    const early = hours({ timezone: 'America/New_York', dom: '01:00-01:30' });
    const saturday = Date.parse('2025-11-01T23:00:00-04:00');
    expect(isoOf(nextOpeningAt(early, saturday))).toBe('2025-11-02T05:00:00.000Z'); // 01:00 EDT
    expect(isoOf(closesAt(early, Date.parse('2025-11-02T05:10:00Z')))).toBe('2025-11-02T05:30:00.000Z');
    expect(isOpenAt(early, Date.parse('2025-11-02T06:15:00Z'))).toBe(true); // 01:15 EST
    expect(isOpenAt(early, Date.parse('2025-11-02T05:45:00Z'))).toBe(false); // 01:45 EDT
  });
});

describe('describeHours', () => {
  const line = (local: string) => describeHours(CLINIC, sp(local));

  it('open: says until when, in the clinic zone', () => {
    expect(line('2025-03-10T10:00:00')).toBe('A clínica está aberta agora, até o meio-dia (horário de America/Sao_Paulo).');
    expect(line('2025-03-10T14:00:00')).toBe('A clínica está aberta agora, até as 18:00 (horário de America/Sao_Paulo).');
  });

  it('closed: says when it opens, with hoje, amanhã or the weekday and date', () => {
    expect(line('2025-03-10T12:30:00')).toBe('A clínica está fechada agora; abre hoje às 13:00 (horário de America/Sao_Paulo).');
    expect(line('2025-03-14T19:00:00')).toBe('A clínica está fechada agora; abre amanhã, sábado, às 08:00 (horário de America/Sao_Paulo).');
    expect(line('2025-03-15T13:00:00')).toBe(
      'A clínica está fechada agora; abre segunda-feira, 17/03, às 08:00 (horário de America/Sao_Paulo).',
    );
    expect(line('2025-03-17T06:00:00')).toBe('A clínica está fechada agora; abre hoje às 08:00 (horário de America/Sao_Paulo).');
  });

  it('uses the clinic zone for the words, whatever the instant', () => {
    const tokyo = hours({ timezone: 'Asia/Tokyo', seg: '09:00-18:00' });
    // Sunday 22:00 in São Paulo is Monday 10:00 in Tokyo.
    expect(describeHours(tokyo, sp('2025-03-16T22:00:00'))).toBe('A clínica está aberta agora, até as 18:00 (horário de Asia/Tokyo).');
  });

  it('an open stretch past midnight says until midnight or until the next day', () => {
    expect(describeHours(hours({ sex: '18:00-24:00' }), sp('2025-03-14T20:00:00'))).toBe(
      'A clínica está aberta agora, até a meia-noite (horário de America/Sao_Paulo).',
    );
    expect(describeHours(hours({ sex: '18:00-24:00', sab: '00:00-02:00' }), sp('2025-03-14T20:00:00'))).toBe(
      'A clínica está aberta agora, até amanhã, sábado, às 02:00 (horário de America/Sao_Paulo).',
    );
  });

  it('no hours, no open day, around the clock', () => {
    expect(describeHours(null, sp('2025-03-16T03:00:00'))).toBe('A clínica atende a qualquer hora.');
    expect(describeHours(hours({ dom: '' }), sp('2025-03-16T03:00:00'))).toBe(
      'A clínica não tem nenhum dia de atendimento cadastrado, então não há previsão de quando a equipe responde.',
    );
    const always = hours(Object.fromEntries(['seg', 'ter', 'qua', 'qui', 'sex', 'sab', 'dom'].map((d) => [d, '00:00-24:00'])));
    expect(describeHours(always, sp('2025-03-16T03:00:00'))).toBe('A clínica está aberta agora e atende 24 horas por dia, todos os dias.');
  });
});
