import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeEngine, runFlow, shutdownEngines, stepRecord, waitForEnd } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

const flow = `
name: wait-flow
env:
  DELAY_MS: 100
steps:
  - id: pause
    type: wait
    params: { ms: "{{ $exists(trigger.body.ms) ? trigger.body.ms : env.DELAY_MS }}" }
  - id: after
    type: set
    params: { values: { waited: "{{ steps.pause.waited_ms }}" } }
`;

describe('wait', () => {
  it('with ms 0 does not suspend, and waited 0 ms however the clock moves meanwhile', async () => {
    const engine = makeEngine(flow);
    await engine.startScheduler();
    // A slow machine: every reading of the clock is a millisecond later than the one before.
    let clock = Date.now();
    const ticking = vi.spyOn(Date, 'now').mockImplementation(() => clock++);
    try {
      const handle = await engine.start('wait-flow', { body: { ms: 0 } });
      // The first drive finishes the execution: no parking.
      const settled = await handle.settled;
      expect(settled.status).toBe('success');
      expect(settled.wake_at).toBeUndefined();
      expect(stepRecord(settled, 'pause').output).toEqual({ waited_ms: 0 });
    } finally {
      ticking.mockRestore();
    }
  });

  it('suspends for ms (from env), records its wake time and state, and outputs how long it waited', async () => {
    const engine = makeEngine(flow, { env: { DELAY_MS: '150' } });
    await engine.startScheduler();
    const t0 = Date.now();
    const handle = await engine.start('wait-flow', { body: {} });
    const parked = await handle.settled;
    expect(parked.status).toBe('waiting');
    const pause = stepRecord(parked, 'pause');
    expect(pause.status).toBe('waiting');
    expect(pause.params).toEqual({ ms: 150 });
    const state = pause.state as { started_at: number; wake_at: number };
    expect(state.wake_at - state.started_at).toBe(150);
    expect(state.started_at).toBeGreaterThanOrEqual(t0);
    expect(parked.wake_at).toBe(state.wake_at);

    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('success');
    const waited = (stepRecord(record, 'pause').output as { waited_ms: number }).waited_ms;
    expect(waited).toBeGreaterThanOrEqual(150);
    expect(waited).toBeLessThan(1500);
    expect(stepRecord(record, 'after').output).toEqual({ waited });
    expect(stepRecord(record, 'pause').state).toBeUndefined();
  });

  it('rejects a negative or too long duration at run time', async () => {
    const negative = await runFlow(flow, { body: { ms: -5 } });
    expect(negative.record.status).toBe('failed');
    expect(negative.record.error?.message).toContain('step "pause" (wait): params.ms must be >= 0');
    const long = await runFlow(flow, { body: { ms: 32 * 24 * 3600 * 1000 } });
    expect(long.record.status).toBe('failed');
    expect(long.record.error?.message).toContain('params.ms must be <=');
  });
});
