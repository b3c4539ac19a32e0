import { afterEach, describe, expect, it } from 'vitest';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { makeEngine, runFlow, shutdownEngines, stepRecord, waitForEnd, stepOutput as output } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

const childWithOutput = `
name: child-out
trigger:
  input:
    type: object
    required: [name]
    properties:
      name: { type: string }
      n: { type: integer }
output:
  greeting: "{{ steps.hi.text }}"
  doubled: "{{ trigger.body.n * 2 }}"
steps:
  - id: hi
    type: set
    params: { values: { text: "hi {{ trigger.body.name }}" } }
  - id: other
    type: set
    params: { values: { ignored: true } }
`;

const childLastStep = `
name: child-last
steps:
  - id: first
    type: set
    params: { values: { a: 1 } }
  - id: last
    type: set
    params: { values: { echo: "{{ trigger.body }}" } }
`;

const parent = (flow: string, input: string, onError = 'fail') => `
name: parent
steps:
  - id: call
    type: call-flow
    params: { flow: ${flow}, input: ${input} }
    on_error: ${onError}
  - id: after
    type: set
    params: { values: { got: "{{ steps.call }}" } }
`;

describe('call-flow', () => {
  it('runs another flow with the input and returns its `output:` expression', async () => {
    const { record, engine } = await runFlow([parent('child-out', '{ name: "{{ trigger.body.name }}", n: 21 }'), childWithOutput], {
      body: { name: 'Ana' },
    });
    expect(record.status).toBe('success');
    expect(output(record, 'call')).toEqual({ greeting: 'hi Ana', doubled: 42 });
    expect(output(record, 'after')).toEqual({ got: { greeting: 'hi Ana', doubled: 42 } });
    expect(stepRecord(record, 'call').params).toEqual({ flow: 'child-out', input: { name: 'Ana', n: 21 } });
    const children = await engine.store.list({ flow: 'child-out' });
    expect(children).toHaveLength(1);
    expect(children[0]).toMatchObject({
      status: 'success',
      parent_id: record.id,
      trigger: { body: { name: 'Ana', n: 21 } },
      output: { greeting: 'hi Ana', doubled: 42 },
    });
  });

  it("without `output:`, returns the output of the called flow's last step", async () => {
    const { record } = await runFlow([parent('child-last', '{ x: [1, 2] }'), childLastStep]);
    expect(output(record, 'call')).toEqual({ echo: { x: [1, 2] } });
  });

  it("validates the input against the called flow's trigger.input: invalid input is a step error", async () => {
    const { record, engine } = await runFlow([parent('child-out', '{ name: 5 }', 'continue'), childWithOutput]);
    expect(record.status).toBe('success');
    // With on_error: continue, steps.call is {error}.
    const error = output(record, 'after').got.error;
    expect(stepRecord(record, 'call').status).toBe('error');
    expect(error.name).toBe('InputValidationError');
    expect(error.message).toBe('input of flow "child-out" is invalid: name must be string');
    expect(await engine.store.list({ flow: 'child-out' })).toEqual([]);

    const failing = await runFlow([parent('child-out', '{ n: 1 }'), childWithOutput]);
    expect(failing.record.status).toBe('failed');
    expect(failing.record.error?.step).toBe('call');
    expect(failing.record.error?.message).toContain(
      'step "call" (call-flow), attempt 1: input of flow "child-out" is invalid: name is required',
    );
  });

  it('a called flow that waits makes the caller wait; both finish', async () => {
    const childWait = `
name: child-wait
steps:
  - id: pause
    type: wait
    params: { ms: 150 }
  - id: result
    type: set
    params: { values: { v: "{{ trigger.body.v + 1 }}" } }
`;
    const engine = makeEngine([parent('child-wait', '{ v: 1 }'), childWait]);
    await engine.startScheduler();
    const handle = await engine.start('parent', { body: {} });
    const parked = await handle.settled;
    expect(parked.status).toBe('waiting');
    // Woken by the child's end; its own wake time (a lease life away) is for a wake-up that is lost.
    expect(parked.wake_at).toBeGreaterThan(Date.parse(parked.created_at));
    const [child] = await engine.store.list({ flow: 'child-wait' });
    expect(child).toMatchObject({ status: 'waiting', parent_id: handle.id });
    expect(stepRecord(parked, 'call')).toMatchObject({ status: 'waiting', state: { child_id: child!.id } });
    expect(await engine.store.listWaiting()).toEqual(expect.arrayContaining([{ id: handle.id, wake_at: parked.wake_at }]));

    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('success');
    expect(output(record, 'call')).toEqual({ v: 2 });
    expect(output(record, 'after')).toEqual({ got: { v: 2 } });
    const children = await engine.store.list({ flow: 'child-wait' });
    expect(children).toHaveLength(1);
    expect(children[0]!.status).toBe('success');
  });

  it('a waiting child and its caller both finish after a restart', async () => {
    const server = await startServer();
    const childWait = `
name: child-wait
steps:
  - id: pause
    type: wait
    params: { ms: 250 }
  - id: hit
    type: http.request
    params: { url: "{{ trigger.body.url }}/child" }
`;
    const flows = [
      `
name: parent
steps:
  - id: before
    type: http.request
    params: { url: "{{ trigger.body.url }}/parent" }
  - id: call
    type: call-flow
    params: { flow: child-wait, input: { url: "{{ trigger.body.url }}" } }
  - id: after
    type: set
    params: { values: { status: "{{ steps.call.status }}" } }
`,
      childWait,
    ];
    const store = new MemoryExecutionStore();
    const a = makeEngine(flows, { store });
    await a.startScheduler();
    const handle = await a.start('parent', { body: { url: server.url } });
    expect((await handle.settled).status).toBe('waiting');
    await a.shutdown();

    const b = makeEngine(flows, { store });
    await b.startScheduler();
    const record = await waitForEnd(b, handle.id);
    expect(record.status).toBe('success');
    expect(output(record, 'after')).toEqual({ status: 200 });
    expect(server.requests.map((r) => r.path)).toEqual(['/parent', '/child']);
    expect((await store.list({ flow: 'child-wait' })).map((r) => r.status)).toEqual(['success']);
  });

  it('a failing called flow fails the step, naming the flow', async () => {
    const childFail = `
name: child-fail
steps:
  - id: bad
    type: wait
    params: { ms: "{{ 'x' }}" }
`;
    const { record } = await runFlow([parent('child-fail', '{}', 'continue'), childFail]);
    expect(record.status).toBe('success');
    expect(output(record, 'after').got.error.message).toMatch(
      /^flow "child-fail" \(execution [0-9a-f-]+\) failed: .*params\.ms must be integer/,
    );
  });

  it('a stopped called flow returns null and the caller goes on', async () => {
    const childStop = `
name: child-stop
steps:
  - id: halt
    type: stop
    params: { reason: "nothing to do" }
`;
    const { record, engine } = await runFlow([parent('child-stop', '{}'), childStop]);
    expect(record.status).toBe('success');
    expect(output(record, 'call')).toBeNull();
    expect((await engine.store.list({ flow: 'child-stop' }))[0]).toMatchObject({ status: 'stopped', stop_reason: 'nothing to do' });
  });

  it('runs the called flow in dry-run when the caller is in dry-run', async () => {
    const server = await startServer();
    const childHttp = `
name: child-http
steps:
  - id: post
    type: http.request
    params: { url: "{{ trigger.body.url }}", method: POST, body: { a: 1 } }
`;
    const { record, engine } = await runFlow([parent('child-http', '{ url: "{{ trigger.body.url }}" }'), childHttp], {
      body: { url: server.url },
      start: { dryRun: true },
    });
    expect(record.status).toBe('success');
    expect(server.requests).toHaveLength(0);
    const [child] = await engine.store.list({ flow: 'child-http' });
    expect(child?.dry_run).toBe(true);
    expect(child?.outbound).toEqual([
      {
        step: 'post',
        kind: 'http',
        method: 'POST',
        url: `${server.url}/`,
        headers: { 'content-type': 'application/json' },
        body: { a: 1 },
        performed: false,
      },
    ]);
  });

  it('fails the step for an unknown flow', async () => {
    const { record } = await runFlow(`
name: parent
steps:
  - id: call
    type: call-flow
    params: { flow: "{{ 'nowhere' }}" }
`);
    expect(record.status).toBe('failed');
    expect(record.error?.message).toContain('unknown flow "nowhere"');
  });
});
