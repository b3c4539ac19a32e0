// Durable waits: an execution parks in the store, the scheduler resumes it, finished steps are not
// run again, and a new engine on the same store picks the wait up (the restart sweep).
import { afterEach, describe, expect, it } from 'vitest';
import type { InProcessScheduler } from '../../engine/scheduler/in-process-scheduler.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { makeEngine, shutdownEngines, sleep, stepRecord, waitForEnd, stepOutput as output } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

const hitsOn = (server: { requests: Array<{ path: string }> }, path: string) => server.requests.filter((r) => r.path === path).length;

describe('wait and resume', () => {
  it('parks the execution in the store, and the scheduler resumes it without re-running earlier steps', async () => {
    const server = await startServer();
    const engine = makeEngine(`
name: pause
steps:
  - id: hit
    type: http.request
    params: { url: "{{ trigger.body.url }}/before" }
  - id: pause
    type: wait
    params: { ms: 250 }
  - id: after
    type: http.request
    params: { url: "{{ trigger.body.url }}/after", query: { seen: "{{ steps.hit.body.path }}" } }
`);
    await engine.startScheduler();
    const t0 = Date.now();
    const handle = await engine.start('pause', { body: { url: server.url } });
    const parked = await handle.settled;
    expect(parked.status).toBe('waiting');
    expect(parked.wake_at).toBeGreaterThanOrEqual(t0 + 250);
    expect(parked.wake_at).toBeLessThan(t0 + 250 + 1000);

    const stored = await engine.store.get(handle.id);
    expect(stored?.status).toBe('waiting');
    expect(stored?.wake_at).toBe(parked.wake_at);
    expect(stored?.finished_at).toBeUndefined();
    expect(stored?.steps.map((s) => [s.key, s.status])).toEqual([
      ['hit', 'success'],
      ['pause', 'waiting'],
    ]);
    expect(stepRecord(stored!, 'pause').state).toEqual({ started_at: expect.any(Number), wake_at: parked.wake_at });
    expect(await engine.store.listWaiting()).toEqual([{ id: handle.id, wake_at: parked.wake_at }]);
    expect((engine.scheduler as InProcessScheduler).size).toBe(1);
    expect(hitsOn(server, '/before')).toBe(1);
    expect(hitsOn(server, '/after')).toBe(0);

    const final = await waitForEnd(engine, handle.id);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(final.status).toBe('success');
    expect(final.wake_at).toBeUndefined();
    expect(hitsOn(server, '/before')).toBe(1);
    expect(hitsOn(server, '/after')).toBe(1);
    // The output of the step run before the wait is restored for later steps.
    expect(server.requests[1]!.query).toEqual({ seen: '/before' });
    expect(final.steps.filter((s) => s.id === 'hit')).toHaveLength(1);
    expect(stepRecord(final, 'hit').started_at).toBe(stepRecord(parked, 'hit').started_at);
    expect(output(final, 'pause').waited_ms).toBeGreaterThanOrEqual(250);
    expect(await engine.store.listWaiting()).toEqual([]);
  });

  it('a resume before the wake time parks again, keeping the original wake time', async () => {
    const server = await startServer();
    const engine = makeEngine(`
name: early
steps:
  - id: hit
    type: http.request
    params: { url: "{{ trigger.body.url }}" }
  - id: pause
    type: wait
    params: { ms: 300 }
`);
    await engine.startScheduler();
    const handle = await engine.start('early', { body: { url: server.url } });
    const parked = await handle.settled;
    await sleep(50);
    const again = await engine.resume(handle.id);
    expect(again?.status).toBe('waiting');
    expect(again?.wake_at).toBe(parked.wake_at);
    const final = await waitForEnd(engine, handle.id);
    expect(final.status).toBe('success');
    expect(Date.parse(final.finished_at!)).toBeGreaterThanOrEqual(parked.wake_at!);
    expect(server.requests).toHaveLength(1);
  });

  it('resumes a wait inside a foreach iteration', async () => {
    const server = await startServer();
    const engine = makeEngine(`
name: loop-wait
steps:
  - id: each
    type: foreach
    params: { items: [a, b] }
    do:
      - id: hit
        type: http.request
        params: { url: "{{ trigger.body.url }}/item", query: { item: "{{ item }}" } }
      - id: pause
        type: wait
        params: { ms: 60 }
      - id: done
        type: set
        params: { values: { item: "{{ item }}", index: "{{ index }}", hit: "{{ steps.hit.body.query.item }}" } }
  - id: after
    type: set
    params: { values: { count: "{{ steps.each.count }}" } }
`);
    await engine.startScheduler();
    const handle = await engine.start('loop-wait', { body: { url: server.url } });
    expect((await handle.settled).status).toBe('waiting');
    const final = await waitForEnd(engine, handle.id);
    expect(final.status).toBe('success');
    expect(server.requests.map((r) => r.query.item)).toEqual(['a', 'b']);
    expect(output(final, 'each').results.map((r: any) => r.done)).toEqual([
      { item: 'a', index: 0, hit: 'a' },
      { item: 'b', index: 1, hit: 'b' },
    ]);
    expect(output(final, 'after')).toEqual({ count: 2 });
    expect(final.steps.map((s) => s.key).sort()).toEqual([
      'after',
      'each',
      'each[0]/done',
      'each[0]/hit',
      'each[0]/pause',
      'each[1]/done',
      'each[1]/hit',
      'each[1]/pause',
    ]);
  });

  it('resumes waits inside concurrent foreach iterations, running each iteration once', async () => {
    const server = await startServer();
    const engine = makeEngine(`
name: loop-wait-concurrent
steps:
  - id: each
    type: foreach
    params: { items: [1, 2, 3], concurrency: 2 }
    do:
      - id: hit
        type: http.request
        params: { url: "{{ trigger.body.url }}", query: { item: "{{ item }}" } }
      - id: pause
        type: wait
        params: { ms: "{{ 40 * item }}" }
`);
    await engine.startScheduler();
    const handle = await engine.start('loop-wait-concurrent', { body: { url: server.url } });
    const final = await waitForEnd(engine, handle.id);
    expect(final.status).toBe('success');
    expect(server.requests.map((r) => r.query.item).sort()).toEqual(['1', '2', '3']);
    expect(output(final, 'each').results.map((r: any) => r.pause.waited_ms >= 40 * (r.hit.body.query.item as number))).toEqual([
      true,
      true,
      true,
    ]);
  });

  it('resumes a wait inside an if branch', async () => {
    const server = await startServer();
    const engine = makeEngine(`
name: branch-wait
steps:
  - id: branch
    type: if
    params: { condition: "{{ trigger.body.go }}" }
    then:
      - id: hit
        type: http.request
        params: { url: "{{ trigger.body.url }}" }
      - id: pause
        type: wait
        params: { ms: 80 }
      - id: inner
        type: set
        params: { values: { status: "{{ steps.hit.status }}" } }
  - id: after
    type: set
    params: { values: { inner: "{{ steps.inner.status }}", branch: "{{ steps.branch.branch }}" } }
`);
    await engine.startScheduler();
    const handle = await engine.start('branch-wait', { body: { url: server.url, go: true } });
    const parked = await handle.settled;
    expect(parked.status).toBe('waiting');
    expect(stepRecord(parked, 'branch').status).toBe('waiting');
    const final = await waitForEnd(engine, handle.id);
    expect(final.status).toBe('success');
    expect(server.requests).toHaveLength(1);
    expect(output(final, 'after')).toEqual({ inner: 200, branch: 'then' });
    expect(stepRecord(final, 'branch').status).toBe('success');
  });
});

describe('resume after a restart', () => {
  const flow = `
name: restart
steps:
  - id: before
    type: http.request
    params: { url: "{{ trigger.body.url }}/before" }
  - id: pause
    type: wait
    params: { ms: "{{ trigger.body.ms }}" }
  - id: after
    type: http.request
    params: { url: "{{ trigger.body.url }}/after" }
`;

  it('a new engine on the same store resumes the wait and completes it exactly once', async () => {
    const server = await startServer();
    const store = new MemoryExecutionStore();
    const a = makeEngine(flow, { store });
    await a.startScheduler();
    const handle = await a.start('restart', { body: { url: server.url, ms: 300 } });
    const parked = await handle.settled;
    expect(parked.status).toBe('waiting');
    await a.shutdown();

    const b = makeEngine(flow, { store });
    await b.startScheduler();
    expect((b.scheduler as InProcessScheduler).size).toBe(1);
    const final = await waitForEnd(b, handle.id);
    expect(final.status).toBe('success');
    expect(Date.parse(final.finished_at!)).toBeGreaterThanOrEqual(parked.wake_at!);
    expect(hitsOn(server, '/before')).toBe(1);
    expect(hitsOn(server, '/after')).toBe(1);

    // Nothing else wakes it later (engine A's timer is gone).
    await sleep(400);
    expect(hitsOn(server, '/after')).toBe(1);
    const stored = await store.get(handle.id);
    expect(stored?.status).toBe('success');
    expect(stored?.finished_at).toBe(final.finished_at);
    expect(await store.list()).toHaveLength(1);
  });

  it('an overdue wait is resumed at once by the sweep', async () => {
    const server = await startServer();
    const store = new MemoryExecutionStore();
    const a = makeEngine(flow, { store });
    await a.startScheduler();
    const handle = await a.start('restart', { body: { url: server.url, ms: 100 } });
    const parked = await handle.settled;
    await a.shutdown();
    await sleep(350);
    expect((await store.get(handle.id))?.status).toBe('waiting');
    expect(hitsOn(server, '/after')).toBe(0);

    const b = makeEngine(flow, { store });
    const sweepAt = Date.now();
    expect(sweepAt).toBeGreaterThan(parked.wake_at!);
    await b.startScheduler();
    const final = await waitForEnd(b, handle.id);
    expect(final.status).toBe('success');
    expect(Date.now() - sweepAt).toBeLessThan(1000);
    expect(output(final, 'pause').waited_ms).toBeGreaterThanOrEqual(350);
    expect(hitsOn(server, '/before')).toBe(1);
    expect(hitsOn(server, '/after')).toBe(1);
  });

  it('a shut-down engine does not resume its waits', async () => {
    const server = await startServer();
    const a = makeEngine(flow);
    await a.startScheduler();
    const handle = await a.start('restart', { body: { url: server.url, ms: 50 } });
    await handle.settled;
    await a.shutdown();
    await sleep(250);
    expect((await a.store.get(handle.id))?.status).toBe('waiting');
    expect(hitsOn(server, '/after')).toBe(0);
  });
});
