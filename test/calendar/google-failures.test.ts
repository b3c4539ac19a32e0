// The Google calendar provider when Google fails (test/fakes/google-calendar-server.ts failing on
// demand): each kind ends in the right error within the call's deadline, what is safe is retried a
// bounded number of times, and no credential (key, assertion, token) shows in an error or log line.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CalendarUnavailableError, type ProviderAppointment, SlotUnavailableError } from '../../adapters/calendar/calendar.js';
import { GoogleCalendar, type GoogleCalendarOptions } from '../../adapters/calendar/google/google-calendar.js';
import { TokenCache } from '../../adapters/calendar/google/token-cache.js';
import { captureLogger } from '../helpers/capture-logger.js';
import {
  type FakeGoogleCalendar,
  type GoogleFailure,
  startFakeGoogleCalendar,
  testServiceAccount,
} from '../fakes/google-calendar-server.js';

const CAL = 'clinica.aurora@gmail.com';
const ZONE = 'America/Sao_Paulo';
const at = (text: string) => Date.parse(text);
const dayQuery = { from: at('2026-12-02T00:00:00-03:00'), to: at('2026-12-03T00:00:00-03:00'), duration_min: 60, time_zone: ZONE };
/** Deadline of one call in these tests, ms. */
const DEADLINE_MS = 1500;

let account: ReturnType<typeof testServiceAccount>;
let fake: FakeGoogleCalendar;
let log: ReturnType<typeof captureLogger>;
/** Every error message seen by any test, checked for credentials at the end. */
const messages: string[] = [];
/** Every token the fakes issued and every assertion they received. */
const secrets: string[] = [];

beforeAll(() => {
  account = testServiceAccount();
  log = captureLogger();
});

beforeEach(async () => {
  fake = await startFakeGoogleCalendar({ accounts: { [account.client_email]: account.publicKey } });
  fake.addCalendar(CAL, { [account.client_email]: 'writer' });
});

afterEach(async () => {
  secrets.push(...fake.issuedTokens, ...fake.requests.filter((r) => r.path === '/token').map((r) => String(r.body?.assertion)));
  await fake.close();
});

function calendar(extra: Partial<GoogleCalendarOptions> = {}): GoogleCalendar {
  return new GoogleCalendar({
    calendar_id: CAL,
    service_account: { client_email: account.client_email, private_key: account.private_key },
    base_url: fake.baseUrl,
    token_url: fake.tokenUrl,
    tokens: new TokenCache(),
    timeoutMs: 500,
    deadlineMs: DEADLINE_MS,
    baseDelayMs: 20,
    maxDelayMs: 100,
    logger: log.logger,
    ...extra,
  });
}

function appointment(overrides: Partial<ProviderAppointment> = {}): ProviderAppointment {
  const start = at('2026-12-02T14:30:00-03:00');
  return {
    appointment_id: 42,
    clinic_id: 3,
    start,
    end: start + 3_600_000,
    time_zone: ZONE,
    lead_name: 'Ana',
    lead_phone: '5511977770000',
    clinic_name: 'Clínica Aurora',
    ...overrides,
  };
}

/** The error `call` rejects with (recorded for the credential check), and how long it took, ms. */
async function failure(call: Promise<unknown>): Promise<{ error: any; ms: number }> {
  const started = performance.now();
  const error = await call.then(
    () => undefined,
    (e) => e,
  );
  if (error === undefined) throw new Error('expected the call to fail');
  messages.push(String(error.message));
  return { error, ms: performance.now() - started };
}

const api = (method: string) => fake.requests.filter((r) => r.method === method && r.path.startsWith('/calendar/v3/'));

describe('google calendar: failures end in the right error', () => {
  const persistent: Array<[string, GoogleFailure, number | undefined, number]> = [
    ['429 rate limit', { status: 429, retryAfter: '0' }, 429, 3],
    ['403 rateLimitExceeded', { status: 403, reason: 'rateLimitExceeded', message: 'Rate Limit Exceeded' }, 403, 3],
    ['500 backendError', 500, 500, 3],
    ['503', 503, 503, 3],
    ['a reset connection', 'reset', undefined, 3],
    ['403 requiredAccessLevel (not retried)', 403, 403, 1],
    ['403 quotaExceeded (not retried)', { status: 403, reason: 'quotaExceeded', message: 'Calendar usage limits exceeded.' }, 403, 1],
    ['400 badRequest (not retried)', 400, 400, 1],
  ];
  for (const [name, kind, status, attempts] of persistent) {
    it(`${name}: CalendarUnavailableError with the status after ${attempts} attempt(s)`, async () => {
      fake.fail(10, kind);
      const { error } = await failure(calendar().availability(dayQuery));
      expect(error).toBeInstanceOf(CalendarUnavailableError);
      expect(error.status).toBe(status);
      expect(error.message).toContain('POST /freeBusy');
      expect(api('POST')).toHaveLength(attempts);
    });
  }

  for (const [name, kind] of [
    ['429', { status: 429, retryAfter: '0' }],
    ['500', 500],
    ['a reset', 'reset'],
    ['403 userRateLimitExceeded', { status: 403, reason: 'userRateLimitExceeded' }],
  ] as Array<[string, GoogleFailure]>) {
    it(`one ${name} is retried and the call succeeds`, async () => {
      fake.fail(1, kind);
      await expect(calendar().availability(dayQuery)).resolves.toEqual({ kind: 'busy', busy: [] });
      expect(api('POST')).toHaveLength(2);
    });
  }

  it('a hanging Google ends in a timeout error within the deadline; the hang is retried while time is left', async () => {
    fake.fail(10, 'hang');
    const { error, ms } = await failure(calendar().availability(dayQuery));
    expect(error).toBeInstanceOf(CalendarUnavailableError);
    expect(error.message).toMatch(/timeout after \d+ ms on POST \/freeBusy/);
    expect(api('POST').length).toBeGreaterThanOrEqual(2);
    // The deadline contract (a tool answers within a few seconds), with room for a loaded machine.
    expect(ms).toBeLessThan(DEADLINE_MS + 2500);
  });

  it('a refused token (401) is replaced once: the call succeeds with a new token', async () => {
    const google = calendar();
    await google.availability(dayQuery);
    fake.fail(1, 401);
    await expect(google.availability(dayQuery)).resolves.toEqual({ kind: 'busy', busy: [] });
    expect(fake.count('POST', '/token')).toBe(2);
  });

  it('401 again after a new token: CalendarUnavailableError 401, no more attempts', async () => {
    fake.fail(10, 401);
    const { error } = await failure(calendar().create(appointment()));
    expect(error).toBeInstanceOf(CalendarUnavailableError);
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/HTTP 401 .*authError: Invalid Credentials/);
    expect(fake.count('POST', '/token')).toBe(2);
    expect(api('POST')).toHaveLength(2);
  });

  it('a calendar shared read-only refuses the insert with 403 requiredAccessLevel, not retried', async () => {
    fake.addCalendar(CAL, { [account.client_email]: 'freeBusyReader' });
    const { error } = await failure(calendar().create(appointment()));
    expect(error).toBeInstanceOf(CalendarUnavailableError);
    expect(error.message).toMatch(/HTTP 403 .*requiredAccessLevel/);
    expect(api('POST')).toHaveLength(1);
  });

  it('the token endpoint failing (500) is retried; hanging, it ends in a timeout', async () => {
    fake.fail(1, 500, { match: { path: /^\/token$/ } });
    await expect(calendar().availability(dayQuery)).resolves.toEqual({ kind: 'busy', busy: [] });
    expect(fake.count('POST', '/token')).toBe(2);
    fake.fail(10, 'hang', { match: { path: /^\/token$/ } });
    const { error } = await failure(calendar().availability(dayQuery));
    expect(error).toBeInstanceOf(CalendarUnavailableError);
    expect(error.message).toMatch(/timeout after \d+ ms on the token for POST \/freeBusy/);
  });

  it('a call that joined a hanging token request of another call ends in the same timeout on the token', async () => {
    fake.fail(10, 'hang', { match: { path: /^\/token$/ } });
    const tokens = new TokenCache();
    const first = failure(calendar({ tokens, attempts: 1 }).availability(dayQuery));
    await new Promise((r) => setTimeout(r, 250));
    // Joins the token request under way: its 500 ms run out ~250 ms before this call's own 500 ms.
    const joined = await failure(calendar({ tokens, attempts: 1 }).availability(dayQuery));
    expect(fake.count('POST', '/token')).toBe(1);
    // Ended by the joined request's timer, not by its own (which would take its whole 500 ms).
    expect(joined.ms).toBeLessThan(490);
    expect(joined.error).toBeInstanceOf(CalendarUnavailableError);
    expect(joined.error.message).toBe('google: timeout after 500 ms on the token for POST /freeBusy');
    expect((await first).error.message).toBe('google: timeout after 500 ms on the token for POST /freeBusy');
  });

  it('a 400 about the times is SlotUnavailableError; a 400 about something else is not', async () => {
    const reversed = appointment();
    reversed.end = reversed.start;
    const slot = await failure(calendar().create(reversed));
    expect(slot.error).toBeInstanceOf(SlotUnavailableError);
    expect(slot.error.message).toMatch(/timeRangeEmpty/);
    fake.fail(1, { status: 400, reason: 'invalid', message: 'Invalid start time.', location: 'start' });
    const start = await failure(calendar().create(appointment()));
    expect(start.error).toBeInstanceOf(SlotUnavailableError);
    fake.fail(1, { status: 400, reason: 'invalid', message: 'Invalid value for: summary' });
    const other = await failure(calendar().create(appointment()));
    expect(other.error).toBeInstanceOf(CalendarUnavailableError);
    expect(other.error).not.toBeInstanceOf(SlotUnavailableError);
  });

  it('a token Google would echo in its error is not shown', async () => {
    fake.fail(1, { status: 400, reason: 'invalid', message: 'Invalid header: Bearer $bearer' });
    const { error } = await failure(calendar().availability(dayQuery));
    expect(error.message).toContain('Invalid header: Bearer ***');
    expect(error.message).not.toContain(fake.issuedTokens[0]);
  });

  it("the caller's abort stops the call with the caller's reason", async () => {
    fake.fail(10, 'hang');
    const controller = new AbortController();
    const call = calendar().availability(dayQuery, controller.signal);
    setTimeout(() => controller.abort(new Error('tool call cancelled')), 50);
    await expect(call).rejects.toThrow('tool call cancelled');
  });

  it('retries are logged as warnings', () => {
    const retries = log.lines().filter((l) => l.msg === 'calendar call failed, retrying');
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toMatchObject({ calendar: 'google', call: 'POST /freeBusy' });
  });
});

describe('google calendar: credentials', () => {
  afterAll(() => {
    expect(messages.length).toBeGreaterThan(10);
  });

  it('no key, assertion or token in any error message or log line of this file', () => {
    const keyBody = account.private_key.split('\n').filter((line) => line && !line.startsWith('-----'));
    const texts = [...messages, log.text()];
    expect(secrets.length).toBeGreaterThan(10);
    for (const text of texts) {
      expect(text).not.toMatch(/PRIVATE KEY/);
      for (const line of keyBody) expect(text).not.toContain(line);
      for (const secret of secrets) {
        expect(text).not.toContain(secret);
        // Parts of an assertion or token (its signature, the token's random part).
        expect(text).not.toContain(secret.slice(-24));
      }
      expect(text).not.toMatch(/ya29\./);
    }
  });
});
