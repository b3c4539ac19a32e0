// wait `until`: an instant from an expression (ISO 8601 or epoch ms) instead of a duration; a past
// instant goes on at once; durable across a restart like every wait; exactly one of ms and until.
import { afterEach, describe, expect, it } from 'vitest';
import { loadFlowText } from '../../engine/load/loader.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { defaultRegistry } from '../../nodes/index.js';
import { makeEngine, shutdownEngines, stepRecord, waitForEnd } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

const flow = `
name: until-flow
steps:
  - id: pause
    type: wait
    params: { until: "{{ trigger.body.until }}" }
  - id: after
    type: set
    params: { values: { waited: "{{ steps.pause.waited_ms }}" } }
`;

describe('wait until', () => {
  it('waits until a future ISO timestamp (with an offset), then goes on', async () => {
    const engine = makeEngine(flow);
    await engine.startScheduler();
    const at = Date.now() + 200;
    // The same instant written with a -03:00 offset.
    const iso = new Date(at - 3 * 3600_000).toISOString().replace('Z', '-03:00');
    const handle = await engine.start('until-flow', { body: { until: iso } });
    const parked = await handle.settled;
    expect(parked.status).toBe('waiting');
    expect(parked.wake_at).toBe(at);
    const record = await waitForEnd(engine, handle.id);
    expect(Date.now()).toBeGreaterThanOrEqual(at);
    expect(record.status).toBe('success');
    expect(stepRecord(record, 'pause').output).toMatchObject({ until: new Date(at).toISOString() });
  });

  it('waits until a future instant in epoch ms', async () => {
    const engine = makeEngine(flow);
    await engine.startScheduler();
    const at = Date.now() + 150;
    const handle = await engine.start('until-flow', { body: { until: at } });
    expect((await handle.settled).wake_at).toBe(at);
    expect((await waitForEnd(engine, handle.id)).status).toBe('success');
  });

  it('an instant in the past goes on at once (ISO and epoch ms)', async () => {
    const engine = makeEngine(flow);
    for (const until of [new Date(Date.now() - 60_000).toISOString(), Date.now() - 1, '2001-01-01T00:00:00Z']) {
      const settled = await (await engine.start('until-flow', { body: { until } })).settled;
      expect(settled.status).toBe('success');
      expect(settled.wake_at).toBeUndefined();
    }
  });

  it('survives a restart: a new engine on the same store resumes the wait at its instant', async () => {
    const store = new MemoryExecutionStore();
    const first = makeEngine(flow, { store });
    const at = Date.now() + 300;
    const handle = await first.start('until-flow', { body: { until: new Date(at).toISOString() } });
    expect((await handle.settled).status).toBe('waiting');
    await first.shutdown();
    const second = makeEngine(flow, { store });
    await second.startScheduler();
    const record = await waitForEnd(second, handle.id);
    expect(record.status).toBe('success');
    expect(Date.now()).toBeGreaterThanOrEqual(at);
    expect(record.steps.filter((s) => s.id === 'pause')).toHaveLength(1);
  });

  it('fails the step on a value that is no instant', async () => {
    const engine = makeEngine(flow);
    const settled = await (await engine.start('until-flow', { body: { until: 'tomorrow' } })).settled;
    expect(settled.status).toBe('failed');
    expect(settled.error?.message).toContain('ISO 8601 timestamp or epoch ms');
  });

  it('takes exactly one of ms and until (a load problem otherwise)', () => {
    const registry = defaultRegistry();
    const both = loadFlowText('f.yaml', 'name: f\nsteps:\n  - { id: w, type: wait, params: { ms: 5, until: 5 } }\n', registry);
    const neither = loadFlowText('f.yaml', 'name: f\nsteps:\n  - { id: w, type: wait, params: {} }\n', registry);
    expect(both.flow).toBeUndefined();
    expect(neither.flow).toBeUndefined();
    expect(both.problems.length + neither.problems.length).toBeGreaterThanOrEqual(2);
  });
});
