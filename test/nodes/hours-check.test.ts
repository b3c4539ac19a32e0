// hours.check in a flow: the clinic's hours at an instant (given, or the host clock's now), its output
// shape, and a malformed value failing the step. Also the settable clock the host may hand in.
import { afterEach, describe, expect, it } from 'vitest';
import { settableClock, systemClock } from '../../adapters/clock.js';
import { runFlow, shutdownEngines, sleep, stepOutput, stepRecord } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

const HOURS = JSON.stringify({
  timezone: 'America/Sao_Paulo',
  seg: '08:00-12:00,13:00-18:00',
  ter: '08:00-12:00,13:00-18:00',
  qua: '08:00-12:00,13:00-18:00',
  qui: '08:00-12:00,13:00-18:00',
  sex: '08:00-12:00,13:00-18:00',
  sab: '08:00-12:00',
  dom: '',
});

const flow = (params: string) => `
name: hours
steps:
  - id: hours
    type: hours.check
    params: ${params}
`;

const HOUR_MS = 3_600_000;

describe('hours.check', () => {
  it('open at the given instant: wait 0, the closing of the current interval, the summary line', async () => {
    const { record } = await runFlow(flow('{ hours: "{{ trigger.body.hours }}", at: "2025-03-14T10:00:00-03:00" }'), {
      body: { hours: HOURS },
    });
    expect(record.status).toBe('success');
    expect(stepOutput(record, 'hours')).toEqual({
      open: true,
      next_open_at: '2025-03-14T13:00:00.000Z',
      wait_ms: 0,
      closes_at: '2025-03-14T15:00:00.000Z',
      timezone: 'America/Sao_Paulo',
      summary: 'A clínica está aberta agora, até o meio-dia (horário de America/Sao_Paulo).',
    });
  });

  it('closed on Friday evening: the next opening is Saturday 08:00, 13 hours ahead', async () => {
    const at = Date.parse('2025-03-14T19:00:00-03:00');
    const { record } = await runFlow(flow('{ hours: "{{ trigger.body.hours }}", at: "{{ trigger.body.at }}" }'), {
      body: { hours: HOURS, at },
    });
    expect(stepOutput(record, 'hours')).toEqual({
      open: false,
      next_open_at: '2025-03-15T11:00:00.000Z',
      wait_ms: 13 * HOUR_MS,
      closes_at: null,
      timezone: 'America/Sao_Paulo',
      summary: 'A clínica está fechada agora; abre amanhã, sábado, às 08:00 (horário de America/Sao_Paulo).',
    });
  });

  it('without `at` it asks the host clock (ctx.services.clock) for now', async () => {
    const clock = settableClock(Date.parse('2025-03-15T12:30:00-03:00')); // Saturday, just closed
    const { record } = await runFlow(flow('{ hours: "{{ trigger.body.hours }}" }'), {
      body: { hours: HOURS },
      engine: { services: { clock } },
    });
    const out = stepOutput(record, 'hours');
    expect(out).toMatchObject({ open: false, next_open_at: '2025-03-17T11:00:00.000Z', closes_at: null });
    // Monday 08:00 is 43.5 hours after Saturday 12:30, less the little real time the run took.
    expect(43.5 * HOUR_MS - out.wait_ms).toBeGreaterThanOrEqual(0);
    expect(43.5 * HOUR_MS - out.wait_ms).toBeLessThan(5_000);
    expect(out.summary).toBe('A clínica está fechada agora; abre segunda-feira, 17/03, às 08:00 (horário de America/Sao_Paulo).');
  });

  it('without `at` nor a clock it is the system time', async () => {
    const before = Date.now();
    const { record } = await runFlow(flow('{ hours: null }'));
    const out = stepOutput(record, 'hours');
    expect(Date.parse(out.next_open_at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(out.next_open_at)).toBeLessThanOrEqual(Date.now());
  });

  it('takes the hours as an object; no hours is always open, with no zone', async () => {
    const { record } = await runFlow(
      `
name: hours
steps:
  - id: weekend
    type: hours.check
    params:
      hours: { timezone: America/New_York, sab: "10:00-14:00" }
      at: "1741442400000"
  - id: none
    type: hours.check
    params: { hours: null, at: 1741442400000 }
`,
    );
    // 1741442400000 is Saturday 2025-03-08 09:00 EST.
    expect(stepOutput(record, 'weekend')).toMatchObject({ open: false, next_open_at: '2025-03-08T15:00:00.000Z', wait_ms: HOUR_MS });
    expect(stepOutput(record, 'none')).toEqual({
      open: true,
      next_open_at: '2025-03-08T14:00:00.000Z',
      wait_ms: 0,
      closes_at: null,
      timezone: null,
      summary: 'A clínica atende a qualquer hora.',
    });
  });

  it('every day closed: never opens, wait_ms null', async () => {
    const { record } = await runFlow(flow('{ hours: { seg: "", dom: "" }, at: "2025-03-14T10:00:00-03:00" }'));
    expect(stepOutput(record, 'hours')).toMatchObject({ open: false, next_open_at: null, wait_ms: null, closes_at: null });
  });

  it('a malformed value fails the step naming the problem; so does a malformed instant', async () => {
    const bad = await runFlow(flow('{ hours: "{{ trigger.body.hours }}" }'), { body: { hours: '{"seg": "25:00-26:00"}' } });
    expect(bad.record.status).toBe('failed');
    expect(stepRecord(bad.record, 'hours').error).toMatchObject({
      name: 'BusinessHoursError',
      code: 'invalid-business-hours',
      message: 'invalid business hours: seg: "25:00-26:00": 25:00 is not a time between 00:00 and 24:00',
    });
    const badAt = await runFlow(flow('{ hours: null, at: "amanhã" }'));
    expect(stepRecord(badAt.record, 'hours').error?.message).toBe(
      'hours.check: at must be an ISO 8601 timestamp or epoch ms, got "amanhã"',
    );
  });
});

describe('settableClock', () => {
  it('reads the instant it was set to and advances in real time from it', async () => {
    const clock = settableClock(Date.parse('2025-03-14T10:00:00Z'));
    const first = clock.now();
    expect(first - Date.parse('2025-03-14T10:00:00Z')).toBeLessThan(50);
    await sleep(30);
    expect(clock.now() - first).toBeGreaterThanOrEqual(25);
    clock.set(0);
    expect(clock.now()).toBeLessThan(50);
    expect(() => clock.set(Number.NaN)).toThrow(/expected ms since the epoch/);
    expect(Math.abs(settableClock().now() - systemClock.now())).toBeLessThan(50);
  });
});
