// on_error (fail, continue, goto) and step mocks.
import { afterEach, describe, expect, it } from 'vitest';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { runFlow, shutdownEngines, stepRecord, stepOutput as output } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

describe('on_error: fail', () => {
  it('fails the execution with an error naming flow, step, node type and attempt; later steps do not run', async () => {
    const server = await startServer(() => ({ status: 503, json: { reason: 'maintenance' } }));
    const { record } = await runFlow(
      `
name: fail-flow
steps:
  - id: before
    type: set
    params: { values: { ok: true } }
  - id: notify
    type: http.request
    params: { url: "{{ trigger.body.url }}", method: POST, body: { a: 1 } }
    retry: { attempts: 2, delay_ms: 5 }
  - id: after
    type: set
    params: { values: { ran: true } }
`,
      { body: { url: `${server.url}/notify` } },
    );
    expect(record.status).toBe('failed');
    expect(record.error).toMatchObject({ name: 'HttpStatusError', step: 'notify', status: 503, body: { reason: 'maintenance' } });
    expect(record.error?.message).toBe(`flow "fail-flow", step "notify" (http.request), attempt 2: HTTP 503 from ${server.url}/notify`);
    expect(record.steps.map((s) => s.id)).toEqual(['before', 'notify']);
    expect(stepRecord(record, 'notify').status).toBe('error');
    expect(record.finished_at).toBeDefined();
    expect(record.output).toBeUndefined();
  });

  it('a failing child fails its control step and the execution, naming the child step', async () => {
    const { record } = await runFlow(
      `
name: child-fail
steps:
  - id: branch
    type: if
    params: { condition: true }
    then:
      - id: inner
        type: wait
        params: { ms: "{{ 'x' }}" }
`,
    );
    expect(record.status).toBe('failed');
    expect(record.error?.step).toBe('inner');
    expect(record.error?.message).toContain('flow "child-fail", step "inner" (wait), attempt 1');
    expect(stepRecord(record, 'branch')).toMatchObject({ status: 'error' });
    expect(stepRecord(record, 'branch').error?.message).toMatch(/^step "inner": /);
  });
});

describe('on_error: continue', () => {
  it('sets steps.<id> = {error} and goes on', async () => {
    const server = await startServer(() => ({ status: 404, json: { error: 'no such lead' } }));
    const { record } = await runFlow(
      `
name: continue-flow
steps:
  - id: lookup
    type: http.request
    params: { url: "{{ trigger.body.url }}" }
    on_error: continue
  - id: after
    type: set
    params:
      values:
        status: "{{ steps.lookup.error.status }}"
        name: "{{ steps.lookup.error.name }}"
        detail: "{{ steps.lookup.error.body.error }}"
`,
      { body: { url: server.url } },
    );
    expect(record.status).toBe('success');
    expect(output(record, 'after')).toEqual({ status: 404, name: 'HttpStatusError', detail: 'no such lead' });
    expect(record.error).toBeUndefined();
    expect(stepRecord(record, 'lookup').status).toBe('error');
  });

  it('applies to a control step whose child failed', async () => {
    const { record } = await runFlow(`
name: continue-control
steps:
  - id: each
    type: foreach
    params: { items: [1, 2] }
    on_error: continue
    do:
      - id: bad
        type: wait
        params: { ms: "{{ 'later' }}" }
  - id: after
    type: set
    params: { values: { message: "{{ steps.each.error.message }}" } }
`);
    expect(record.status).toBe('success');
    expect(output(record, 'after').message).toMatch(/^step "bad": step "bad" \(wait\): params\.ms must be integer/);
  });
});

describe('on_error: goto', () => {
  it('jumps to a later step of the same list, skipping the steps between', async () => {
    const { record } = await runFlow(
      `
name: goto-flow
steps:
  - id: risky
    type: wait
    params: { ms: "{{ trigger.body.ms }}" }
    on_error: { goto: recover }
  - id: skipped_one
    type: set
    params: { values: { ran: true } }
  - id: skipped_two
    type: set
    params: { values: { ran: true } }
  - id: recover
    type: set
    params: { values: { why: "{{ steps.risky.error.name }}" } }
  - id: tail
    type: set
    params: { values: { ran: true } }
`,
      { body: { ms: 'bad' } },
    );
    expect(record.status).toBe('success');
    expect(record.steps.map((s) => s.id)).toEqual(['risky', 'recover', 'tail']);
    expect(output(record, 'recover')).toEqual({ why: 'ParamValidationError' });
  });

  it('does not jump when the step succeeds', async () => {
    const { record } = await runFlow(
      `
name: goto-ok
steps:
  - id: risky
    type: wait
    params: { ms: "{{ trigger.body.ms }}" }
    on_error: { goto: recover }
  - id: normal
    type: set
    params: { values: { ran: true } }
  - id: recover
    type: set
    params: { values: { ran: true } }
`,
      { body: { ms: 0 } },
    );
    expect(record.steps.map((s) => s.id)).toEqual(['risky', 'normal', 'recover']);
  });

  it('works inside a nested list', async () => {
    const { record } = await runFlow(`
name: goto-nested
steps:
  - id: branch
    type: if
    params: { condition: true }
    then:
      - id: risky
        type: wait
        params: { ms: "{{ -1 }}" }
        on_error: { goto: landing }
      - id: skipped
        type: set
        params: { values: { x: 1 } }
      - id: landing
        type: set
        params: { values: { y: 2 } }
  - id: after
    type: set
    params: { values: { z: 3 } }
`);
    expect(record.status).toBe('success');
    expect(record.steps.map((s) => s.id)).toEqual(['branch', 'risky', 'landing', 'after']);
    expect(output(record, 'branch')).toMatchObject({ branch: 'then', outputs: { landing: { y: 2 } } });
  });
});

describe('mocks', () => {
  it('replace a step output without running the node', async () => {
    const server = await startServer();
    const { record } = await runFlow(
      `
name: mocked
steps:
  - id: fetch
    type: http.request
    params: { url: "{{ trigger.body.url }}" }
  - id: use
    type: set
    params: { values: { name: "{{ steps.fetch.body.name }}" } }
`,
      { body: { url: server.url }, start: { mocks: { fetch: { output: { status: 200, body: { name: 'Mocked' } } } } } },
    );
    expect(record.status).toBe('success');
    expect(server.requests).toHaveLength(0);
    expect(output(record, 'use')).toEqual({ name: 'Mocked' });
    expect(stepRecord(record, 'fetch')).toMatchObject({ status: 'success', output: { status: 200, body: { name: 'Mocked' } } });
  });

  it('a mocked error triggers on_error (without retries)', async () => {
    const server = await startServer();
    const { record } = await runFlow(
      `
name: mocked-error
steps:
  - id: fetch
    type: http.request
    params: { url: "{{ trigger.body.url }}" }
    retry: { attempts: 3, delay_ms: 5 }
    on_error: continue
  - id: use
    type: set
    params: { values: { status: "{{ steps.fetch.error.status }}", message: "{{ steps.fetch.error.message }}" } }
`,
      { body: { url: server.url }, start: { mocks: { fetch: { error: { message: 'gateway down', status: 502 } } } } },
    );
    expect(record.status).toBe('success');
    expect(server.requests).toHaveLength(0);
    expect(output(record, 'use')).toEqual({ status: 502, message: 'gateway down' });
    expect(stepRecord(record, 'fetch')).toMatchObject({ status: 'error', attempt: 1, error: { name: 'MockError', status: 502 } });
  });

  it('a mocked error with on_error fail fails the execution', async () => {
    const { record } = await runFlow(
      `
name: mocked-fail
steps:
  - id: fetch
    type: set
    params: { values: { x: 1 } }
`,
      { start: { mocks: { fetch: { error: { message: 'boom', name: 'CustomError' } } } } },
    );
    expect(record.status).toBe('failed');
    expect(record.error).toMatchObject({ name: 'CustomError', step: 'fetch' });
    expect(record.error?.message).toContain('boom');
  });

  it('mock a step inside a foreach iteration', async () => {
    const { record } = await runFlow(
      `
name: mocked-nested
steps:
  - id: each
    type: foreach
    params: { items: [1, 2] }
    do:
      - id: compute
        type: set
        params: { values: { v: "{{ item }}" } }
`,
      { start: { mocks: { compute: { output: { v: 'm' } } } } },
    );
    expect(output(record, 'each').results).toEqual([{ compute: { v: 'm' } }, { compute: { v: 'm' } }]);
  });
});
