// Every cancelled execution counts once in leadflow_executions_total{status="cancelled"}, in the
// process that cancelled it, whichever way: by key (Engine.cancel, as flow.cancel does), by id, or
// replaced by a newer execution of its key; waiting (no drive ends it) or running (its drive ends
// it, in whichever process, and does not count it again). A cancel by key answered again for the same
// step (run again after a crash) counts nothing more. Engines on one store stand for processes,
// each with its own metrics registry: on the memory store and on the database (SQLite and
// PostgreSQL, each engine on a connection of its own).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { createMetrics } from '../../adapters/metrics/metrics.js';
import type { Engine } from '../../engine/engine.js';
import type { ExecutionStore } from '../../engine/store/execution-store.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { parseMetrics, sampleValue } from '../helpers/metrics-text.js';
import { makeEngine, shutdownEngines, until } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

/** Parked for a minute under the key trigger.body.phone. */
const followup = `
name: followup
concurrency: { key: "{{ trigger.body.phone }}" }
steps:
  - { id: pause, type: wait, params: { ms: 60000 } }
  - { id: after, type: set, params: { values: { done: true } } }
`;

/** Two calls under the key trigger.body.phone: cancelled during the first, it makes no second. */
const calls = `
name: calls
concurrency: { key: "{{ trigger.body.phone }}" }
steps:
  - { id: slow, type: http.request, params: { url: "{{ trigger.body.url }}/slow" } }
  - { id: after, type: http.request, params: { url: "{{ trigger.body.url }}/after" } }
`;

/** One process: an engine on its own view of the store, with its own metrics. */
interface Process {
  engine: Engine;
  /** leadflow_executions_total{flow, status} as this process's /metrics text says (0 when absent). */
  total(flow: string, status: string): Promise<number>;
  /** leadflow_execution_duration_seconds_count{flow, status}. */
  drives(flow: string, status: string): Promise<number>;
}

function processOn(store: ExecutionStore): Process {
  const metrics = createMetrics({ defaultMetrics: false });
  const engine = makeEngine([followup, calls], { store, observer: metrics.observer });
  const read = async (name: string, flow: string, status: string) =>
    sampleValue(parseMetrics(await metrics.render()), name, { flow, status }) ?? 0;
  return {
    engine,
    total: (flow, status) => read('leadflow_executions_total', flow, status),
    drives: (flow, status) => read('leadflow_execution_duration_seconds_count', flow, status),
  };
}

/** Starts a followup under `phone` in `p` and waits until it is parked. */
async function parked(p: Process, phone: string): Promise<string> {
  const handle = await p.engine.start('followup', { body: { phone } });
  expect((await handle.settled).status).toBe('waiting');
  return handle.id;
}

function countSuite(stores: () => ExecutionStore): void {
  it('waiting ones cancelled by key, by id or replaced each count once, in the process that cancelled them', async () => {
    const starter = processOn(stores());
    await starter.engine.startScheduler();
    const other = processOn(stores());
    const [byKey, byId, replaced] = [await parked(starter, '1'), await parked(starter, '2'), await parked(starter, '3')];

    expect(await other.engine.cancel('followup', '1', 'the lead answered')).toEqual([byKey]);
    expect(await other.total('followup', 'cancelled')).toBe(1);
    expect((await other.engine.cancelExecution(byId, 'by an operator')).cancelled).toBe(true);
    expect(await other.total('followup', 'cancelled')).toBe(2);
    const newer = await other.engine.start('followup', { body: { phone: '3' } });
    expect(newer.replaced).toEqual([replaced]);
    expect(await other.total('followup', 'cancelled')).toBe(3);

    for (const id of [byKey, byId, replaced]) expect((await stores().get(id))?.status).toBe('cancelled');
    // The process that parked them counted their parks, not their cancels.
    expect(await starter.total('followup', 'waiting')).toBe(3);
    expect(await starter.total('followup', 'cancelled')).toBe(0);
  });

  it('a cancel by key answered again for the same step (run again after a crash) counts nothing more', async () => {
    const p = processOn(stores());
    await p.engine.startScheduler();
    const id = await parked(p, '4');
    const step = '00000000-0000-4000-a000-000000000001';
    expect(await p.engine.cancel('followup', '4', 'the lead answered', step)).toEqual([id]);
    // A step runs again only after its process died: later than the millisecond of the first cancel.
    const first = Date.parse((await stores().get(id))!.finished_at!);
    await until(() => Date.now() > first);
    expect(await p.engine.cancel('followup', '4', 'the lead answered', step)).toEqual([id]);
    expect(await p.total('followup', 'cancelled')).toBe(1);
  });

  it('a running one cancelled by key in another process counts once, there; its drive ends it here without counting it', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await startServer(async (req) => {
      if (req.path === '/slow') await gate;
      return { json: {} };
    });
    const driver = processOn(stores());
    await driver.engine.startScheduler();
    const canceller = processOn(stores());
    const handle = await driver.engine.start('calls', { body: { phone: '5', url: server.url } });
    await until(() => server.requests.length === 1);

    expect(await canceller.engine.cancel('calls', '5', 'the lead answered')).toEqual([handle.id]);
    release();
    // Its drive's end (a stored cancel is final at once for who awaits it).
    expect((await handle.settled).status).toBe('cancelled');
    expect(server.requests.map((r) => r.path)).toEqual(['/slow']);
    expect(await canceller.total('calls', 'cancelled')).toBe(1);
    expect(await driver.total('calls', 'cancelled')).toBe(0);
    // Its drive is still timed where it ran.
    expect(await driver.drives('calls', 'cancelled')).toBe(1);
  });

  it('a running one cancelled by id where it runs counts once', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await startServer(async (req) => {
      if (req.path === '/slow') await gate;
      return { json: {} };
    });
    const p = processOn(stores());
    await p.engine.startScheduler();
    const handle = await p.engine.start('calls', { body: { phone: '6', url: server.url } });
    await until(() => server.requests.length === 1);
    expect((await p.engine.cancelExecution(handle.id, 'by an operator')).cancelled).toBe(true);
    release();
    expect((await handle.settled).status).toBe('cancelled');
    expect(await p.total('calls', 'cancelled')).toBe(1);
  });
}

describe('cancelled executions counted [memory store]', () => {
  let store = new MemoryExecutionStore();
  beforeEach(() => {
    store = new MemoryExecutionStore();
  });
  countSuite(() => store);
});

forEachDatabase('cancelled executions counted', (open) => {
  const t = useFreshDatabase(open);
  countSuite(() => new DbExecutionStore(t.current.openAnother()));
});
