// A parent awaiting a child flow (call-flow) has a wake time of its own, a lease life away, so the
// sweep finds it when the child's end never woke it: engines on one store stand for processes, the
// one that ends the child never starting its scheduler (its wake of the parent dies with it), and a
// restarted one's sweep resumes the parent, which finishes with the child's output. Woken while the
// child still waits, the parent waits again with a new wake time. On the memory store and on the
// database (SQLite and PostgreSQL, each engine on a connection of its own).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import type { ExecutionStore } from '../../engine/store/execution-store.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { pollFor } from '../helpers/poll.js';
import { makeEngine, shutdownEngines, stepOutput, stepRecord, until, waitForEnd } from '../helpers/run-flow.js';

afterEach(() => shutdownEngines());

/** Waits trigger.body.ms, then answers v + 1. */
const child = `
name: child
steps:
  - { id: pause, type: wait, params: { ms: "{{ trigger.body.ms }}" } }
  - { id: result, type: set, params: { values: { v: "{{ trigger.body.v + 1 }}" } } }
`;

/** Calls the child, then keeps what it answered. */
const parent = `
name: parent
steps:
  - { id: call, type: call-flow, params: { flow: child, input: { v: 1, ms: "{{ trigger.body.ms }}" } } }
  - { id: after, type: set, params: { values: { got: "{{ steps.call }}" } } }
`;

const flows = [parent, child];
/** The lease life of the engine that parks the parent: its re-check interval. */
const LEASE_MS = 300;

/** A store per process, all on the same data. */
type Stores = () => ExecutionStore;

/**
 * Starts the parent in a process that never starts its scheduler, so nothing of it wakes anything
 * later, and stops that process once both are parked. Returns the parked parent and child.
 */
async function parkBoth(stores: Stores, childMs: number) {
  const first = makeEngine(flows, { store: stores(), leaseMs: LEASE_MS });
  const handle = await first.start('parent', { body: { ms: childMs } });
  const parked = await handle.settled;
  const [waitingChild] = await first.store.list({ flow: 'child' });
  await first.shutdown();
  return { parked, child: waitingChild! };
}

function wakeSuite(stores: Stores): void {
  it("the sweep resumes a parent whose child's end never woke it; it finishes with the child's output", async () => {
    const { parked, child: waiting } = await parkBoth(stores, 100);
    expect(parked.status).toBe('waiting');
    expect(waiting).toMatchObject({ status: 'waiting', parent_id: parked.id });

    // A process ends the child (its wait is due) and dies before the parent's wake fires: it never
    // started its scheduler, so the wake it scheduled is dropped with it.
    const ender = makeEngine(flows, { store: stores() });
    await until(() => Date.now() > waiting.wake_at!);
    expect((await ender.resume(waiting.id))?.status).toBe('success');
    await ender.shutdown();
    expect((await ender.store.get(parked.id))?.status).toBe('waiting');

    const restarted = makeEngine(flows, { store: stores() });
    await restarted.startScheduler();
    const done = await waitForEnd(restarted, parked.id);
    expect(done.status).toBe('success');
    expect(stepOutput(done, 'call')).toEqual({ v: 2 });
    expect(stepOutput(done, 'after')).toEqual({ got: { v: 2 } });
    expect((await restarted.store.list({ flow: 'child' })).map((r) => r.id)).toEqual([waiting.id]);
  });

  it('woken while its child still waits, the parent waits again with a new wake time', async () => {
    const { parked, child: waiting } = await parkBoth(stores, 60_000);
    const firstWake = parked.wake_at;
    expect(firstWake).toBeGreaterThan(Date.parse(parked.created_at));
    expect(await stores().listWaiting()).toEqual(expect.arrayContaining([{ id: parked.id, wake_at: firstWake }]));

    const restarted = makeEngine(flows, { store: stores(), leaseMs: LEASE_MS });
    await restarted.startScheduler();
    const again = await pollFor('the parent parked again', async () => {
      const record = await restarted.store.get(parked.id);
      return record?.status === 'waiting' && record.wake_at! > firstWake! ? record : undefined;
    });
    expect(stepRecord(again, 'call')).toMatchObject({ status: 'waiting', state: { child_id: waiting.id } });
    expect((await restarted.store.list({ flow: 'child' })).map((r) => [r.id, r.status])).toEqual([[waiting.id, 'waiting']]);
  });
}

describe('a parent awaiting a child flow [memory store]', () => {
  let store = new MemoryExecutionStore();
  beforeEach(() => {
    store = new MemoryExecutionStore();
  });
  wakeSuite(() => store);
});

forEachDatabase('a parent awaiting a child flow', (open) => {
  const t = useFreshDatabase(open);
  wakeSuite(() => new DbExecutionStore(t.current.openAnother()));
});
