// Cancelling one execution by id on the database (SQLite and PostgreSQL), with two connections
// standing for two processes: the store's shared expectations (test/helpers/execution-records.ts),
// a cancel racing with a claim from the other process (never both: a claim never takes a cancelled
// one, and a cancel after a claim is one of a running execution), the erasing store forwarding it,
// and two engines: one parks an execution (and a parent awaiting it), the other cancels it by id;
// the wait never runs on, and the parent is woken and fails as with a cancel by key.
import { afterEach, expect, it } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { withErasure } from '../../engine/store/erasing-store.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { expectCancelById } from '../helpers/execution-records.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { makeEngine, shutdownEngines, sleep, until } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

function waiting(id: string): ExecutionRecord {
  const at = new Date().toISOString();
  return {
    id,
    flow: 'followup',
    status: 'waiting',
    trigger: { body: {} },
    vars: {},
    steps: [],
    outbound: [],
    dry_run: false,
    created_at: at,
    updated_at: at,
    wake_at: Date.now() + 60_000,
  };
}

/** Waits `ms` (from the body, default 60 s), then calls `url`/after: a wait cancelled in time calls nothing. */
const later = `
name: later
steps:
  - { id: pause, type: wait, params: { ms: "{{ $exists(trigger.body.ms) ? trigger.body.ms : 60000 }}" } }
  - { id: after, type: http.request, params: { url: "{{ trigger.body.url }}/after" } }
`;

/** Runs `later` as a child and waits for it; then calls `url`/parent-after (only if the child ended well). */
const parent = `
name: parent
steps:
  - { id: child, type: call-flow, params: { flow: later, input: { url: "{{ trigger.body.url }}" } } }
  - { id: after, type: http.request, params: { url: "{{ trigger.body.url }}/parent-after" } }
`;

/** Three calls in a row, without a key. */
const steps = `
name: steps
steps:
  - { id: slow, type: http.request, params: { url: "{{ trigger.body.url }}/slow" } }
  - { id: after, type: http.request, params: { url: "{{ trigger.body.url }}/after" } }
  - { id: last, type: http.request, params: { url: "{{ trigger.body.url }}/last" } }
`;

forEachDatabase('cancel an execution by id', (open) => {
  const t = useFreshDatabase(open);

  it('cancels one running or waiting execution; leaves the others alone; a claim never takes it after', async () => {
    await expectCancelById(new DbExecutionStore(t.current.db));
  });

  it('racing with a claim from another process: never both; the cancel ends it either way', async () => {
    const store = new DbExecutionStore(t.current.db);
    const other = new DbExecutionStore(t.current.openAnother());
    for (let i = 0; i < 12; i++) {
      const r = waiting(`00000000-0000-4000-a000-${String(i).padStart(12, '0')}`);
      await store.insert(r);
      const [claimed, from] = await Promise.all([
        store.claim(r.id, { owner: 'me', until: Date.now() + 30_000 }),
        other.cancelById(r.id, 'race'),
      ]);
      // Claimed first: the cancel is one of a running execution; else the claim found nothing to take.
      expect(from).toBe(claimed.record ? 'running' : 'waiting');
      if (claimed.record) {
        await store.update({ ...claimed.record, status: 'waiting', wake_at: Date.now() + 1000 });
        expect(await store.renewLease(r.id, { owner: 'me', until: Date.now() + 30_000 })).toBe(false);
      }
      const stored = (await store.get(r.id))!;
      expect(stored).toMatchObject({ status: 'cancelled', stop_reason: 'race' });
      expect(stored.wake_at).toBeUndefined();
      expect(await store.claim(r.id, { owner: 'me', until: Date.now() + 30_000 })).toEqual({});
      expect((await store.listRunning()).map((x) => x.id)).not.toContain(r.id);
    }
  });

  it('the erasing store over it forwards the cancel', async () => {
    const store = withErasure(new DbExecutionStore(t.current.db));
    await store.insert(waiting('w'));
    expect(await store.cancelById('w', 'through the decorator')).toBe('waiting');
    expect(await store.get('w')).toMatchObject({ status: 'cancelled', stop_reason: 'through the decorator' });
  });

  it('another process cancels a running execution without a key: its driver sees it at its next lease renewal and runs no other step', async () => {
    const server = await startServer((req) => (req.path === '/slow' ? { delayMs: 900, json: {} } : { json: {} }));
    // Lease of 1.2 s: renewed every 400 ms, so the cancel is seen while the slow step still runs.
    const driver = makeEngine(steps, { store: new DbExecutionStore(t.current.db), leaseMs: 1200 });
    const canceller = makeEngine(steps, { store: new DbExecutionStore(t.current.openAnother()) });
    await driver.startScheduler();
    const handle = await driver.start('steps', { body: { url: server.url } });
    await until(() => server.requests.length === 1);
    expect(await canceller.cancelExecution(handle.id, 'stop it')).toMatchObject({ cancelled: true });
    const settled = await handle.settled;
    expect(settled).toMatchObject({ status: 'cancelled', stop_reason: 'stop it' });
    const record = (await driver.store.get(handle.id))!;
    expect(record).toMatchObject({ status: 'cancelled', stop_reason: 'stop it' });
    expect(record.steps.map((x) => [x.id, x.status])).toEqual([['slow', 'success']]);
    await sleep(300);
    expect(server.requests.map((r) => r.path)).toEqual(['/slow']);
  });

  it('another process cancels a parked execution: it never runs on; its parent is woken and fails as with a cancel by key', async () => {
    const server = await startServer();
    const driver = makeEngine([later, parent], { store: new DbExecutionStore(t.current.db) });
    const canceller = makeEngine([later, parent], { store: new DbExecutionStore(t.current.openAnother()) });
    await driver.startScheduler();
    await canceller.startScheduler();

    const alone = await driver.start('later', { body: { url: server.url, ms: 400 } });
    expect((await alone.settled).status).toBe('waiting');
    const outcome = await canceller.cancelExecution(alone.id, 'not needed');
    expect(outcome.cancelled).toBe(true);
    expect(outcome.record).toMatchObject({ id: alone.id, status: 'cancelled', stop_reason: 'not needed' });
    await sleep(700);
    const record = (await driver.store.get(alone.id))!;
    expect(record.status).toBe('cancelled');
    expect(record.steps.map((s) => [s.id, s.status])).toEqual([['pause', 'waiting']]);
    // Asked again: no longer running or waiting, its status said.
    expect(await canceller.cancelExecution(alone.id, 'again')).toMatchObject({ cancelled: false, record: { status: 'cancelled' } });
    expect(await canceller.cancelExecution('no-such-id', 'x')).toEqual({ cancelled: false });

    const top = await driver.start('parent', { body: { url: server.url } });
    expect((await top.settled).status).toBe('waiting');
    const [child] = (await driver.store.list({ flow: 'later', status: 'waiting' })).filter((r) => r.parent_id === top.id);
    expect(child).toBeDefined();
    expect((await canceller.cancelExecution(child!.id, 'lead answered')).cancelled).toBe(true);
    // Woken by the canceller's process (it took the wake), so read from the store.
    await until(async () => (await driver.store.get(top.id))?.status === 'failed');
    const ended = (await driver.store.get(top.id))!;
    expect(ended.error?.message).toMatch(/was cancelled: lead answered/);
    await until(async () => driver.runningIds().length === 0 && canceller.runningIds().length === 0);
    expect(server.requests.map((r) => r.path)).toEqual([]);
  });
});
