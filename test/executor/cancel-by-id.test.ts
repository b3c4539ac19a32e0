// Engine.cancelExecution on one engine (memory store): a flow parked at a `wait` cancelled by id
// never resumes and counts once as cancelled in leadflow_executions_total; a parent awaiting it
// (call-flow) is woken and fails, as with a cancel by key; a running execution without a key
// finishes the step it is in and runs no other; an execution in another status or an unknown id is
// not cancelled.
import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics } from '../../adapters/metrics/metrics.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { parseMetrics, sampleValue } from '../helpers/metrics-text.js';
import { makeEngine, shutdownEngines, sleep, until, waitForEnd } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

/** Waits `ms` (default 60 s), then calls `url`/after. */
const later = `
name: later
steps:
  - { id: pause, type: wait, params: { ms: "{{ $exists(trigger.body.ms) ? trigger.body.ms : 60000 }}" } }
  - { id: after, type: http.request, params: { url: "{{ trigger.body.url }}/after" } }
`;

const parent = `
name: parent
steps:
  - { id: child, type: call-flow, params: { flow: later, input: { url: "{{ trigger.body.url }}", ms: 300 } } }
  - { id: after, type: http.request, params: { url: "{{ trigger.body.url }}/parent-after" } }
`;

/** Three calls in a row, without a key: only an execution cancelled by id can stop between them. */
const steps = `
name: steps
steps:
  - { id: slow, type: http.request, params: { url: "{{ trigger.body.url }}/slow" } }
  - { id: check, type: set, params: { values: { x: 1 } } }
  - { id: after, type: http.request, params: { url: "{{ trigger.body.url }}/after" } }
`;

const executionsTotal = async (metrics: ReturnType<typeof createMetrics>, flow: string, status: string) =>
  sampleValue(parseMetrics(await metrics.render()), 'leadflow_executions_total', { flow, status }) ?? 0;

describe('Engine.cancelExecution', () => {
  it('a waiting execution cancelled by id never resumes, and counts once as cancelled', async () => {
    const server = await startServer();
    const metrics = createMetrics({ defaultMetrics: false });
    const engine = makeEngine(later, { observer: metrics.observer });
    await engine.startScheduler();
    const handle = await engine.start('later', { body: { url: server.url, ms: 200 } });
    expect((await handle.settled).status).toBe('waiting');
    const ended = waitForEnd(engine, handle.id);

    const outcome = await engine.cancelExecution(handle.id, 'the lead answered');
    expect(outcome).toMatchObject({ cancelled: true, record: { id: handle.id, status: 'cancelled', stop_reason: 'the lead answered' } });
    // Who awaited its end is told at once.
    expect((await ended).status).toBe('cancelled');
    await sleep(400);
    const record = (await engine.store.get(handle.id))!;
    expect(record.status).toBe('cancelled');
    expect(record.wake_at).toBeUndefined();
    expect(record.finished_at).toBeDefined();
    expect(record.steps.map((s) => [s.id, s.status])).toEqual([['pause', 'waiting']]);
    expect(server.requests).toHaveLength(0);
    expect(await executionsTotal(metrics, 'later', 'cancelled')).toBe(1);
    expect(await executionsTotal(metrics, 'later', 'waiting')).toBe(1);
  });

  it('its parent awaiting it (call-flow) is woken and fails, as with a cancel by key', async () => {
    const server = await startServer();
    const engine = makeEngine([later, parent]);
    await engine.startScheduler();
    const top = await engine.start('parent', { body: { url: server.url } });
    expect((await top.settled).status).toBe('waiting');
    const child = (await engine.store.list({ flow: 'later' }))[0]!;
    expect(child).toMatchObject({ status: 'waiting', parent_id: top.id });
    expect((await engine.cancelExecution(child.id, 'not needed')).cancelled).toBe(true);
    const ended = await waitForEnd(engine, top.id);
    expect(ended.status).toBe('failed');
    expect(ended.error?.message).toContain(`flow "later" (execution ${child.id}) was cancelled: not needed`);
    await sleep(400);
    expect(server.requests).toHaveLength(0);
  });

  it('a running execution without a key finishes the step it is in, and no later step runs', async () => {
    const server = await startServer((req) => (req.path === '/slow' ? { delayMs: 300, json: { slow: true } } : { json: {} }));
    const metrics = createMetrics({ defaultMetrics: false });
    const engine = makeEngine(steps, { observer: metrics.observer });
    await engine.startScheduler();
    const handle = await engine.start('steps', { body: { url: server.url } });
    await until(() => server.requests.length === 1);
    const outcome = await engine.cancelExecution(handle.id, 'stop it');
    expect(outcome).toMatchObject({ cancelled: true, record: { status: 'cancelled', stop_reason: 'stop it' } });
    const settled = await handle.settled;
    expect(settled).toMatchObject({ status: 'cancelled', stop_reason: 'stop it' });
    const record = (await engine.store.get(handle.id))!;
    expect(record).toMatchObject({ status: 'cancelled', stop_reason: 'stop it' });
    expect(record.steps.map((s) => [s.id, s.status])).toEqual([['slow', 'success']]);
    expect(server.requests.map((r) => r.path)).toEqual(['/slow']);
    // Counted once, where it was cancelled (its drive's end does not count it again).
    expect(await executionsTotal(metrics, 'steps', 'cancelled')).toBe(1);
    expect(await executionsTotal(metrics, 'steps', 'success')).toBe(0);
  });

  it('leaves an execution in another status alone, and says when there is none', async () => {
    const engine = makeEngine(steps.replace(/\n {2}- \{ id: (slow|after).*$/gm, ''));
    await engine.startScheduler();
    const done = await waitForEnd(engine, (await engine.start('steps', { body: {} })).id);
    expect(done.status).toBe('success');
    expect(await engine.cancelExecution(done.id, 'late')).toMatchObject({ cancelled: false, record: { status: 'success' } });
    expect((await engine.store.get(done.id))!.stop_reason).toBeUndefined();
    expect(await engine.cancelExecution('nope', 'x')).toEqual({ cancelled: false });
  });
});
