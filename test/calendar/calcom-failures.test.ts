// CalcomCalendar when Cal.com fails (the fake's fail(), test/fakes/calcom-server.ts): each failure
// becomes CalendarUnavailableError after a bounded number of attempts (retrying only what is safe),
// transient ones are tried again, and no message ever holds the API key.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CalcomCalendar } from '../../adapters/calendar/calcom/calcom-calendar.js';
import type { CalcomOptions } from '../../adapters/calendar/calcom/calcom-options.js';
import { CalendarUnavailableError, type ProviderAppointment } from '../../adapters/calendar/calendar.js';
import { type CalcomFailure, type CalcomRoute, type FakeCalcom, startFakeCalcom } from '../fakes/calcom-server.js';

const TZ = 'America/Sao_Paulo';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BASE = Math.ceil(Date.now() / DAY) * DAY + DAY + 12 * HOUR;
const KEY = 'cal_live_s3cr3t_k3y_0123456789';

let fake: FakeCalcom;

beforeEach(async () => {
  fake = await startFakeCalcom({ apiKey: KEY, slots: [0, 1, 2].map((k) => BASE + k * HOUR) });
});
afterEach(() => fake.close());

function calendar(extra: Partial<CalcomOptions> = {}): CalcomCalendar {
  return new CalcomCalendar({ api_key: KEY, event_type_id: 123, base_url: fake.url, timeoutMs: 1000, deadlineMs: 5000, ...extra });
}

function appointment(id: number, start: number): ProviderAppointment {
  return {
    appointment_id: id,
    clinic_id: 7,
    start,
    end: start + HOUR,
    time_zone: TZ,
    lead_name: 'Maria',
    lead_phone: '5543999806366',
    clinic_name: 'Clínica',
  };
}

const query = { from: BASE, to: BASE + DAY, duration_min: 60, time_zone: TZ };

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: Error) => e,
  );
  if (!error) throw new Error('expected a rejection');
  expect(error).toBeInstanceOf(CalendarUnavailableError);
  expect(error.message).not.toContain(KEY);
  expect(JSON.stringify(error)).not.toContain(KEY);
  return error;
}

describe('CalcomCalendar: each failure → CalendarUnavailableError, bounded, without the key', () => {
  const cases: { failure: CalcomFailure; route: CalcomRoute; message: RegExp; attempts: number }[] = [
    { failure: 401, route: 'slots', message: /HTTP 401 on GET \/v2\/slots/, attempts: 1 },
    { failure: 403, route: 'slots', message: /HTTP 403/, attempts: 1 },
    { failure: 429, route: 'slots', message: /HTTP 429/, attempts: 3 },
    { failure: 503, route: 'slots', message: /HTTP 503/, attempts: 3 },
    { failure: 'hang', route: 'slots', message: /timeout after 1000 ms on GET \/v2\/slots/, attempts: 3 },
    { failure: 'reset', route: 'slots', message: /network failure on GET \/v2\/slots/, attempts: 3 },
  ];
  for (const c of cases) {
    it(`${c.failure} on ${c.route}: ${c.attempts} attempt(s)`, async () => {
      fake.fail(10, c.failure, { route: c.route });
      const error = await failure(calendar().availability(query));
      expect(error.message).toMatch(c.message);
      expect(fake.count(c.route)).toBe(c.attempts);
    });
  }

  it('a wrong key: 401 from Cal.com itself, not retried, the key in no message', async () => {
    const wrong = 'cal_live_wrong_key_999';
    const error = await failure(calendar({ api_key: wrong }).create(appointment(41, BASE)));
    expect(error.message).toMatch(/HTTP 401 on GET \/v2\/bookings \(Invalid API Key\)/);
    expect(error.message).not.toContain(wrong);
    expect(fake.requests).toHaveLength(1);
  });

  it('a key echoed in an error answer is removed from the message', async () => {
    const echo: typeof fetch = async () =>
      new Response(JSON.stringify({ status: 'error', error: { code: 'BAD_REQUEST', message: `bad key ${KEY} given` } }), { status: 400 });
    const error = await failure(calendar({ fetch: echo }).availability(query));
    expect(error.message).toContain('bad key *** given');
  });

  it('a booking uid never appears in a message (it lets anyone cancel the booking)', async () => {
    const ref = await calendar().create(appointment(41, BASE));
    fake.fail(10, 500, { route: 'cancel' });
    const error = await failure(calendar().cancel(ref, appointment(41, BASE), 'x'));
    expect(error.message).toMatch(/POST \/v2\/bookings\/\{uid\}\/cancel/);
    expect(error.message).not.toContain(ref.external_id!);
  });

  it("a booking uid in Cal.com's own message is masked too", async () => {
    const ref = await calendar().create(appointment(41, BASE));
    const stale = await (await fetch(`${fake.url}/bookings/${ref.external_id}`, { headers: fake.requests[0]!.headers as any })).text();
    await calendar().cancel(ref, appointment(41, BASE), 'clínica cancelou');
    const staleRead: typeof fetch = async (input, init) => {
      if (String(input).endsWith(`/v2/bookings/${ref.external_id}`)) return new Response(stale, { status: 200 });
      return fetch(input, init);
    };
    const error = await failure(calendar({ fetch: staleRead }).move(ref, appointment(41, BASE + HOUR)));
    expect(error.message).toMatch(/HTTP 400 on POST \/v2\/bookings\/\{uid\}\/reschedule \(Can't reschedule booking with uid=\{uid\}/);
    expect(error.message).not.toContain(ref.external_id!);
  });

  it('the call deadline bounds every request: a hang answers within deadlineMs, not timeoutMs', async () => {
    fake.fail(10, 'hang', { route: 'slots' });
    const error = await failure(calendar({ timeoutMs: 60_000, deadlineMs: 500 }).availability(query));
    expect(error.message).toMatch(/timeout after \d+ ms/);
    expect(Number(/timeout after (\d+) ms/.exec(error.message)![1])).toBeLessThanOrEqual(500);
    expect(fake.count('slots')).toBe(1);
  });

  it('an unusable 2xx answer is not retried', async () => {
    const garbage: typeof fetch = async () => new Response('<html>', { status: 200 });
    const error = await failure(calendar({ fetch: garbage }).availability(query));
    expect(error.message).toMatch(/unusable answer/);
  });

  it('an unknown event type (404) is CalendarUnavailableError with Cal.com message', async () => {
    const error = await failure(calendar({ event_type_id: 999 }).availability(query));
    expect(error.message).toMatch(/HTTP 404 .*Event type with id 999 not found/);
  });
});

describe('CalcomCalendar: transient failures are tried again where safe', () => {
  it('a 429 with Retry-After, then the answer', async () => {
    fake.fail(1, 429, { route: 'slots', retryAfter: '0' });
    const availability = await calendar().availability(query);
    expect(availability.kind === 'slots' && availability.slots).toHaveLength(3);
    expect(fake.count('slots')).toBe(2);
  });

  it('a Retry-After beyond the deadline is not waited for', async () => {
    fake.fail(1, 429, { route: 'slots', retryAfter: '30' });
    await failure(calendar().availability(query));
    expect(fake.count('slots')).toBe(1);
  });

  it('a 5xx on the look and on the POST: create still books once', async () => {
    fake.fail(1, 503, { route: 'list' });
    fake.fail(1, 502, { route: 'create' });
    const ref = await calendar().create(appointment(41, BASE));
    expect(fake.bookings).toHaveLength(1);
    expect(ref.external_id).toBe(fake.bookings[0]!.uid);
    expect(fake.count('create')).toBe(2);
  });

  it('a POST that keeps failing is given up after a bounded number, with no booking', async () => {
    fake.fail(10, 500, { route: 'create' });
    await failure(calendar().create(appointment(41, BASE)));
    expect(fake.count('create')).toBe(3);
    expect(fake.bookings).toHaveLength(0);
  });

  it('a POST refused for another reason (400) is not retried', async () => {
    fake.fail(1, 400, { route: 'create' });
    const error = await failure(calendar().create(appointment(41, BASE)));
    expect(error.message).toMatch(/HTTP 400 on POST \/v2\/bookings/);
    expect(fake.count('create')).toBe(1);
  });

  it('a reschedule that fails transiently is looked at again before another try', async () => {
    const ref = await calendar().create(appointment(41, BASE));
    fake.fail(1, 503, { route: 'reschedule' });
    const moved = await calendar().move(ref, appointment(41, BASE + 2 * HOUR));
    expect(fake.count('reschedule')).toBe(2);
    expect(fake.live.map((b) => b.uid)).toEqual([moved.external_id]);
  });

  it('an aborted signal rejects with its reason and sends nothing more', async () => {
    const controller = new AbortController();
    controller.abort(new Error('shutting down'));
    await expect(calendar().availability(query, controller.signal)).rejects.toThrow('shutting down');
    expect(fake.requests).toHaveLength(0);
  });

  it('options are checked without showing the key', () => {
    expect(() => new CalcomCalendar({ api_key: '', event_type_id: 123 })).toThrow(/api_key is required/);
    expect(() => new CalcomCalendar({ api_key: KEY, event_type_id: 0 })).toThrow(/event_type_id/);
    expect(() => new CalcomCalendar({ api_key: KEY, event_type_id: 1, base_url: 'ftp://x' })).toThrow(/base_url/);
  });
});
