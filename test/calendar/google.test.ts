// The Google calendar provider against a fake Google (test/fakes/google-calendar-server.ts): the
// service account's JWT signed for real and its token cached, busy windows from freeBusy, one event per
// appointment however often create is repeated (a lost answer included), move, cancel.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CalendarUnavailableError, type ProviderAppointment } from '../../adapters/calendar/calendar.js';
import { eventIdFor, movedEventId } from '../../adapters/calendar/google/event-id.js';
import { GoogleCalendar, type GoogleCalendarOptions } from '../../adapters/calendar/google/google-calendar.js';
import { TokenCache } from '../../adapters/calendar/google/token-cache.js';
import { settableClock } from '../../adapters/clock.js';
import { type FakeGoogleCalendar, startFakeGoogleCalendar, testServiceAccount } from '../fakes/google-calendar-server.js';

const CAL = 'clinica.aurora@gmail.com';
const ZONE = 'America/Sao_Paulo';
const at = (text: string) => Date.parse(text);

let account: ReturnType<typeof testServiceAccount>;
let fake: FakeGoogleCalendar;

beforeAll(() => {
  account = testServiceAccount();
});

beforeEach(async () => {
  fake = await startFakeGoogleCalendar({ accounts: { [account.client_email]: account.publicKey } });
  fake.addCalendar(CAL, { [account.client_email]: 'writer' });
});

afterEach(async () => {
  await fake.close();
});

function calendar(extra: Partial<GoogleCalendarOptions> = {}): GoogleCalendar {
  return new GoogleCalendar({
    calendar_id: CAL,
    service_account: { client_email: account.client_email, private_key: account.private_key },
    base_url: fake.baseUrl,
    token_url: fake.tokenUrl,
    tokens: new TokenCache(),
    timeoutMs: 1000,
    deadlineMs: 3000,
    baseDelayMs: 20,
    maxDelayMs: 100,
    ...extra,
  });
}

function appointment(overrides: Partial<ProviderAppointment> = {}): ProviderAppointment {
  const start = overrides.start ?? at('2026-12-02T14:30:00-03:00');
  return {
    appointment_id: 1234,
    clinic_id: 7,
    start,
    end: start + 60 * 60_000,
    time_zone: ZONE,
    lead_name: 'Maria Souza',
    lead_phone: '5511999990001',
    clinic_name: 'Clínica Aurora',
    ...overrides,
  };
}

const dayQuery = { from: at('2026-12-02T00:00:00-03:00'), to: at('2026-12-03T00:00:00-03:00'), duration_min: 60, time_zone: ZONE };

describe('google calendar: service account token', () => {
  it('signs the JWT (RS256) the fake verifies with the public key, and one token serves many calls, concurrent ones too', async () => {
    const google = calendar();
    await Promise.all(Array.from({ length: 8 }, () => google.availability(dayQuery)));
    for (let i = 0; i < 3; i++) await google.availability(dayQuery);
    await google.create(appointment());
    expect(fake.count('POST', '/token')).toBe(1);
    const form = fake.requests.find((r) => r.path === '/token')!.body;
    expect(form.grant_type).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const [header, claims] = String(form.assertion)
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString('utf8')));
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT' });
    expect(claims).toMatchObject({ iss: account.client_email, scope: 'https://www.googleapis.com/auth/calendar', aud: fake.tokenUrl });
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims.sub).toBeUndefined();
  });

  it('providers of one service account share its token through the cache', async () => {
    const tokens = new TokenCache();
    await calendar({ tokens }).availability(dayQuery);
    await calendar({ tokens }).availability(dayQuery);
    expect(fake.count('POST', '/token')).toBe(1);
  });

  it('fetches a new token before the cached one expires, by the clock it is given', async () => {
    const clock = settableClock(at('2026-12-01T12:00:00Z'));
    await fake.close();
    fake = await startFakeGoogleCalendar({ accounts: { [account.client_email]: account.publicKey }, clock });
    fake.addCalendar(CAL, { [account.client_email]: 'writer' });
    const google = calendar({ clock });
    await google.availability(dayQuery);
    clock.set(at('2026-12-01T12:30:00Z'));
    await google.availability(dayQuery);
    expect(fake.count('POST', '/token')).toBe(1);
    // 30 s before the token's end (12:59:59): inside the renewal margin, so a new one, never a 401.
    clock.set(at('2026-12-01T12:59:29Z'));
    await google.availability(dayQuery);
    expect(fake.count('POST', '/token')).toBe(2);
    clock.set(at('2026-12-01T13:30:00Z'));
    await google.availability(dayQuery);
    expect(fake.count('POST', '/token')).toBe(2);
    expect(fake.requests.filter((r) => r.status === 401)).toEqual([]);
  });

  it('repairs a private_key whose newlines arrived as literal backslash-n', async () => {
    const mangled = account.private_key.replace(/\n/g, '\\n');
    expect(mangled).not.toContain('\n');
    const google = calendar({ service_account: { client_email: account.client_email, private_key: mangled } });
    await expect(google.availability(dayQuery)).resolves.toEqual({ kind: 'busy', busy: [] });
  });

  it('takes the whole key JSON, as an object or as its text', async () => {
    const keyJson = {
      type: 'service_account',
      project_id: 'clinica-aurora',
      private_key_id: 'abc123',
      private_key: account.private_key,
      client_email: account.client_email,
      token_uri: 'https://oauth2.googleapis.com/token',
    };
    await expect(calendar({ service_account: keyJson }).availability(dayQuery)).resolves.toEqual({ kind: 'busy', busy: [] });
    await expect(calendar({ service_account: JSON.stringify(keyJson) }).availability(dayQuery)).resolves.toEqual({
      kind: 'busy',
      busy: [],
    });
    expect(() => calendar({ service_account: '{"client_email": "x@y"}' })).toThrow(/private_key of x@y is missing/);
  });

  it('a key the service account does not own is refused once (invalid_grant), naming the account and never the key', async () => {
    const stranger = testServiceAccount(account.client_email);
    const google = calendar({ service_account: { client_email: account.client_email, private_key: stranger.private_key } });
    const error = await google.availability(dayQuery).catch((e) => e);
    expect(error).toBeInstanceOf(CalendarUnavailableError);
    expect(error.message).toMatch(/invalid_grant: Invalid JWT Signature/);
    expect(error.message).toContain(account.client_email);
    expect(error.message).not.toMatch(/PRIVATE KEY|MII/);
    expect(error.message).not.toContain(String(fake.requests[0]!.body.assertion).split('.')[2]!.slice(0, 20));
    expect(fake.count('POST', '/token')).toBe(1);
  });
});

describe('google calendar: availability', () => {
  it('answers the busy windows freeBusy gives for the day, in ms, asking with the zone and offsets', async () => {
    fake.addEvent(CAL, { start: { dateTime: '2026-12-02T09:00:00-03:00' }, end: { dateTime: '2026-12-02T10:00:00-03:00' } });
    fake.addEvent(CAL, { start: { dateTime: '2026-12-02T16:00:00-03:00' }, end: { dateTime: '2026-12-02T17:30:00-03:00' } });
    fake.addEvent(CAL, {
      start: { dateTime: '2026-12-02T12:00:00-03:00' },
      end: { dateTime: '2026-12-02T13:00:00-03:00' },
      transparency: 'transparent',
    });
    fake.addEvent(CAL, { start: { dateTime: '2026-12-03T09:00:00-03:00' }, end: { dateTime: '2026-12-03T10:00:00-03:00' } });
    const cancelled = fake.addEvent(CAL, {
      start: { dateTime: '2026-12-02T11:00:00-03:00' },
      end: { dateTime: '2026-12-02T12:00:00-03:00' },
    });
    fake.deleteByStaff(CAL, cancelled.id);
    const availability = await calendar().availability(dayQuery);
    expect(availability).toEqual({
      kind: 'busy',
      busy: [
        { start: at('2026-12-02T09:00:00-03:00'), end: at('2026-12-02T10:00:00-03:00') },
        { start: at('2026-12-02T16:00:00-03:00'), end: at('2026-12-02T17:30:00-03:00') },
      ],
    });
    expect(fake.requests.find((r) => r.path === '/calendar/v3/freeBusy')!.body).toEqual({
      timeMin: '2026-12-02T00:00:00-03:00',
      timeMax: '2026-12-03T00:00:00-03:00',
      timeZone: ZONE,
      items: [{ id: CAL }],
    });
  });

  it('a calendar not shared with the service account is "cannot check", never free', async () => {
    const error = await calendar({ calendar_id: 'outra@group.calendar.google.com' })
      .availability(dayQuery)
      .catch((e) => e);
    expect(error).toBeInstanceOf(CalendarUnavailableError);
    expect(error.message).toContain(`not shared with the service account ${account.client_email}`);
  });

  it('an empty span asks Google nothing', async () => {
    await expect(calendar().availability({ ...dayQuery, to: dayQuery.from })).resolves.toEqual({ kind: 'busy', busy: [] });
    expect(fake.requests).toEqual([]);
  });

  it("refuses 'primary' (the service account's own calendar)", () => {
    expect(() => calendar({ calendar_id: 'primary' })).toThrow(CalendarUnavailableError);
  });
});

describe('google calendar: create', () => {
  it("writes the appointment's event: its own id, title, times with offset and zone, private stamps, no attendees", async () => {
    const ref = await calendar().create(appointment());
    expect(ref).toEqual({ external_id: eventIdFor(7, 1234) });
    expect(ref.external_id).toMatch(/^[a-v0-9]{5,1024}$/);
    const [event] = fake.events(CAL);
    expect(event).toMatchObject({
      id: ref.external_id,
      status: 'confirmed',
      summary: 'Avaliação — Maria (LeadFlow)',
      start: { dateTime: '2026-12-02T14:30:00-03:00', timeZone: ZONE },
      end: { dateTime: '2026-12-02T15:30:00-03:00', timeZone: ZONE },
      extendedProperties: { private: { leadflowAgendamento: '1234', leadflowClinica: '7' } },
    });
    expect(event!.description).toContain('https://wa.me/5511999990001');
    expect(event!.attendees).toBeUndefined();
  });

  it('gives each event time the offset its zone has at that instant (a zone with summer time)', async () => {
    const lisbon = { time_zone: 'Europe/Lisbon' };
    await calendar().create(appointment({ ...lisbon, start: at('2026-10-20T13:00:00+01:00') }));
    await calendar().create(appointment({ ...lisbon, appointment_id: 1235, start: at('2026-11-20T12:00:00Z') }));
    expect(fake.events(CAL).map((e) => e.start)).toEqual([
      { dateTime: '2026-10-20T13:00:00+01:00', timeZone: 'Europe/Lisbon' },
      { dateTime: '2026-11-20T12:00:00+00:00', timeZone: 'Europe/Lisbon' },
    ]);
  });

  it('a lead without a name is titled by its phone', async () => {
    await calendar().create(appointment({ lead_name: '  ' }));
    expect(fake.events(CAL)[0]!.summary).toBe('Avaliação — +5511999990001 (LeadFlow)');
  });

  it('the same appointment gives the same id; another clinic or another namespace another one', () => {
    const a = appointment();
    expect(calendar().eventId(a)).toBe(calendar().eventId(a));
    expect(calendar().eventId({ ...a, clinic_id: 8 })).not.toBe(calendar().eventId(a));
    expect(calendar().eventId({ ...a, appointment_id: 1235 })).not.toBe(calendar().eventId(a));
    const named = calendar({ namespace: 'producao' }).eventId(a);
    expect(named).toMatch(/^[a-v0-9]{5,1024}$/);
    expect(named).not.toBe(calendar().eventId(a));
    expect(named).not.toBe(calendar({ namespace: 'homologacao' }).eventId(a));
  });

  it('repeated, it finds the event the first call made: one event', async () => {
    const google = calendar();
    const first = await google.create(appointment());
    const second = await calendar().create(appointment());
    expect(second).toEqual(first);
    expect(fake.events(CAL, true)).toHaveLength(1);
    expect(fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/events')).map((r) => r.status)).toEqual([200, 409]);
  });

  for (const lost of ['accept-then-hang', 'accept-then-reset'] as const) {
    it(`an insert Google made whose answer was lost (${lost}) is retried and found: exactly one event`, async () => {
      fake.fail(1, lost, { match: { method: 'POST', path: /\/events$/ } });
      const ref = await calendar({ timeoutMs: 300 }).create(appointment());
      expect(ref).toEqual({ external_id: eventIdFor(7, 1234) });
      expect(fake.events(CAL, true)).toHaveLength(1);
      expect(fake.count('POST', /\/events$/)).toBe(2);
      expect(fake.count('GET', /\/events\//)).toBe(1);
    });
  }

  it('an event Google does not show yet right after the 409 is looked for once more', async () => {
    await calendar().create(appointment());
    fake.fail(1, 404, { match: { method: 'GET' } });
    await expect(calendar().create(appointment())).resolves.toEqual({ external_id: eventIdFor(7, 1234) });
    expect(fake.count('GET', /\/events\//)).toBe(2);
  });

  it('after a crash and a move of the row, a repeated create puts the found event at the new times', async () => {
    await calendar().create(appointment());
    const later = appointment({ start: at('2026-12-03T10:00:00-03:00') });
    await calendar().create(later);
    expect(fake.events(CAL, true)).toHaveLength(1);
    expect(fake.events(CAL)[0]!.start).toEqual({ dateTime: '2026-12-03T10:00:00-03:00', timeZone: ZONE });
  });

  it('an id taken by another LeadFlow database (same clinic and appointment ids, another lead) is an error, not adopted', async () => {
    await calendar().create(appointment());
    const error = await calendar()
      .create(appointment({ lead_phone: '5521988880002', lead_name: 'João' }))
      .catch((e) => e);
    expect(error).toBeInstanceOf(CalendarUnavailableError);
    expect(error.message).toMatch(/taken by an event of another appointment/);
    expect(fake.events(CAL)).toHaveLength(1);
    expect(fake.events(CAL)[0]!.summary).toBe('Avaliação — Maria (LeadFlow)');
    await calendar({ namespace: 'homologacao' }).create(appointment({ lead_phone: '5521988880002', lead_name: 'João' }));
    expect(fake.events(CAL)).toHaveLength(2);
  });

  it('an appointment whose event was deleted is not booked again under the same id', async () => {
    const ref = await calendar().create(appointment());
    await calendar().cancel(ref, appointment(), 'lead cancelou');
    const error = await calendar()
      .create(appointment())
      .catch((e) => e);
    expect(error).toBeInstanceOf(CalendarUnavailableError);
    expect(error.message).toMatch(/was deleted/);
    expect(fake.events(CAL)).toEqual([]);
  });
});

describe('google calendar: move and cancel', () => {
  it('a move patches the same event to the new times', async () => {
    const google = calendar();
    const ref = await google.create(appointment());
    const moved = appointment({ start: at('2026-12-04T08:00:00-03:00') });
    await expect(google.move(ref, moved)).resolves.toEqual(ref);
    expect(fake.events(CAL, true)).toHaveLength(1);
    expect(fake.events(CAL)[0]).toMatchObject({
      id: ref.external_id,
      start: { dateTime: '2026-12-04T08:00:00-03:00', timeZone: ZONE },
      end: { dateTime: '2026-12-04T09:00:00-03:00', timeZone: ZONE },
      extendedProperties: { private: { leadflowAgendamento: '1234', leadflowClinica: '7' } },
    });
    expect(fake.count('PATCH', /\/events\//)).toBe(1);
  });

  it('a move of an event the staff deleted in Google makes a new event (never reusing the deleted id), the same on a repeat', async () => {
    const google = calendar();
    const ref = await google.create(appointment());
    fake.deleteByStaff(CAL, ref.external_id!);
    const moved = appointment({ start: at('2026-12-04T08:00:00-03:00') });
    const again = await google.move(ref, moved);
    expect(again.external_id).toBe(movedEventId(ref.external_id!, moved.start));
    expect(again.external_id).toMatch(/^[a-v0-9]{5,1024}$/);
    await expect(google.move(ref, moved)).resolves.toEqual(again);
    const live = fake.events(CAL);
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({ id: again.external_id, start: { dateTime: '2026-12-04T08:00:00-03:00' } });
  });

  it('a move of an event the staff turned into an all-day one makes it a timed one again', async () => {
    const google = calendar();
    const ref = await google.create(appointment());
    const event = fake.events(CAL)[0]!;
    event.start = { date: '2026-12-02' };
    event.end = { date: '2026-12-03' };
    await google.move(ref, appointment({ start: at('2026-12-04T08:00:00-03:00') }));
    expect(fake.events(CAL)[0]!.start).toEqual({ dateTime: '2026-12-04T08:00:00-03:00', timeZone: ZONE });
  });

  it('a move of a row that never got its event id creates it (or finds it)', async () => {
    await expect(calendar().move({ external_id: null }, appointment())).resolves.toEqual({ external_id: eventIdFor(7, 1234) });
    expect(fake.events(CAL)).toHaveLength(1);
  });

  it('cancel deletes the event; a second cancel (410 Gone) and one of an unknown event (404) are done', async () => {
    const google = calendar();
    const ref = await google.create(appointment());
    await google.cancel(ref, appointment(), 'motivo');
    await google.cancel(ref, appointment(), 'motivo');
    await google.cancel({ external_id: 'lf00000000000000000000000099' }, appointment(), 'motivo');
    expect(fake.events(CAL)).toEqual([]);
    expect(fake.events(CAL, true)[0]!.status).toBe('cancelled');
    expect(fake.requests.filter((r) => r.method === 'DELETE').map((r) => r.status)).toEqual([204, 410, 404]);
  });

  it("cancel of a row whose insert's answer was lost deletes the event Google made under the appointment's id", async () => {
    fake.fail(1, 'accept-then-hang', { match: { method: 'POST', path: /\/events$/ } });
    await expect(calendar({ timeoutMs: 300, attempts: 1 }).create(appointment())).rejects.toThrow(CalendarUnavailableError);
    expect(fake.events(CAL)).toHaveLength(1);
    await calendar().cancel({ external_id: null }, appointment(), 'motivo');
    expect(fake.events(CAL)).toEqual([]);
  });
});
