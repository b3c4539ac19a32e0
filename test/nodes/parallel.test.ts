import { afterEach, describe, expect, it } from 'vitest';
import { answeredTogether } from '../helpers/answered-together.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { makeEngine, runFlow, shutdownEngines, stepRecord, waitForEnd, stepOutput as output } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

describe('parallel', () => {
  it("runs branches concurrently and keeps each branch's outputs under its name", async () => {
    // Each call is answered only once both branches' calls are in flight together.
    const server = await startServer(answeredTogether(2, (req) => ({ json: { path: req.path } })));
    const { record } = await runFlow(
      `
name: par
steps:
  - id: both
    type: parallel
    branches:
      left:
        - id: left_call
          type: http.request
          params: { url: "{{ trigger.body.url }}/left" }
        - id: left_done
          type: set
          params: { values: { path: "{{ steps.left_call.body.path }}" } }
      right:
        - id: right_call
          type: http.request
          params: { url: "{{ trigger.body.url }}/right" }
  - id: after
    type: set
    params: { values: { left: "{{ steps.left_done.path }}", right: "{{ steps.both.right.right_call.body.path }}" } }
`,
      { body: { url: server.url } },
    );
    expect(record.status).toBe('success');
    expect(server.maxInFlight).toBe(2);
    const both = output(record, 'both');
    expect(Object.keys(both).sort()).toEqual(['left', 'right']);
    expect(Object.keys(both.left)).toEqual(['left_call', 'left_done']);
    expect(both.left.left_done).toEqual({ path: '/left' });
    expect(both.right.right_call.body).toEqual({ path: '/right' });
    expect(output(record, 'after')).toEqual({ left: '/left', right: '/right' });
  });

  it('waits in branches overlap: the execution parks with both branches waiting, and both resume', async () => {
    const engine = makeEngine(`
name: par-wait
steps:
  - id: both
    type: parallel
    branches:
      a:
        - id: wait_a
          type: wait
          params: { ms: 400 }
        - id: done_a
          type: set
          params: { values: { ok: a } }
      b:
        - id: wait_b
          type: wait
          params: { ms: 400 }
        - id: done_b
          type: set
          params: { values: { ok: b } }
`);
    await engine.startScheduler();
    const handle = await engine.start('par-wait', { body: {} });
    const parked = await handle.settled;
    // Branches run one after the other would park on wait_a alone (wait_b not started yet).
    expect(parked.status).toBe('waiting');
    expect(parked.steps.filter((s) => s.status === 'waiting').map((s) => s.id)).toEqual(['both', 'wait_a', 'wait_b']);
    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('success');
    expect(output(record, 'both')).toMatchObject({ a: { done_a: { ok: 'a' } }, b: { done_b: { ok: 'b' } } });
  });

  it('a failing branch fails the step after the other branches finish', async () => {
    const server = await startServer((req) =>
      req.path === '/boom' ? { status: 500, json: { error: 'x' } } : { json: { ok: true }, delayMs: 250 },
    );
    const { record } = await runFlow(
      `
name: par-fail
steps:
  - id: both
    type: parallel
    branches:
      slow:
        - id: slow_call
          type: http.request
          params: { url: "{{ trigger.body.url }}/slow" }
        - id: slow_done
          type: set
          params: { values: { ok: true } }
      fast:
        - id: boom
          type: http.request
          params: { url: "{{ trigger.body.url }}/boom" }
  - id: after
    type: set
    params: { values: { ran: true } }
`,
      { body: { url: server.url } },
    );
    expect(record.status).toBe('failed');
    expect(record.error).toMatchObject({ step: 'boom', status: 500 });
    expect(stepRecord(record, 'slow_call').status).toBe('success');
    expect(stepRecord(record, 'slow_done').status).toBe('success');
    expect(stepRecord(record, 'both').status).toBe('error');
    expect(stepRecord(record, 'both').ms).toBeGreaterThanOrEqual(240);
    expect(record.steps.some((s) => s.id === 'after')).toBe(false);
  });

  it('on_error: continue on the parallel step keeps the flow going', async () => {
    const { record } = await runFlow(`
name: par-continue
steps:
  - id: both
    type: parallel
    on_error: continue
    branches:
      ok:
        - id: fine
          type: set
          params: { values: { v: 1 } }
      bad:
        - id: broken
          type: wait
          params: { ms: "{{ 'x' }}" }
  - id: after
    type: set
    params: { values: { message: "{{ steps.both.error.message }}", fine: "{{ steps.fine.v }}" } }
`);
    expect(record.status).toBe('success');
    expect(output(record, 'after').message).toMatch(/^step "broken": /);
    expect(output(record, 'after').fine).toBe(1);
  });
});
