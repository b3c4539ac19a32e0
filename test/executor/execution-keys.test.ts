// Executions by key on one engine (memory store): flow.start / flow.cancel, a flow's
// `concurrency:` replacing its waiting execution, a cancel during a step or a wake, many starts
// for one key at once, and a queued start recorded but never queued (the process died) being driven.
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { defineNode } from '../../engine/types.js';
import { defaultRegistry } from '../../nodes/index.js';
import type { Scheduler } from '../../engine/scheduler/scheduler.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { makeEngine, shutdownEngines, sleep, stepOutput, until, waitForEnd } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

/** A flow parked for `ms` under the key trigger.body.phone, then calling `url`/after. */
const followup = (ms: number) => `
name: followup
concurrency: { key: "{{ trigger.body.phone }}" }
steps:
  - { id: pause, type: wait, params: { ms: ${ms} } }
  - { id: after, type: http.request, params: { url: "{{ trigger.body.url }}/after" } }
`;

const starter = `
name: starter
steps:
  - id: plan
    type: flow.start
    params: { flow: followup, input: { phone: "{{ trigger.body.phone }}", url: "{{ trigger.body.url }}" } }
`;

const canceller = `
name: canceller
steps:
  - id: drop
    type: flow.cancel
    params: { flow: followup, key: "{{ trigger.body.phone }}", reason: the lead answered }
`;

/** A scheduler that loses every schedule: a process killed right after recording a start, before queueing it. */
class LosingScheduler implements Scheduler {
  readonly durable = true;
  schedule(): void {}
  cancel(): void {}
  start(): void {}
  stop(): void {}
}

describe('flow.start and the flow concurrency key', () => {
  it('starts the flow without waiting, under its key; a second start for the key cancels the waiting one', async () => {
    const server = await startServer();
    const engine = makeEngine([followup(60_000), starter]);
    await engine.startScheduler();
    const body = { phone: '5511999', url: server.url };
    const first = await waitForEnd(engine, (await engine.start('starter', { body })).id);
    const firstId = stepOutput(first, 'plan').execution_id as string;
    expect(stepOutput(first, 'plan')).toEqual({ execution_id: firstId, key: '5511999', replaced: [] });
    expect(first.started_flows).toEqual([
      { step: 'plan', flow: 'followup', key: '5511999', input: body, execution_id: firstId, performed: true },
    ]);
    await until(async () => (await engine.store.get(firstId))?.status === 'waiting');

    const second = await waitForEnd(engine, (await engine.start('starter', { body })).id);
    const secondId = stepOutput(second, 'plan').execution_id as string;
    expect(stepOutput(second, 'plan').replaced).toEqual([firstId]);
    const cancelled = await engine.store.get(firstId);
    expect(cancelled).toMatchObject({ status: 'cancelled', replaced_by: secondId, stop_reason: `replaced by execution ${secondId}` });
    expect(cancelled?.finished_at).toBeDefined();
    expect(cancelled?.wake_at).toBeUndefined();
    expect((await engine.store.get(secondId))?.concurrency_key).toBe('5511999');
    // Another key is another singleton.
    await engine.start('starter', { body: { ...body, phone: '5511888' } });
    await until(async () => (await engine.store.listWaiting()).length === 2);
  });

  it('applies to every way of starting the flow (here Engine.start, as a webhook does); no key, no replace', async () => {
    const engine = makeEngine(followup(60_000));
    const a = await engine.start('followup', { body: { phone: '1' } });
    await a.settled;
    const b = await engine.start('followup', { body: { phone: '1' } });
    await b.settled;
    expect(b.replaced).toEqual([a.id]);
    expect((await engine.store.get(a.id))?.status).toBe('cancelled');
    const c = await engine.start('followup', { body: {} });
    const d = await engine.start('followup', { body: {} });
    await Promise.all([c.settled, d.settled]);
    expect([c.replaced, d.replaced]).toEqual([[], []]);
    expect((await engine.store.get(c.id))?.concurrency_key).toBeUndefined();
  });

  it('50 starts for one key at once leave exactly one unfinished execution, the others cancelled', async () => {
    const engine = makeEngine(followup(60_000));
    const handles = await Promise.all(Array.from({ length: 50 }, () => engine.start('followup', { body: { phone: 'k' } })));
    await Promise.all(handles.map((h) => h.settled));
    const all = await engine.store.list({ flow: 'followup', limit: 100 });
    expect(all).toHaveLength(50);
    expect(all.filter((r) => r.status === 'waiting')).toHaveLength(1);
    expect(all.filter((r) => r.status === 'cancelled')).toHaveLength(49);
  });
});

describe('flow.cancel', () => {
  it('cancels the waiting execution of a flow and key, which never resumes; nothing to cancel gives null', async () => {
    const server = await startServer();
    const engine = makeEngine([followup(150), starter, canceller]);
    await engine.startScheduler();
    const body = { phone: '55', url: server.url };
    const started = await waitForEnd(engine, (await engine.start('starter', { body })).id);
    const id = stepOutput(started, 'plan').execution_id as string;
    await until(async () => (await engine.store.get(id))?.status === 'waiting');
    const dropped = await waitForEnd(engine, (await engine.start('canceller', { body })).id);
    expect(stepOutput(dropped, 'drop')).toEqual({ cancelled: id });
    expect(dropped.cancelled_flows).toEqual([
      { step: 'drop', flow: 'followup', key: '55', reason: 'the lead answered', cancelled: id, performed: true },
    ]);
    await sleep(300);
    const record = await engine.store.get(id);
    expect(record).toMatchObject({ status: 'cancelled', stop_reason: 'the lead answered' });
    expect(record?.steps.map((s) => [s.id, s.status])).toEqual([['pause', 'waiting']]);
    expect(server.requests).toHaveLength(0);
    const again = await waitForEnd(engine, (await engine.start('canceller', { body })).id);
    expect(stepOutput(again, 'drop')).toEqual({ cancelled: null });
  });

  it('cancels a running execution: the step running finishes and is kept, no later step runs', async () => {
    const server = await startServer((req) => (req.path === '/slow' ? { delayMs: 300, json: { slow: true } } : { json: {} }));
    const engine = makeEngine([
      `
name: followup
concurrency: { key: "{{ trigger.body.phone }}" }
steps:
  - { id: slow, type: http.request, params: { url: "{{ trigger.body.url }}/slow" } }
  - { id: check, type: set, params: { values: { x: 1 } } }
  - { id: after, type: http.request, params: { url: "{{ trigger.body.url }}/after" } }
`,
      canceller,
    ]);
    await engine.startScheduler();
    const handle = await engine.start('followup', { body: { phone: '9', url: server.url } });
    await until(() => server.requests.length === 1);
    await waitForEnd(engine, (await engine.start('canceller', { body: { phone: '9' } })).id);
    // Final in the store at once; its drive ends after the step running.
    expect((await engine.store.get(handle.id))?.status).toBe('cancelled');
    expect((await handle.settled).status).toBe('cancelled');
    const record = (await engine.store.get(handle.id))!;
    expect(record.stop_reason).toBe('the lead answered');
    expect(record.steps.map((s) => [s.id, s.status])).toEqual([['slow', 'success']]);
    expect(stepOutput(record, 'slow').body).toEqual({ slow: true });
    expect(server.requests.map((r) => r.path)).toEqual(['/slow']);
  });

  it('a cancel during a read-only step: the step finishes, and no later step runs, read-only ones included', async () => {
    // A read-only step is not saved on its own; the run still asks the store before the next one.
    const entered: string[] = [];
    const slowRead = defineNode({
      type: 'test.slow-read',
      description: 'Reads slowly, changing nothing.',
      params: Type.Object({ label: Type.String() }),
      output: { description: '`{label}`' },
      examples: [],
      readOnly: true,
      async run(params) {
        entered.push(params.label);
        await sleep(params.label === 'lookup' ? 300 : 0);
        return { label: params.label };
      },
    });
    const engine = makeEngine(
      [
        `
name: followup
concurrency: { key: "{{ trigger.body.phone }}" }
steps:
  - { id: lookup, type: test.slow-read, params: { label: lookup } }
  - { id: check, type: test.slow-read, params: { label: check } }
  - { id: after, type: set, params: { values: { x: 1 } } }
`,
        canceller,
      ],
      { registry: defaultRegistry().register(slowRead as never) },
    );
    await engine.startScheduler();
    const handle = await engine.start('followup', { body: { phone: '9' } });
    await until(() => entered.length === 1);
    await waitForEnd(engine, (await engine.start('canceller', { body: { phone: '9' } })).id);
    expect((await handle.settled).status).toBe('cancelled');
    expect(entered).toEqual(['lookup']);
    const record = (await engine.store.get(handle.id))!;
    expect(record.steps.map((s) => [s.id, s.status])).toEqual([['lookup', 'success']]);
  });

  it('a cancel racing with the wake: it either ran the step and then ended cancelled, or never ran it; never both, never lost', async () => {
    const server = await startServer();
    for (let round = 0; round < 10; round++) {
      const engine = makeEngine([followup(40), canceller]);
      await engine.startScheduler();
      const url = `${server.url}/r${round}`;
      const handle = await engine.start('followup', { body: { phone: `p${round}`, url } });
      await handle.settled;
      await sleep(30 + (round % 5) * 3);
      const cancel = await engine.cancel('followup', `p${round}`, 'race');
      await waitForEnd(engine, handle.id);
      // Final in the store at once; a drive running the step then still stores its result.
      await until(() => !engine.runningIds().includes(handle.id));
      const record = (await engine.store.get(handle.id))!;
      const hits = server.requests.filter((r) => r.path === `/r${round}/after`).length;
      const after = record.steps.filter((s) => s.id === 'after');
      if (cancel.length === 1) {
        expect(record.status).toBe('cancelled');
        expect(after.length).toBe(hits);
        if (hits === 1) expect(after[0]?.status).toBe('success');
      } else {
        expect(record.status).toBe('success');
        expect(hits).toBe(1);
      }
      await engine.shutdown();
    }
  });

  it('in a dry run (flow test cases) a start and a cancel are recorded, not made', async () => {
    const engine = makeEngine([followup(60_000), starter, canceller]);
    const started = await waitForEnd(engine, (await engine.start('starter', { body: { phone: '7' } }, { dryRun: true })).id);
    expect(stepOutput(started, 'plan')).toEqual({ execution_id: null, key: '7', replaced: [] });
    expect(started.started_flows).toEqual([
      { step: 'plan', flow: 'followup', key: '7', input: { phone: '7' }, execution_id: null, performed: false },
    ]);
    const cancelled = await waitForEnd(engine, (await engine.start('canceller', { body: { phone: '7' } }, { dryRun: true })).id);
    expect(stepOutput(cancelled, 'drop')).toEqual({ cancelled: null });
    expect(cancelled.cancelled_flows?.[0]).toMatchObject({ flow: 'followup', key: '7', performed: false });
    expect(await engine.store.list({ flow: 'followup' })).toEqual([]);
  });
});

describe('queue mode', () => {
  it('a start recorded but never queued (the process died) is driven by the next process', async () => {
    const server = await startServer();
    const store = new MemoryExecutionStore();
    const dead = makeEngine([followup(0), starter], { store, queued: true, scheduler: new LosingScheduler() });
    const parent = await dead.start('starter', { body: { phone: '1', url: server.url } });
    // The parent was recorded and never queued either: the next process drives both.
    const next = makeEngine([followup(0), starter], { store, queued: true });
    await next.startScheduler();
    const parentRecord = await waitForEnd(next, parent.id);
    const childId = stepOutput(parentRecord, 'plan').execution_id as string;
    const child = await waitForEnd(next, childId);
    expect(child.status).toBe('success');
    expect(server.requests.map((r) => r.path)).toEqual(['/after']);
  });
});
