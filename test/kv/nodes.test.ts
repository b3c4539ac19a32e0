// The debounce, dedupe and lock node types in real flows (YAML -> loader -> Engine with its
// scheduler), on the in-process store and on Redis. Timing margins are wide (quiet periods of
// hundreds of ms against gaps of ~20 ms) so a busy machine does not split a burst.
import { setTimeout as delay } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import { afterEach, expect, it } from 'vitest';
import type { Engine } from '../../engine/engine.js';
import type { ExecutionHandle } from '../../engine/engine-options.js';
import { NodeRegistry, nodeList } from '../../engine/registry.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { defineNode, type ExecutionRecord } from '../../engine/types.js';
import { kvNodes } from '../../nodes/data/index.js';
import { coreNodes } from '../../nodes/index.js';
import { forEachKeyValue, useFreshKeyValue } from '../helpers/key-values.js';
import { makeEngine, runFlow, shutdownEngines, sleep, stepOutput, stepRecord, waitForEnd, type EngineExtras } from '../helpers/run-flow.js';

/** Test only: holds the step for `ms` without parking the execution, recording when it ran. */
const hold = defineNode({
  type: 'test.hold',
  description: 'Test only: keeps the step running for ms, then outputs when it started and ended.',
  params: Type.Object(
    { ms: Type.Integer({ minimum: 0, default: 0, description: 'How long, ms.', examples: [100] }) },
    { additionalProperties: false },
  ),
  output: { description: '`{started, ended}` in ms since epoch.' },
  examples: [{ title: 'Hold', step: { type: 'test.hold', params: { ms: 100 } } }],
  async run(params, ctx) {
    const started = Date.now();
    await delay(params.ms, undefined, { signal: ctx.signal });
    return { started, ended: Date.now() };
  },
});

/** Test only: always fails. */
const fail = defineNode({
  type: 'test.fail',
  description: 'Test only: fails with a fixed message every time it runs.',
  params: Type.Object({}, { additionalProperties: false }),
  output: { description: 'Never outputs.' },
  examples: [{ title: 'Fail', step: { type: 'test.fail', params: {} } }],
  async run() {
    throw new Error('child exploded');
  },
});

const registry = new NodeRegistry([...coreNodes, ...kvNodes, ...nodeList(hold, fail)]);

afterEach(shutdownEngines);

const DEBOUNCE_FLOW = `
name: burst
env:
  QUIET_MS: 300
  MAX_MS: 20000
steps:
  - id: group
    type: debounce
    params:
      key: "{{ trigger.body.lead }}"
      message_id: "{{ trigger.body.id }}"
      message: { text: "{{ trigger.body.text }}" }
      quiet_ms: "{{ env.QUIET_MS }}"
      max_hold_ms: "{{ env.MAX_MS }}"
  - id: answer
    type: if
    params: { condition: "{{ steps.group.leader }}" }
    then:
      - id: reply
        type: set
        params: { values: { texts: "{{ steps.group.messages.text }}" } }
`;

interface Group {
  leader: boolean;
  messages: Array<{ text: string }>;
  ids: string[];
}
const group = (record: ExecutionRecord): Group => stepOutput(record, 'group');

forEachKeyValue('debounce, dedupe and lock nodes', (open) => {
  const store = useFreshKeyValue(open);

  function engineWith(yaml: string, extras: EngineExtras = {}): Engine {
    return makeEngine(yaml, { registry, services: { kv: store.current.kv }, ...extras });
  }

  /** Starts one execution per text, `gapMs` apart; resolves with the handles and when each was started. */
  async function send(
    engine: Engine,
    lead: string,
    texts: string[],
    gapMs: number,
    idPrefix = lead,
  ): Promise<{ handles: ExecutionHandle[]; startedAt: number[] }> {
    const handles: ExecutionHandle[] = [];
    const startedAt: number[] = [];
    for (const [i, text] of texts.entries()) {
      if (i > 0) await sleep(gapMs);
      startedAt.push(Date.now());
      handles.push(await engine.start('burst', { body: { lead, id: `${idPrefix}-${i}`, text } }));
    }
    return { handles, startedAt };
  }

  const ends = (engine: Engine, handles: ExecutionHandle[]) => Promise.all(handles.map((h) => waitForEnd(engine, h.id)));

  it('debounce: a burst of 5 messages gets exactly one leader, the last, with all 5 in order', async () => {
    const engine = engineWith(DEBOUNCE_FLOW);
    await engine.startScheduler();
    const texts = ['oi', 'tudo bem?', 'ok', 'ok', 'queria saber o preço'];
    const { handles, startedAt } = await send(engine, 'lead-1', texts, 20);
    const records = await ends(engine, handles);

    expect(records.map((r) => r.status)).toEqual(Array(5).fill('success'));
    expect(records.map((r) => group(r).leader)).toEqual([false, false, false, false, true]);
    const leader = records[4]!;
    expect(group(leader).messages.map((m) => m.text)).toEqual(texts);
    expect(group(leader).ids).toEqual(['lead-1-0', 'lead-1-1', 'lead-1-2', 'lead-1-3', 'lead-1-4']);
    expect(stepOutput(leader, 'reply')).toEqual({ texts });
    for (const r of records.slice(0, 4)) {
      expect(group(r)).toEqual({ leader: false, messages: [], ids: [] });
      expect(stepOutput(r, 'answer')).toMatchObject({ branch: 'none' });
    }
    // The quiet period ran from the last message.
    expect(Date.parse(leader.finished_at!) - startedAt[4]!).toBeGreaterThanOrEqual(300 - 5);
    expect(await store.current.kv.bufferPeek('lead-1')).toBeNull();

    // A message after the window starts a new burst of its own.
    const later = await send(engine, 'lead-1', ['mais uma coisa'], 0, 'lead-1-later');
    const [after] = await ends(engine, later.handles);
    expect(group(after!)).toEqual({ leader: true, messages: [{ text: 'mais uma coisa' }], ids: ['lead-1-later-0'] });
  });

  it('debounce: parks durably until the quiet period ends, with its wake time in the step state', async () => {
    const engine = engineWith(DEBOUNCE_FLOW);
    await engine.startScheduler();
    const handle = await engine.start('burst', { body: { lead: 'lead-1', id: 'm1', text: 'oi' } });
    const parked = await handle.settled;
    expect(parked.status).toBe('waiting');
    const state = stepRecord(parked, 'group').state as { pushed: boolean; pushed_at: number; first_at: number; wake_at: number };
    expect(state.pushed).toBe(true);
    expect(state.wake_at - state.first_at).toBe(300);
    expect(parked.wake_at).toBe(state.wake_at);
    expect((await store.current.kv.bufferPeek('lead-1'))?.entries.map((e) => e.id)).toEqual(['m1']);
    const record = await waitForEnd(engine, handle.id);
    expect(group(record)).toEqual({ leader: true, messages: [{ text: 'oi' }], ids: ['m1'] });
    expect(stepRecord(record, 'group').state).toBeUndefined();
  });

  it('debounce: leads are grouped independently, and a redelivered message id counts once', async () => {
    const engine = engineWith(DEBOUNCE_FLOW);
    await engine.startScheduler();
    const handles: ExecutionHandle[] = [];
    const bodies = [
      { lead: 'ana', id: 'a1', text: 'oi' },
      { lead: 'bia', id: 'b1', text: 'olá' },
      { lead: 'ana', id: 'a2', text: 'ok' },
      { lead: 'ana', id: 'a2', text: 'ok' }, // the provider delivered a2 twice
      { lead: 'bia', id: 'b2', text: 'ok' },
    ];
    for (const body of bodies) {
      handles.push(await engine.start('burst', { body }));
      await sleep(15);
    }
    const records = await ends(engine, handles);
    const leaders = records.filter((r) => group(r).leader).map(group);
    expect(leaders).toHaveLength(2);
    expect(leaders.find((g) => g.ids[0] === 'a1')).toEqual({ leader: true, messages: [{ text: 'oi' }, { text: 'ok' }], ids: ['a1', 'a2'] });
    expect(leaders.find((g) => g.ids[0] === 'b1')).toEqual({
      leader: true,
      messages: [{ text: 'olá' }, { text: 'ok' }],
      ids: ['b1', 'b2'],
    });
  });

  it('debounce: max_hold_ms bounds a burst that never goes quiet; every message is answered once, in order', async () => {
    const engine = engineWith(DEBOUNCE_FLOW, { env: { QUIET_MS: '400', MAX_MS: '800' } });
    await engine.startScheduler();
    // 25 messages 60 ms apart: ~1.5 s without a quiet period of 400 ms.
    const texts = Array.from({ length: 25 }, (_, i) => `msg ${i}`);
    const { handles, startedAt } = await send(engine, 'chatty', texts, 60);
    const records = await ends(engine, handles);
    const leaders = records.filter((r) => group(r).leader).sort((a, b) => Date.parse(a.finished_at!) - Date.parse(b.finished_at!));
    expect(leaders.length).toBeGreaterThanOrEqual(2);
    // Nothing lost, nothing twice, order kept across the bursts.
    expect(leaders.flatMap((r) => group(r).messages.map((m) => m.text))).toEqual(texts);
    // The first burst was answered while messages were still coming, not after the last one.
    expect(Date.parse(leaders[0]!.finished_at!)).toBeLessThan(startedAt[24]!);
    expect(Date.parse(leaders[0]!.finished_at!) - startedAt[0]!).toBeGreaterThanOrEqual(800 - 5);
  });

  it('debounce: resumed before its wake time (e.g. handed back by a shutdown), it parks again without pushing or draining', async () => {
    const engine = engineWith(DEBOUNCE_FLOW, { env: { QUIET_MS: '400' } });
    await engine.startScheduler();
    const handle = await engine.start('burst', { body: { lead: 'lead-1', id: 'm1', text: 'oi' } });
    const parked = await handle.settled;
    const early = await engine.resume(handle.id);
    expect(early?.status).toBe('waiting');
    expect(early?.wake_at).toBe(parked.wake_at);
    expect((await store.current.kv.bufferPeek('lead-1'))?.count).toBe(1);
    const record = await waitForEnd(engine, handle.id);
    expect(group(record)).toEqual({ leader: true, messages: [{ text: 'oi' }], ids: ['m1'] });
    expect(Date.parse(record.finished_at!)).toBeGreaterThanOrEqual(parked.wake_at!);
  });

  it('debounce: quiet_ms 0 answers at once without parking', async () => {
    const engine = engineWith(DEBOUNCE_FLOW, { env: { QUIET_MS: '0' } });
    await engine.startScheduler();
    const handle = await engine.start('burst', { body: { lead: 'lead-1', id: 'm1', text: 'oi' } });
    const settled = await handle.settled;
    expect(settled.status).toBe('success');
    expect(group(settled)).toEqual({ leader: true, messages: [{ text: 'oi' }], ids: ['m1'] });
  });

  for (const downtime of ['within the window', 'longer than the window']) {
    it(`debounce: a restart ${downtime} still answers the burst, exactly once`, async () => {
      const executions = new MemoryExecutionStore();
      const a = engineWith(DEBOUNCE_FLOW, { store: executions });
      await a.startScheduler();
      const { handles } = await send(a, 'lead-r', ['um', 'dois', 'três'], 20);
      const parked = await Promise.all(handles.map((h) => h.settled));
      expect(parked.map((r) => r.status)).toEqual(['waiting', 'waiting', 'waiting']);
      await a.shutdown();
      if (downtime !== 'within the window') await sleep(600);
      // Nothing answered while no engine ran.
      for (const h of handles) expect((await executions.get(h.id))?.status).toBe('waiting');
      expect((await store.current.kv.bufferPeek('lead-r'))?.count).toBe(3);

      // Engine B: a new process on the same executions store and the same key-value data.
      const b = makeEngine(DEBOUNCE_FLOW, { registry, store: executions, services: { kv: store.current.openAnother() } });
      await b.startScheduler();
      const records = await ends(b, handles);
      expect(records.map((r) => r.status)).toEqual(['success', 'success', 'success']);
      const leaders = records.filter((r) => group(r).leader);
      expect(leaders).toHaveLength(1);
      expect(group(leaders[0]!).messages.map((m) => m.text)).toEqual(['um', 'dois', 'três']);
      expect(await store.current.kv.bufferPeek('lead-r')).toBeNull();
    });
  }

  it('debounce: fails with a clear error when the host gave no key-value store', async () => {
    const { record } = await runFlow(DEBOUNCE_FLOW, { body: { lead: 'l', id: 'm', text: 'oi' }, engine: { registry } });
    expect(record.status).toBe('failed');
    expect(record.error?.message).toContain('step "group" needs a key-value store, but none is configured (services.kv is missing)');
  });

  const DEDUPE_FLOW = `
name: once
steps:
  - id: seen
    type: dedupe
    params: { key: "{{ trigger.body.id }}", ttl_ms: 400 }
  - id: gate
    type: if
    params: { condition: "{{ $not(steps.seen.first) }}" }
    then:
      - id: duplicate
        type: stop
        params: { reason: duplicate message }
  - id: work
    type: set
    params: { values: { done: true } }
`;

  it('dedupe: the first execution with a key goes on, a repeat within the ttl stops, after the ttl it goes on again', async () => {
    const engine = engineWith(DEDUPE_FLOW);
    await engine.startScheduler();
    const run = async (id: string) => waitForEnd(engine, (await engine.start('once', { body: { id } })).id);
    const first = await run('msg-1');
    expect(first.status).toBe('success');
    expect(stepOutput(first, 'seen')).toEqual({ first: true });
    expect(stepOutput(first, 'work')).toEqual({ done: true });
    const repeat = await run('msg-1');
    expect(repeat.status).toBe('stopped');
    expect(stepOutput(repeat, 'seen')).toEqual({ first: false });
    expect(repeat.steps.some((s) => s.id === 'work')).toBe(false);
    expect((await run('msg-2')).status).toBe('success');
    await sleep(700);
    expect(stepOutput(await run('msg-1'), 'seen')).toEqual({ first: true });
  });

  const LOCK_FLOW = `
name: locked
steps:
  - id: guard
    type: lock
    params:
      key: "{{ trigger.body.lead }}"
      ttl_ms: "{{ $exists(trigger.body.ttl_ms) ? trigger.body.ttl_ms : 5000 }}"
      wait_ms: "{{ $exists(trigger.body.wait_ms) ? trigger.body.wait_ms : 10000 }}"
      poll_ms: 20
    do:
      - id: work
        type: test.hold
        params: { ms: "{{ $exists(trigger.body.hold_ms) ? trigger.body.hold_ms : 300 }}" }
`;
  type Hold = { started: number; ended: number };
  const held = (r: ExecutionRecord): Hold => stepOutput(r, 'guard').outputs.work;

  it('lock: two executions for one key run their steps one after the other; different keys run at once', async () => {
    const engine = engineWith(LOCK_FLOW);
    await engine.startScheduler();
    const start = (lead: string) => engine.start('locked', { body: { lead } });
    const handles = await Promise.all([start('ana'), start('ana'), start('bia')]);
    const [ana1, ana2, bia] = await ends(engine, handles);
    for (const r of [ana1, ana2, bia]) expect(r!.status).toBe('success');
    const [first, second] = [held(ana1!), held(ana2!)].sort((x, y) => x.started - y.started);
    expect(second!.started).toBeGreaterThanOrEqual(first!.ended);
    // The other key did not wait for "ana": its hold overlapped the first one.
    expect(held(bia!).started).toBeLessThan(first!.ended);
    const waited = [ana1, ana2].map((r) => stepOutput(r!, 'guard').waited_ms as number).sort((x, y) => x - y);
    expect(waited[1]).toBeGreaterThanOrEqual(200);
    expect(await store.current.kv.acquireLock('ana', 1000)).not.toBeNull();
  });

  it('lock: fails with a clear error when the lock stays taken beyond wait_ms, without running its steps', async () => {
    const token = await store.current.kv.acquireLock('ana', 60_000);
    const engine = engineWith(LOCK_FLOW);
    await engine.startScheduler();
    const handle = await engine.start('locked', { body: { lead: 'ana', wait_ms: 200 } });
    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('failed');
    expect(record.error?.message).toContain('could not acquire lock "ana" within 200 ms');
    expect(record.steps.some((s) => s.id === 'work')).toBe(false);
    // The holder's lock is untouched.
    expect(await store.current.kv.releaseLock('ana', token!)).toBe(true);
  });

  it('lock: is released when a step inside fails', async () => {
    const engine = engineWith(`
name: locked-fail
steps:
  - id: guard
    type: lock
    params: { key: ana }
    do:
      - id: boom
        type: test.fail
        params: {}
`);
    await engine.startScheduler();
    const record = await waitForEnd(engine, (await engine.start('locked-fail', { body: {} })).id);
    expect(record.status).toBe('failed');
    expect(record.error?.message).toContain('child exploded');
    expect(await store.current.kv.acquireLock('ana', 1000)).not.toBeNull();
  });

  it('lock: is extended while its steps run longer than the ttl', async () => {
    const engine = engineWith(LOCK_FLOW);
    await engine.startScheduler();
    const handle = await engine.start('locked', { body: { lead: 'ana', ttl_ms: 400, hold_ms: 1500 } });
    await sleep(700);
    expect(await store.current.kv.acquireLock('ana', 5000)).toBeNull();
    await sleep(500);
    expect(await store.current.kv.acquireLock('ana', 5000)).toBeNull();
    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('success');
    expect(held(record).ended - held(record).started).toBeGreaterThanOrEqual(1500 - 5);
    expect(await store.current.kv.acquireLock('ana', 1000)).not.toBeNull();
  });

  it('lock: stays held while a step inside waits out its retry delays (longer than the ttl), and is released after', async () => {
    // The agent flow's shape (flows/agent.yaml): the agent step retried inside the lead's lock, then
    // continued on error; no other execution of the lead's key runs in between.
    const engine = engineWith(`
name: locked-retry
steps:
  - id: guard
    type: lock
    params: { key: ana, ttl_ms: 400 }
    do:
      - id: boom
        type: test.fail
        retry: { attempts: 3, delay_ms: 600, backoff: 1 }
        on_error: continue
        params: {}
`);
    await engine.startScheduler();
    const handle = await engine.start('locked-retry', { body: {} });
    await sleep(500);
    expect(await store.current.kv.acquireLock('ana', 5000)).toBeNull();
    await sleep(600);
    expect(await store.current.kv.acquireLock('ana', 5000)).toBeNull();
    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('success');
    expect(stepRecord(record, 'boom').attempt).toBe(3);
    expect(await store.current.kv.acquireLock('ana', 1000)).not.toBeNull();
  });

  it('lock: is not held while a step inside waits, and is taken again on resume', async () => {
    const engine = engineWith(`
name: locked-wait
steps:
  - id: guard
    type: lock
    params: { key: ana, poll_ms: 20 }
    do:
      - id: pause
        type: wait
        params: { ms: 200 }
      - id: after
        type: test.hold
        params: { ms: 0 }
`);
    await engine.startScheduler();
    const handle = await engine.start('locked-wait', { body: {} });
    expect((await handle.settled).status).toBe('waiting');
    // Parked: the lock is free. Take it past the wake time; the resumed execution must wait for it.
    const token = await store.current.kv.acquireLock('ana', 60_000);
    expect(token).not.toBeNull();
    await sleep(600);
    expect((await engine.store.get(handle.id))?.steps.some((s) => s.id === 'after')).toBe(false);
    const releasedAt = Date.now();
    expect(await store.current.kv.releaseLock('ana', token!)).toBe(true);
    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('success');
    expect((stepOutput(record, 'guard').outputs.after as Hold).started).toBeGreaterThanOrEqual(releasedAt);
    expect(await store.current.kv.acquireLock('ana', 1000)).not.toBeNull();
  });
});
