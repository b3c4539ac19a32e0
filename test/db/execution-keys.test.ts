// Executions by key on the database, with two connections standing for two processes: starts for one
// key racing in both leave one unfinished execution; a cancel racing with the wake-up driven by
// the other process leaves a consistent record; a cancelled record keeps its cancellation when its
// driving process writes it again.
import { afterEach, expect, it } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import type { Scheduler } from '../../engine/scheduler/scheduler.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { makeEngine, shutdownEngines, sleep, until, waitForEnd } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

function record(id: string, key: string | undefined, status: ExecutionRecord['status'] = 'waiting'): ExecutionRecord {
  const at = new Date().toISOString();
  return {
    id,
    flow: 'followup',
    status,
    trigger: { body: {} },
    vars: {},
    steps: [],
    outbound: [],
    dry_run: false,
    created_at: at,
    updated_at: at,
    ...(key !== undefined ? { concurrency_key: key } : {}),
    ...(status === 'waiting' ? { wake_at: Date.now() + 60_000 } : {}),
  };
}

const followup = `
name: followup
concurrency: { key: "{{ trigger.body.phone }}" }
steps:
  - { id: pause, type: wait, params: { ms: 40 } }
  - { id: after, type: http.request, params: { url: "{{ trigger.body.url }}/after" } }
  - { id: last, type: http.request, params: { url: "{{ trigger.body.url }}/last" } }
`;

/** A scheduler that loses every schedule: a process killed right after recording a start, before queueing it. */
class LosingScheduler implements Scheduler {
  readonly durable = true;
  schedule(): void {}
  cancel(): void {}
  start(): void {}
  stop(): void {}
}

const starter = `
name: starter
steps:
  - id: plan
    type: flow.start
    params: { flow: followup, input: { phone: "{{ trigger.body.phone }}", url: "{{ trigger.body.url }}" } }
`;

forEachDatabase('executions by key', (open) => {
  const t = useFreshDatabase(open);

  it('50 starts for one key in parallel, from two processes, leave exactly one waiting execution', async () => {
    const stores = [new DbExecutionStore(t.current.db), new DbExecutionStore(t.current.openAnother())];
    const ids = Array.from({ length: 50 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const replaced = await Promise.all(ids.map((id, i) => stores[i % 2]!.insertReplacing(record(id, 'k'))));
    const all = await stores[0]!.list({ flow: 'followup', limit: 100 });
    expect(all.filter((r) => r.status === 'waiting')).toHaveLength(1);
    expect(all.filter((r) => r.status === 'cancelled')).toHaveLength(49);
    expect(replaced.flat().sort()).toEqual(
      all
        .filter((r) => r.status === 'cancelled')
        .map((r) => r.id)
        .sort(),
    );
    for (const r of all.filter((x) => x.status === 'cancelled')) {
      expect(r.replaced_by).toBeDefined();
      expect(r.stop_reason).toBe(`replaced by execution ${r.replaced_by}`);
      expect(r.finished_at).toBeDefined();
      expect(r.wake_at).toBeUndefined();
    }
  });

  it('50 Engine.start calls for one key across two engines leave exactly one waiting execution', async () => {
    const a = makeEngine(followup, { store: new DbExecutionStore(t.current.db) });
    const b = makeEngine(followup, { store: new DbExecutionStore(t.current.openAnother()) });
    const handles = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).start('followup', { body: { phone: 'x' } })));
    await Promise.all(handles.map((h) => h.settled));
    const all = await a.store.list({ flow: 'followup', limit: 100 });
    expect(all).toHaveLength(50);
    expect(all.filter((r) => r.status === 'waiting')).toHaveLength(1);
    expect(all.filter((r) => r.status === 'cancelled')).toHaveLength(49);
  });

  it('cancelByKey and claim racing: never both; a cancelled record keeps its cancellation when written again', async () => {
    const store = new DbExecutionStore(t.current.db);
    const other = new DbExecutionStore(t.current.openAnother());
    for (let i = 0; i < 10; i++) {
      const r = record(`00000000-0000-4000-9000-${String(i).padStart(12, '0')}`, `c${i}`);
      await store.insertReplacing(r);
      const [claimed, cancelled] = await Promise.all([
        store.claim(r.id, { owner: 'me', until: Date.now() + 30_000 }),
        other.cancelByKey('followup', `c${i}`, 'race'),
      ]);
      // The cancel always wins in the end (it also cancels a running execution); a claim that came
      // first took it running, and its driver ends it (the write below keeps the cancellation).
      expect(cancelled).toEqual([r.id]);
      if (claimed.record) {
        await store.update({
          ...claimed.record,
          status: 'waiting',
          wake_at: Date.now() + 1000,
          steps: [{ key: 's', id: 's', type: 'set', status: 'success', attempt: 1, started_at: r.created_at, ms: 1 }],
        });
      }
      const stored = await store.get(r.id);
      expect(stored).toMatchObject({ status: 'cancelled', stop_reason: 'race' });
      expect(stored?.wake_at).toBeUndefined();
      if (claimed.record) expect(stored?.steps.map((s) => s.id)).toEqual(['s']);
      expect(await store.claim(r.id, { owner: 'me', until: Date.now() + 30_000 })).toEqual({});
    }
    expect(await store.cancelByKey('followup', 'none', 'nothing')).toEqual([]);
  });

  it('a cancel from another process racing with the wake leaves a consistent record', async () => {
    const server = await startServer();
    for (let round = 0; round < 6; round++) {
      const driver = makeEngine(followup, { store: new DbExecutionStore(t.current.db) });
      const canceller = makeEngine(followup, { store: new DbExecutionStore(t.current.openAnother()) });
      await driver.startScheduler();
      const url = `${server.url}/r${round}`;
      const handle = await driver.start('followup', { body: { phone: `p${round}`, url } });
      await handle.settled;
      await sleep(25 + round * 5);
      const cancelled = await canceller.cancel('followup', `p${round}`, 'race');
      await sleep(200);
      // The drive that may still be running its step stores the end before the record is read.
      await until(async () => !driver.runningIds().includes(handle.id) && (await driver.store.get(handle.id))?.status !== 'waiting');
      const stored = (await driver.store.get(handle.id))!;
      const ran = (path: string) => server.requests.filter((r) => r.path === `/r${round}/${path}`).length;
      for (const id of ['after', 'last']) expect(stored.steps.filter((s) => s.id === id && s.status === 'success').length).toBe(ran(id));
      if (cancelled.length === 1) {
        expect(stored.status).toBe('cancelled');
        // At most the step running when the cancel came ran after it: never the whole rest.
        expect(ran('last') === 1 && ran('after') === 1 && stored.steps.length === 3).toBe(ran('last') === 1);
      } else {
        expect(stored.status).toBe('success');
        expect(ran('last')).toBe(1);
      }
      await driver.shutdown();
      await canceller.shutdown();
    }
  });

  it('a started execution of a flow with a key drives to its end when not replaced', async () => {
    const server = await startServer();
    const engine = makeEngine(followup, { store: new DbExecutionStore(t.current.db) });
    await engine.startScheduler();
    const handle = await engine.start('followup', { body: { phone: 'solo', url: server.url } });
    const final = await waitForEnd(engine, handle.id);
    expect(final.status).toBe('success');
    expect(final.concurrency_key).toBe('solo');
  });

  it('queue mode: a start recorded but not queued when its process died is driven by another process', async () => {
    const server = await startServer();
    const dead = makeEngine([followup, starter], {
      store: new DbExecutionStore(t.current.db),
      queued: true,
      scheduler: new LosingScheduler(),
    });
    const parent = await dead.start('starter', { body: { phone: 'q', url: server.url } });
    await dead.shutdown();
    const next = makeEngine([followup, starter], { store: new DbExecutionStore(t.current.openAnother()), queued: true });
    await next.startScheduler();
    const parentRecord = await waitForEnd(next, parent.id);
    const childId = parentRecord.steps[0]?.output as { execution_id: string };
    const child = await waitForEnd(next, childId.execution_id);
    expect(child).toMatchObject({ status: 'success', concurrency_key: 'q' });
    expect(server.requests.map((r) => r.path)).toEqual(['/after', '/last']);
  });
});
