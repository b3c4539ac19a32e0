// The executor's walk: order, `steps.<id>` visibility, nesting, per-step records, vars, env, now,
// execution.id and run-time parameter validation.
import { afterEach, describe, expect, it } from 'vitest';
import { flowEnv } from '../../engine/run/flow-env.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { runFlow, shutdownEngines, stepRecord, stepOutput as output } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

describe('executor: order and outputs', () => {
  it('runs steps in order and exposes each output as steps.<id> to later steps only', async () => {
    const { record } = await runFlow(
      `
name: order
steps:
  - id: first
    type: set
    params:
      values: { n: 1, who: "{{ trigger.body.who }}", sees_later: "{{ $exists(steps.third) }}" }
  - id: second
    type: set
    params:
      values: { n: "{{ steps.first.n + 1 }}", greeting: "hi {{ steps.first.who }}" }
  - id: third
    type: set
    params:
      values: { sum: "{{ steps.first.n + steps.second.n }}", text: "{{ steps.second.greeting }}!" }
`,
      { body: { who: 'Ana' } },
    );
    expect(record.status).toBe('success');
    expect(record.steps.map((s) => s.key)).toEqual(['first', 'second', 'third']);
    expect(output(record, 'first')).toEqual({ n: 1, who: 'Ana', sees_later: false });
    expect(output(record, 'second')).toEqual({ n: 2, greeting: 'hi Ana' });
    expect(output(record, 'third')).toEqual({ sum: 3, text: 'hi Ana!' });
    // Started in order.
    const starts = record.steps.map((s) => Date.parse(s.started_at));
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    // Without `output:`, the flow's output is the last top-level step's output.
    expect(record.output).toEqual({ sum: 3, text: 'hi Ana!' });
    expect(record.finished_at).toBeDefined();
  });

  it('runs nested control steps: if inside foreach inside parallel', async () => {
    const { record } = await runFlow(`
name: nested
steps:
  - id: fan
    type: parallel
    branches:
      numbers:
        - id: each
          type: foreach
          params: { items: [1, 2, 3] }
          do:
            - id: check
              type: if
              params: { condition: "{{ item % 2 = 1 }}" }
              then:
                - id: odd
                  type: set
                  params: { values: { v: "{{ item * 10 }}", at: "{{ index }}" } }
            - id: after
              type: set
              params:
                values: { seen: "{{ steps.check.branch & ':' & ($exists(steps.odd) ? $string(steps.odd.v) : 'none') }}" }
      words:
        - id: word
          type: set
          params: { values: { w: "hello" } }
  - id: summary
    type: set
    params:
      values:
        seen: "{{ steps.fan.numbers.each.results.after.seen }}"
        word: "{{ steps.word.w }}"
`);
    expect(record.status).toBe('success');
    const fan = output(record, 'fan');
    expect(fan.words).toEqual({ word: { w: 'hello' } });
    expect(fan.numbers.each.count).toBe(3);
    expect(fan.numbers.each.results[0].check).toEqual({ branch: 'then', outputs: { odd: { v: 10, at: 0 } } });
    expect(fan.numbers.each.results[1].check).toEqual({ branch: 'none', outputs: {} });
    expect(fan.numbers.each.results[2].check).toEqual({ branch: 'then', outputs: { odd: { v: 30, at: 2 } } });
    // Iteration 1 does not see iteration 0's `odd`: each iteration has its own steps.<id>.
    expect(output(record, 'summary')).toEqual({ seen: ['then:10', 'none:none', 'then:30'], word: 'hello' });
    const keys = record.steps.map((s) => s.key);
    expect(keys).toEqual(
      expect.arrayContaining([
        'fan',
        'each',
        'word',
        'each[0]/check',
        'each[0]/odd',
        'each[0]/after',
        'each[1]/check',
        'each[1]/after',
        'each[2]/odd',
        'summary',
      ]),
    );
    expect(keys).not.toContain('each[1]/odd');
    expect(keys).not.toContain('odd');
  });
});

describe('executor: step records', () => {
  it('records key, id, type, status, resolved params with defaults, output, attempt, started_at, ms and error', async () => {
    const server = await startServer((req) =>
      req.path === '/missing' ? { status: 404, json: { error: 'nope' } } : { json: { ok: true }, delayMs: 60 },
    );
    const before = Date.now();
    const { record } = await runFlow(
      `
name: fields
steps:
  - id: fetch
    type: http.request
    params: { url: "{{ trigger.body.base }}/thing" }
  - id: missing
    type: http.request
    params: { url: "{{ trigger.body.base }}/missing", method: DELETE }
    on_error: continue
  - id: mark
    type: set
    params: { values: { status: "{{ steps.fetch.status }}" } }
`,
      { body: { base: server.url } },
    );
    const after = Date.now();
    expect(record.status).toBe('success');

    const fetch = stepRecord(record, 'fetch');
    expect(fetch).toMatchObject({ key: 'fetch', id: 'fetch', type: 'http.request', status: 'success', attempt: 1 });
    // Params are the resolved values with the schema's defaults filled in.
    expect(fetch.params).toEqual({ url: `${server.url}/thing`, method: 'GET', headers: {}, query: {}, timeout_ms: 10000 });
    expect(fetch.output).toMatchObject({ status: 200, body: { ok: true } });
    expect(fetch.error).toBeUndefined();
    const started = Date.parse(fetch.started_at);
    expect(fetch.started_at).toBe(new Date(started).toISOString());
    expect(started).toBeGreaterThanOrEqual(before - 5);
    expect(started).toBeLessThanOrEqual(after);
    expect(fetch.ms).toBeGreaterThanOrEqual(50);
    expect(fetch.ms).toBeLessThan(after - before + 5);

    const missing = stepRecord(record, 'missing');
    expect(missing).toMatchObject({ id: 'missing', type: 'http.request', status: 'error', attempt: 1 });
    expect(missing.params).toMatchObject({ method: 'DELETE', timeout_ms: 10000 });
    expect(missing.error).toMatchObject({ name: 'HttpStatusError', status: 404, body: { error: 'nope' } });
    expect(missing.error!.message).toContain('HTTP 404');

    expect(stepRecord(record, 'mark').params).toEqual({ values: { status: 200 }, vars: false });
  });
});

describe('executor: vars, env, now, execution', () => {
  it('evaluates flow-level vars and merges `set` values with vars: true', async () => {
    const { record } = await runFlow(
      `
name: vars-flow
vars:
  greeting: "hello {{ trigger.body.name }}"
  count: 0
  id_copy: "{{ execution.id }}"
steps:
  - id: read
    type: set
    params: { values: { g: "{{ vars.greeting }}", c: "{{ vars.count }}" } }
  - id: bump
    type: set
    params: { values: { count: "{{ vars.count + 1 }}", extra: "x" }, vars: true }
  - id: local_only
    type: set
    params: { values: { count: 100 } }
  - id: bump_again
    type: set
    params: { values: { count: "{{ vars.count + 1 }}" }, vars: true }
  - id: final
    type: set
    params: { values: { count: "{{ vars.count }}", extra: "{{ vars.extra }}" } }
`,
      { body: { name: 'Bia' } },
    );
    expect(record.status).toBe('success');
    expect(output(record, 'read')).toEqual({ g: 'hello Bia', c: 0 });
    expect(output(record, 'final')).toEqual({ count: 2, extra: 'x' });
    expect(record.vars).toEqual({ greeting: 'hello Bia', count: 2, id_copy: record.id, extra: 'x' });
  });

  it('exposes only the env names the flow declares, converted to the type of their defaults', async () => {
    const { record } = await runFlow(
      `
name: env-flow
env:
  API_URL: "http://default.example"
  RETRIES: 3
  DEBUG: false
  LABEL: "plain"
  BAD_NUMBER: 5
steps:
  - id: read
    type: set
    params:
      values:
        env: "{{ env }}"
        sum: "{{ env.RETRIES + 1 }}"
        secret_visible: "{{ $exists(env.SECRET_TOKEN) }}"
`,
      { engine: { env: { RETRIES: '7', DEBUG: 'yes', LABEL: '42', API_URL: '', BAD_NUMBER: 'many', SECRET_TOKEN: 's3cret' } } },
    );
    expect(record.status).toBe('success');
    expect(output(record, 'read')).toEqual({
      env: { API_URL: 'http://default.example', RETRIES: 7, DEBUG: true, LABEL: '42', BAD_NUMBER: 5 },
      sum: 8,
      secret_visible: false,
    });
    expect(JSON.stringify(record)).not.toContain('s3cret');
  });

  it('flowEnv converts booleans both ways and keeps unparsable values at their defaults', () => {
    const declared = { ON: false, OFF: true, ODD: true, N: 1.5, S: 'd', MISSING: 'fallback' };
    expect(flowEnv(declared, { ON: 'TRUE', OFF: 'off', ODD: 'maybe', N: '2.25', S: 'text' })).toEqual({
      ON: true,
      OFF: false,
      ODD: true,
      N: 2.25,
      S: 'text',
      MISSING: 'fallback',
    });
  });

  it('flowEnv: an empty value falls back to a default, except to a null one, where it is kept; unset null stays null', () => {
    const declared = { S: 'd', N: 3, LIST: null, UNSET: null };
    expect(flowEnv(declared, { S: '', N: '', LIST: '' })).toEqual({ S: 'd', N: 3, LIST: '', UNSET: null });
    expect(flowEnv(declared, { LIST: '10,20' })).toMatchObject({ LIST: '10,20' });
  });

  it('provides now and execution.id / execution.flow', async () => {
    const before = Date.now();
    const { record, handle } = await runFlow(`
name: meta
steps:
  - id: meta
    type: set
    params: { values: { now: "{{ now }}", id: "{{ execution.id }}", flow: "{{ execution.flow }}", started: "{{ execution.started_at }}" } }
`);
    const meta = output(record, 'meta');
    expect(meta.id).toBe(handle.id);
    expect(meta.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.flow).toBe('meta');
    expect(meta.started).toBe(record.created_at);
    const now = Date.parse(meta.now);
    expect(meta.now).toBe(new Date(now).toISOString());
    expect(now).toBeGreaterThanOrEqual(before - 5);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});

describe('executor: run-time parameter validation', () => {
  it('fails the step when an expression yields a string where an integer is due, naming the step', async () => {
    const { record } = await runFlow(
      `
name: bad-params
steps:
  - id: pause
    type: wait
    params: { ms: "{{ trigger.body.delay }}" }
  - id: never
    type: set
    params: { values: { x: 1 } }
`,
      { body: { delay: 'soon' } },
    );
    expect(record.status).toBe('failed');
    expect(record.error?.step).toBe('pause');
    expect(record.error?.name).toBe('ParamValidationError');
    expect(record.error?.message).toContain('flow "bad-params", step "pause" (wait), attempt 1');
    expect(record.error?.message).toMatch(/params\.ms must be integer/);
    const pause = stepRecord(record, 'pause');
    expect(pause.status).toBe('error');
    expect(pause.error?.message).toMatch(/^step "pause" \(wait\): params\.ms must be integer/);
    expect(record.steps.some((s) => s.id === 'never')).toBe(false);
  });

  it('accepts the same expression when it yields the due type', async () => {
    const { record } = await runFlow(
      `
name: good-params
steps:
  - id: pause
    type: wait
    params: { ms: "{{ trigger.body.delay }}" }
`,
      { body: { delay: 0 } },
    );
    expect(record.status).toBe('success');
    expect(stepRecord(record, 'pause').params).toEqual({ ms: 0 });
  });

  it('reports a required parameter whose expression found nothing (null, so the type check names it)', async () => {
    const { record } = await runFlow(`
name: missing-url
steps:
  - id: call
    type: http.request
    params: { url: "{{ trigger.body.nothing }}" }
`);
    expect(record.status).toBe('failed');
    expect(record.error?.message).toContain('step "call" (http.request): params.url must be string');
  });
});
