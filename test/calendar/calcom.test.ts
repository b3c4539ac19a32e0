// CalcomCalendar against the fake Cal.com (test/fakes/calcom-server.ts): the headers each endpoint
// family needs, slots parsed, bookings made once per appointment (a lost answer, a crash), slot
// refusals, a move giving a new uid, cancels. Failures of the provider: calcom-failures.test.ts.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CalcomCalendar } from '../../adapters/calendar/calcom/calcom-calendar.js';
import type { CalcomOptions } from '../../adapters/calendar/calcom/calcom-options.js';
import { parseSlots } from '../../adapters/calendar/calcom/calcom-payloads.js';
import { CalendarUnavailableError, type ProviderAppointment, SlotUnavailableError } from '../../adapters/calendar/calendar.js';
import { type FakeCalcom, startFakeCalcom } from '../fakes/calcom-server.js';
import { pollFor } from '../helpers/poll.js';

const TZ = 'America/Sao_Paulo';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 12:00 UTC (09:00 in São Paulo) two days ahead: the first start of the fake's grid. */
const BASE = Math.ceil(Date.now() / DAY) * DAY + DAY + 12 * HOUR;

let fake: FakeCalcom;

beforeEach(async () => {
  fake = await startFakeCalcom({ slots: [0, 1, 2, 3, 4, 5].map((k) => BASE + k * HOUR) });
});
afterEach(() => fake.close());

function calendar(extra: Partial<CalcomOptions> = {}): CalcomCalendar {
  return new CalcomCalendar({ api_key: fake.apiKey, event_type_id: 123, base_url: fake.url, timeoutMs: 1000, deadlineMs: 5000, ...extra });
}

function appointment(id: number, start: number, extra: Partial<ProviderAppointment> = {}): ProviderAppointment {
  return {
    appointment_id: id,
    clinic_id: 7,
    start,
    end: start + HOUR,
    time_zone: TZ,
    lead_name: 'Maria Souza',
    lead_phone: '5543999806366',
    clinic_name: 'Clínica Sorriso',
    ...extra,
  };
}

describe('CalcomCalendar: headers', () => {
  it('sends the bearer key on every request, cal-api-version 2024-09-04 for slots and 2026-02-25 for bookings', async () => {
    const cal = calendar();
    await cal.availability({ from: BASE, to: BASE + DAY, duration_min: 60, time_zone: TZ });
    const ref = await cal.create(appointment(41, BASE));
    const moved = await cal.move(ref, appointment(41, BASE + 2 * HOUR));
    await cal.cancel(moved, appointment(41, BASE + 2 * HOUR), 'Lead pediu');
    expect(new Set(fake.requests.map((r) => r.route))).toEqual(new Set(['slots', 'list', 'create', 'get', 'reschedule', 'cancel']));
    for (const request of fake.requests) {
      expect(request.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
      expect(request.headers['cal-api-version']).toBe(request.route === 'slots' ? '2024-09-04' : '2026-02-25');
      expect(request.status).toBeLessThan(300);
    }
  });

  it('the fake refuses a family its cal-api-version does not serve', async () => {
    const response = await fetch(`${fake.url}/slots?eventTypeId=123&start=2026-12-02&end=2026-12-03`, {
      headers: { authorization: `Bearer ${fake.apiKey}`, 'cal-api-version': '2026-02-25' },
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.message).toContain('2024-09-04');
  });
});

describe('CalcomCalendar: availability', () => {
  it('gives the starts Cal.com lists, each duration_min long, without the booked ones', async () => {
    const cal = calendar();
    await cal.create(appointment(41, BASE + HOUR));
    const availability = await cal.availability({ from: BASE - HOUR, to: BASE + 4 * HOUR, duration_min: 45, time_zone: TZ });
    const starts = [BASE, BASE + 2 * HOUR, BASE + 3 * HOUR];
    expect(availability).toEqual({ kind: 'slots', slots: starts.map((start) => ({ start, end: start + 45 * 60_000 })) });
    const query = fake.requests.find((r) => r.route === 'slots')!.query;
    expect(query).toMatchObject({
      eventTypeId: '123',
      start: new Date(BASE - HOUR).toISOString(),
      end: new Date(BASE + 4 * HOUR).toISOString(),
      timeZone: TZ,
    });
  });

  it('an empty answer (`data: {}`) is no slots', async () => {
    const availability = await calendar().availability({ from: BASE + 7 * DAY, to: BASE + 8 * DAY, duration_min: 60, time_zone: TZ });
    expect(availability).toEqual({ kind: 'slots', slots: [] });
  });

  it('parses the reference payload: offsets honoured, `end` optional, unreadable items skipped, only [from, to)', () => {
    const data = {
      '2026-12-02': [
        { start: '2026-12-02T09:00:00.000-03:00', end: '2026-12-02T10:00:00.000-03:00' },
        { start: '2026-12-02T10:00:00.000-03:00' },
        { start: 'not a time' },
      ],
      '2026-12-03': [{ start: '2026-12-03T09:00:00.000-03:00' }],
    };
    const from = Date.parse('2026-12-02T12:00:00Z');
    const slots = parseSlots(data, from, Date.parse('2026-12-03T12:00:00Z'), 30);
    expect(slots).toEqual([
      { start: from, end: from + 30 * 60_000 },
      { start: from + HOUR, end: from + HOUR + 30 * 60_000 },
    ]);
    expect(parseSlots([], 0, 1, 60)).toBeUndefined();
  });
});

describe('CalcomCalendar: create', () => {
  it('books the lead as the attendee (UTC start, +phone, pt-BR) with the appointment in metadata', async () => {
    const ref = await calendar().create(appointment(41, BASE));
    const create = fake.requests.find((r) => r.route === 'create')!;
    expect(create.body).toEqual({
      start: new Date(BASE).toISOString(),
      eventTypeId: 123,
      attendee: { name: 'Maria Souza', phoneNumber: '+5543999806366', timeZone: TZ, language: 'pt-BR' },
      metadata: { leadflowAgendamento: '41', leadflowClinica: '7' },
    });
    expect(create.body.start).toMatch(/Z$/);
    expect(fake.live).toHaveLength(1);
    expect(ref).toEqual({ external_id: fake.live[0]!.uid });
    expect(fake.live[0]).toMatchObject({ status: 'accepted', start: BASE, metadata: { leadflowAgendamento: '41' } });
  });

  it('a lead without a name is booked under its phone', async () => {
    await calendar().create(appointment(42, BASE, { lead_name: '  ' }));
    expect(fake.live[0]!.attendee.name).toBe('+5543999806366');
  });

  it('repeated for the same appointment finds the first booking instead of making another', async () => {
    const first = await calendar().create(appointment(41, BASE));
    const second = await calendar().create(appointment(41, BASE));
    expect(second).toEqual(first);
    expect(fake.bookings).toHaveLength(1);
    expect(fake.count('create')).toBe(1);
  });

  it('accepted by Cal.com and never answered: the look that follows finds it, one booking', async () => {
    fake.fail(1, 'accept-then-hang', { route: 'create' });
    const ref = await calendar().create(appointment(41, BASE));
    expect(fake.bookings).toHaveLength(1);
    expect(ref).toEqual({ external_id: fake.bookings[0]!.uid });
    expect(fake.count('create')).toBe(1);
  });

  it('a process killed after Cal.com accepted: the next process finds the booking, one booking', async () => {
    fake.fail(1, 'accept-then-hang', { route: 'create' });
    const killed = new AbortController();
    const first = calendar({ timeoutMs: 5000 }).create(appointment(41, BASE), killed.signal);
    await pollFor('the booking accepted', async () => fake.bookings.length === 1);
    killed.abort(new Error('killed'));
    await expect(first).rejects.toThrow('killed');
    const ref = await calendar().create(appointment(41, BASE));
    expect(ref).toEqual({ external_id: fake.bookings[0]!.uid });
    expect(fake.bookings).toHaveLength(1);
    expect(fake.count('create')).toBe(1);
  });

  it('a look that came before Cal.com stored the first POST: the slot refusal is checked by another look', async () => {
    const first = await calendar().create(appointment(41, BASE));
    let lists = 0;
    const staleFirstList: typeof fetch = async (input, init) => {
      if (String(input).includes('/v2/bookings?') && lists++ === 0) return Response.json({ status: 'success', data: [] });
      return fetch(input, init);
    };
    const again = await calendar({ fetch: staleFirstList }).create(appointment(41, BASE));
    expect(again).toEqual(first);
    expect(fake.bookings).toHaveLength(1);
    expect(fake.count('create')).toBe(2);
  });

  it('a taken, past, off-grid or conflicting start is SlotUnavailableError, and nothing more is booked', async () => {
    const cal = calendar();
    await cal.create(appointment(41, BASE));
    await expect(cal.create(appointment(42, BASE))).rejects.toBeInstanceOf(SlotUnavailableError);
    const past = Math.floor(Date.now() / HOUR) * HOUR - HOUR;
    fake.setSlots([past, BASE, BASE + HOUR]);
    await expect(cal.create(appointment(43, past))).rejects.toThrow(/in the past/);
    await expect(cal.create(appointment(44, BASE + 30 * 60_000))).rejects.toThrow(/can't be booked at the "start" time/);
    fake.fail(1, 'conflict', { route: 'create' });
    await expect(cal.create(appointment(45, BASE + HOUR))).rejects.toBeInstanceOf(SlotUnavailableError);
    expect(fake.live.map((b) => b.metadata.leadflowAgendamento)).toEqual(['41']);
  });

  it('another appointment of the same number at the same time is not mistaken for this one', async () => {
    await calendar().create(appointment(41, BASE));
    await expect(calendar().create(appointment(41, BASE, { clinic_id: 8 }))).rejects.toBeInstanceOf(SlotUnavailableError);
  });

  it('a pending booking (event type requires confirmation) is cancelled and refused, naming the setting', async () => {
    fake.requiresConfirmation = true;
    const error = await calendar()
      .create(appointment(41, BASE))
      .catch((e) => e);
    expect(error).toBeInstanceOf(CalendarUnavailableError);
    expect(error.message).toMatch(/requires confirmation/i);
    expect(fake.bookings).toHaveLength(1);
    expect(fake.live).toHaveLength(0);
  });

  it('a pending booking whose cancel failed is refused all the same, and cancelled by the next create', async () => {
    fake.requiresConfirmation = true;
    fake.fail(3, 500, { route: 'cancel' });
    await expect(calendar().create(appointment(41, BASE))).rejects.toThrow(/requires confirmation/i);
    expect(fake.live.map((b) => b.status)).toEqual(['pending']);
    await expect(calendar().create(appointment(41, BASE))).rejects.toThrow(/requires confirmation/i);
    expect(fake.bookings).toHaveLength(1);
    expect(fake.live).toHaveLength(0);
  });
});

describe('CalcomCalendar: move', () => {
  it('gives the new uid; the old booking is cancelled, the new one keeps the metadata; a repeat changes nothing', async () => {
    const cal = calendar();
    const old = await cal.create(appointment(41, BASE));
    const moved = await cal.move(old, appointment(41, BASE + 2 * HOUR));
    expect(moved.external_id).not.toBe(old.external_id);
    expect(fake.booking(old.external_id!)).toMatchObject({ status: 'cancelled', rescheduledToUid: moved.external_id });
    expect(fake.booking(moved.external_id!)).toMatchObject({
      status: 'accepted',
      start: BASE + 2 * HOUR,
      rescheduledFromUid: old.external_id,
      metadata: { leadflowAgendamento: '41', leadflowClinica: '7' },
    });
    expect(fake.requests.find((r) => r.route === 'reschedule')!.body).toMatchObject({ start: new Date(BASE + 2 * HOUR).toISOString() });
    expect(await cal.move(old, appointment(41, BASE + 2 * HOUR))).toEqual(moved);
    expect(await cal.move(moved, appointment(41, BASE + 2 * HOUR))).toEqual(moved);
    expect(fake.bookings).toHaveLength(2);
    expect(fake.count('reschedule')).toBe(1);
  });

  it('rescheduled by Cal.com and never answered: the new booking is found, one live booking', async () => {
    const cal = calendar();
    const old = await cal.create(appointment(41, BASE));
    fake.fail(1, 'accept-then-hang', { route: 'reschedule' });
    const moved = await cal.move(old, appointment(41, BASE + 3 * HOUR));
    expect(fake.live).toHaveLength(1);
    expect(moved).toEqual({ external_id: fake.live[0]!.uid });
    expect(fake.live[0]!.start).toBe(BASE + 3 * HOUR);
    expect(fake.count('reschedule')).toBe(1);
  });

  it('a repeat whose read of the old booking predates the first reschedule: the refusal is checked by a look', async () => {
    const cal = calendar();
    const old = await cal.create(appointment(41, BASE));
    const stale = await (await fetch(`${fake.url}/bookings/${old.external_id}`, { headers: fake.requests[0]!.headers as any })).text();
    const first = await cal.move(old, appointment(41, BASE + 2 * HOUR));
    const staleRead: typeof fetch = async (input, init) => {
      if (String(input).endsWith(`/v2/bookings/${old.external_id}`)) return new Response(stale, { status: 200 });
      return fetch(input, init);
    };
    expect(await calendar({ fetch: staleRead }).move(old, appointment(41, BASE + 2 * HOUR))).toEqual(first);
    expect(fake.count('reschedule')).toBe(2);
    expect(fake.live.map((b) => b.uid)).toEqual([first.external_id]);
  });

  it('to a taken time is SlotUnavailableError and keeps the booking where it was', async () => {
    const cal = calendar();
    const mine = await cal.create(appointment(41, BASE));
    await cal.create(appointment(42, BASE + 2 * HOUR));
    await expect(cal.move(mine, appointment(41, BASE + 2 * HOUR))).rejects.toBeInstanceOf(SlotUnavailableError);
    expect(fake.booking(mine.external_id!)).toMatchObject({ status: 'accepted', start: BASE });
  });

  it('a booking the clinic rescheduled in Cal.com is followed to its successor, which is moved: one live booking', async () => {
    const cal = calendar();
    const ref = await cal.create(appointment(41, BASE));
    const byClinic = await fetch(`${fake.url}/bookings/${ref.external_id}/reschedule`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.apiKey}`, 'cal-api-version': '2026-02-25', 'content-type': 'application/json' },
      body: JSON.stringify({ start: new Date(BASE + HOUR).toISOString() }),
    });
    expect(byClinic.status).toBe(201);
    const moved = await cal.move(ref, appointment(41, BASE + 3 * HOUR));
    expect(fake.live.map((b) => [b.uid, b.start])).toEqual([[moved.external_id, BASE + 3 * HOUR]]);
  });

  it('a booking cancelled outside LeadFlow, or none yet, is booked at the new time', async () => {
    const cal = calendar();
    const ref = await cal.create(appointment(41, BASE));
    fake.booking(ref.external_id!)!.status = 'cancelled';
    const moved = await cal.move(ref, appointment(41, BASE + HOUR));
    expect(fake.booking(moved.external_id!)).toMatchObject({ status: 'accepted', start: BASE + HOUR });
    const fresh = await cal.move({ external_id: null }, appointment(50, BASE + 4 * HOUR));
    expect(fake.booking(fresh.external_id!)).toMatchObject({ status: 'accepted', start: BASE + 4 * HOUR });
  });
});

describe('CalcomCalendar: cancel', () => {
  it('cancels with the reason; twice is done', async () => {
    const cal = calendar();
    const ref = await cal.create(appointment(41, BASE));
    await cal.cancel(ref, appointment(41, BASE), 'Lead pediu');
    expect(fake.booking(ref.external_id!)).toMatchObject({ status: 'cancelled', cancellationReason: 'Lead pediu' });
    await cal.cancel(ref, appointment(41, BASE), 'Lead pediu');
    expect(fake.count('cancel')).toBe(2);
    expect(fake.live).toHaveLength(0);
  });

  it('an old uid after a move cancels its successor; an unknown uid is done', async () => {
    const cal = calendar();
    const old = await cal.create(appointment(41, BASE));
    await cal.move(old, appointment(41, BASE + HOUR));
    await cal.cancel(old, appointment(41, BASE + HOUR), 'Lead pediu');
    expect(fake.live).toHaveLength(0);
    await cal.cancel({ external_id: 'no-such-uid' }, appointment(41, BASE + HOUR), '');
  });

  it('without a uid (a create that failed midway) finds the appointment booking and cancels it', async () => {
    fake.fail(10, 500, { route: 'list', skip: 1 });
    fake.fail(1, 'accept-then-hang', { route: 'create' });
    await expect(calendar().create(appointment(41, BASE))).rejects.toBeInstanceOf(CalendarUnavailableError);
    expect(fake.live).toHaveLength(1);
    fake.clearFailures();
    await calendar().cancel({ external_id: null }, appointment(41, BASE), 'Falha ao agendar');
    expect(fake.live).toHaveLength(0);
  });

  it('an accepted-then-unanswered cancel is retried and done', async () => {
    const cal = calendar();
    const ref = await cal.create(appointment(41, BASE));
    fake.fail(1, 'accept-then-hang', { route: 'cancel' });
    await cal.cancel(ref, appointment(41, BASE), 'Lead pediu');
    expect(fake.live).toHaveLength(0);
    expect(fake.count('cancel')).toBe(2);
  });
});
