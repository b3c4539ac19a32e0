// The metrics registry (adapters/metrics/metrics.ts) fed by a real Engine, the agent runner and the
// uazapi client (against the fake gateway); the ops routes (/metrics, /readyz) on the webhook app;
// and the engine observer contract: an observer that throws never changes an execution.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgent } from '../../adapters/ai/agent-runner.js';
import type { AgentAttemptEvent } from '../../adapters/ai/ai-service.js';
import type { ChatResult } from '../../adapters/ai/chat-model.js';
import { RateLimitError } from '../../adapters/ai/rate-limit-error.js';
import { UazapiClient, type GatewayCallEvent } from '../../adapters/gateway/uazapi/client.js';
import { createMetrics, embeddedQueueDepth } from '../../adapters/metrics/metrics.js';
import { openRuntime } from '../../cli/runtime.js';
import type { Engine } from '../../engine/engine.js';
import { silentLogger } from '../../engine/logger.js';
import type { EngineObserver } from '../../engine/observer.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { buildWebhookApp } from '../../engine/triggers/webhook-app.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { startFakeGateway } from '../fakes/fake-gateway.js';
import { familyTypes, parseMetrics, sampleValue, samplesOf } from '../helpers/metrics-text.js';
import { makeEngine, shutdownEngines, sleep, waitForEnd } from '../helpers/run-flow.js';

const servers: Server[] = [];
const cleanups: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  await shutdownEngines();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

async function listen(engine: Engine, options: Omit<Parameters<typeof buildWebhookApp>[0], 'engine' | 'logger'> = {}): Promise<string> {
  const app = buildWebhookApp({ engine, logger: silentLogger, ...options });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Rule 1's histogram as flows/intake.yaml declares it. */
const FORM_METRIC = `
metrics:
  - name: leadflow_form_to_first_message_seconds
    type: histogram
    help: "Rule 1: from the form webhook to the first WhatsApp message, successful executions."
    value: "{{ output.form_to_first_message_ms / 1000 }}"
    buckets: [1, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600]
`;

/** A declared counter: each successful execution adds its output's \`optouts\`. */
const COUNTER_METRIC = `
  - name: leadflow_optouts_total
    type: counter
    help: "Leads who asked for no more automatic messages, successful executions."
    value: "{{ $exists(output.optouts) ? output.optouts : vars.optouts }}"
`;

const PAUSE_FLOW = `
name: pause
output:
  form_to_first_message_ms: 1500
${FORM_METRIC}
steps:
  - id: first
    type: set
    params: { values: { a: 1 } }
  - id: pause
    type: wait
    params: { ms: 40 }
  - id: broken
    type: http.request
    params: { url: "http://127.0.0.1:1/nowhere", timeout_ms: 1000 }
    on_error: continue
`;

const STOP_FLOW = `
name: halt
steps:
  - id: end
    type: stop
    params: { reason: enough }
`;

describe('createMetrics', () => {
  it('builds a registry of its own per call, with every family of its own declared and the process metrics prefixed', async () => {
    const a = createMetrics();
    const b = createMetrics({ defaultMetrics: false });
    expect(a.registry).not.toBe(b.registry);
    a.gatewayCall({ provider: 'uazapi', op: 'send', outcome: 'ok' });
    const textA = await a.render();
    const textB = await b.render();
    expect(a.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(familyTypes(textB)).toEqual({
      leadflow_executions_total: 'counter',
      leadflow_execution_duration_seconds: 'histogram',
      leadflow_step_duration_seconds: 'histogram',
      leadflow_queue_depth: 'gauge',
      leadflow_wait_lag_seconds: 'histogram',
      leadflow_appointments: 'gauge',
      leadflow_ai_calls_total: 'counter',
      leadflow_ai_tokens_total: 'counter',
      leadflow_ai_agent_attempts_total: 'counter',
      leadflow_gateway_sends_total: 'counter',
      leadflow_gateway_downloads_total: 'counter',
      leadflow_gateway_send_recoveries_total: 'counter',
    });
    // Registries are independent: a's send is not in b.
    expect(sampleValue(parseMetrics(textA), 'leadflow_gateway_sends_total', { provider: 'uazapi', outcome: 'ok' })).toBe(1);
    expect(sampleValue(parseMetrics(textB), 'leadflow_gateway_sends_total', { outcome: 'ok' })).toBeUndefined();
    expect(Object.keys(familyTypes(textA))).toEqual(
      expect.arrayContaining(['leadflow_process_cpu_user_seconds_total', 'leadflow_nodejs_heap_size_total_bytes']),
    );
    expect(Object.keys(familyTypes(textA)).every((name) => name.startsWith('leadflow_'))).toBe(true);
  });

  it('counts executions by flow and status, steps by node type and status, wait lag and form-to-first-message from a real engine', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const engine = makeEngine([PAUSE_FLOW, STOP_FLOW], { observer: metrics.observer });
    await engine.startScheduler();
    const handle = await engine.start('pause', { body: {} });
    expect((await handle.settled).status).toBe('waiting');
    const done = await waitForEnd(engine, handle.id);
    expect(done.status).toBe('success');
    const stopped = await engine.start('halt', { body: {} });
    expect((await waitForEnd(engine, stopped.id)).status).toBe('stopped');

    const samples = parseMetrics(await metrics.render());
    expect(samplesOf(samples, 'leadflow_executions_total')).toEqual(
      expect.arrayContaining([
        { flow: 'pause', status: 'waiting', value: 1 },
        { flow: 'pause', status: 'success', value: 1 },
        { flow: 'halt', status: 'stopped', value: 1 },
      ]),
    );
    expect(samplesOf(samples, 'leadflow_executions_total')).toHaveLength(3);
    const steps = (node_type: string, status: string) =>
      sampleValue(samples, 'leadflow_step_duration_seconds_count', { node_type, status });
    expect(steps('set', 'success')).toBe(1);
    expect(steps('wait', 'success')).toBe(1); // reported when it ends after the resume, not when it parks
    expect(steps('http.request', 'error')).toBe(1);
    expect(steps('stop', 'stopped')).toBe(1);
    expect(sampleValue(samples, 'leadflow_step_duration_seconds_bucket', { node_type: 'set', status: 'success', le: '+Inf' })).toBe(1);
    expect(sampleValue(samples, 'leadflow_wait_lag_seconds_count')).toBe(1);
    expect(sampleValue(samples, 'leadflow_wait_lag_seconds_sum')).toBeGreaterThanOrEqual(0);
    expect(sampleValue(samples, 'leadflow_wait_lag_seconds_sum')).toBeLessThan(5);
    expect(sampleValue(samples, 'leadflow_form_to_first_message_seconds_count')).toBe(1);
    expect(sampleValue(samples, 'leadflow_form_to_first_message_seconds_sum')).toBe(1.5);
    expect(sampleValue(samples, 'leadflow_form_to_first_message_seconds_bucket', { le: '1' })).toBe(0);
    expect(sampleValue(samples, 'leadflow_form_to_first_message_seconds_bucket', { le: '5' })).toBe(1);
    expect(sampleValue(samples, 'leadflow_execution_duration_seconds_count', { flow: 'halt', status: 'stopped' })).toBe(1);
  });

  it('registers the metrics flows declare when the engine gets them, before anything is observed', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    makeEngine([PAUSE_FLOW, STOP_FLOW], { observer: metrics.observer });
    const text = await metrics.render();
    expect(familyTypes(text)).toMatchObject({ leadflow_form_to_first_message_seconds: 'histogram' });
    const samples = parseMetrics(text);
    expect(sampleValue(samples, 'leadflow_form_to_first_message_seconds_count')).toBe(0);
    expect(samplesOf(samples, 'leadflow_form_to_first_message_seconds_bucket').map((s) => s.le)).toEqual([
      '1',
      '5',
      '10',
      '15',
      '20',
      '30',
      '45',
      '60',
      '90',
      '120',
      '180',
      '300',
      '600',
      '+Inf',
    ]);
  });

  it('observes a declared metric for executions that end normally (success or a stop step) with a finite value of zero or more', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const flow = (name: string, output: string, last = 'set') => `
name: ${name}
output: ${output}
${FORM_METRIC}
steps:
  - id: only
    type: ${last}
    params: ${last === 'stop' ? '{ reason: done }' : '{ values: { a: 1 } }'}
`;
    const engine = makeEngine(
      [
        flow('counted', '{ form_to_first_message_ms: 2000 }'),
        flow('absent', '{ other: 1 }'),
        flow('negative', '{ form_to_first_message_ms: -5 }'),
        flow('text', '{ form_to_first_message_ms: "soon" }'),
        flow('stopped', '{ form_to_first_message_ms: 2000 }', 'stop'),
      ],
      { observer: metrics.observer },
    );
    for (const name of ['counted', 'absent', 'negative', 'text', 'stopped'])
      await waitForEnd(engine, (await engine.start(name, { body: {} })).id);
    const samples = parseMetrics(await metrics.render());
    // A stop step ends the execution without evaluating `output`: nothing to observe there.
    expect(sampleValue(samples, 'leadflow_form_to_first_message_seconds_count')).toBe(1);
    expect(sampleValue(samples, 'leadflow_form_to_first_message_seconds_sum')).toBe(2);
  });

  it('registers a declared counter at 0 before any execution, and adds the value of each execution that ends normally, never a failed one', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const flow = (name: string, output: string, last = 'set') => `
name: ${name}
output: ${output}
${FORM_METRIC}${COUNTER_METRIC}
steps:
  - id: only
    type: ${last}
    params: ${last === 'stop' ? '{ reason: done }' : last === 'http.request' ? '{ url: "http://127.0.0.1:1/nowhere", timeout_ms: 1000 }' : '{ values: { a: 1 } }'}
`;
    // Ended by a stop step after recording its value in vars (as flows/agent.yaml records an opt-out).
    const stoppedWithVars = `
name: stopped-vars
${FORM_METRIC}${COUNTER_METRIC}
steps:
  - { id: note, type: set, params: { vars: true, values: { optouts: 10 } } }
  - { id: end, type: stop, params: { reason: opted out } }
`;
    const engine = makeEngine(
      [
        flow('one', '{ optouts: 1 }'),
        flow('amount', '{ optouts: 2.5 }'),
        flow('zero', '{ optouts: 0 }'),
        flow('absent', '{ other: 1 }'),
        flow('negative', '{ optouts: -3 }'),
        flow('text', '{ optouts: "1" }'),
        flow('stopped', '{ optouts: 100 }', 'stop'),
        flow('failed', '{ optouts: 1000 }', 'http.request'),
        stoppedWithVars,
      ],
      { observer: metrics.observer },
    );
    const before = await metrics.render();
    expect(familyTypes(before)).toMatchObject({ leadflow_optouts_total: 'counter', leadflow_form_to_first_message_seconds: 'histogram' });
    expect(before).toContain('# HELP leadflow_optouts_total Leads who asked for no more automatic messages, successful executions.');
    expect(sampleValue(parseMetrics(before), 'leadflow_optouts_total')).toBe(0);

    const statuses: Record<string, string> = {};
    for (const name of ['one', 'one', 'amount', 'zero', 'absent', 'negative', 'text', 'stopped', 'failed', 'stopped-vars'])
      statuses[name] = (await waitForEnd(engine, (await engine.start(name, { body: {} })).id)).status;
    expect(statuses).toMatchObject({ one: 'success', amount: 'success', stopped: 'stopped', failed: 'failed', 'stopped-vars': 'stopped' });
    const samples = parseMetrics(await metrics.render());
    expect(samplesOf(samples, 'leadflow_optouts_total')).toEqual([{ value: 14.5 }]);
    // The histogram of the same flows is untouched by the counter: none of them outputs its value.
    expect(sampleValue(samples, 'leadflow_form_to_first_message_seconds_count')).toBe(0);
  });

  it('a name declared as a histogram and then as a counter is reported and the histogram stays', async () => {
    const errors: string[] = [];
    const metrics = createMetrics({ defaultMetrics: false, onError: (_err, where) => errors.push(where) });
    const asCounter = `
name: as-counter
metrics:
  - name: leadflow_form_to_first_message_seconds_total
    type: counter
    help: clash
    value: "{{ 1 }}"
steps:
  - { id: only, type: set, params: { values: { a: 1 } } }
`;
    const asHistogram = asCounter
      .replace('name: as-counter', 'name: as-histogram')
      .replace('type: counter', 'type: histogram\n    buckets: [1]');
    makeEngine([asHistogram, asCounter], { observer: metrics.observer });
    expect(errors).toEqual(['flowsLoaded']);
    expect(familyTypes(await metrics.render())).toMatchObject({ leadflow_form_to_first_message_seconds_total: 'histogram' });
  });

  it('a flow metric declared again with other buckets is reported and the first declaration stays', async () => {
    const errors: string[] = [];
    const metrics = createMetrics({ defaultMetrics: false, onError: (_err, where) => errors.push(where) });
    const other = PAUSE_FLOW.replace('name: pause', 'name: other').replace('[1, 5, 10,', '[2, 5, 10,');
    makeEngine([PAUSE_FLOW, other], { observer: metrics.observer });
    expect(errors).toEqual(['flowsLoaded']);
    const buckets = samplesOf(parseMetrics(await metrics.render()), 'leadflow_form_to_first_message_seconds_bucket');
    expect(buckets[0]).toMatchObject({ le: '1' });
  });

  it('reads the queue depth at scrape time from the callback the host sets; NaN when the callback fails', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const depth = async () => sampleValue(parseMetrics(await metrics.render()), 'leadflow_queue_depth');
    expect(await depth()).toBe(0);
    let n = 3;
    metrics.setQueueDepth(() => n);
    expect(await depth()).toBe(3);
    n = 5;
    expect(await depth()).toBe(5);
    const errors: string[] = [];
    const failing = createMetrics({ defaultMetrics: false, onError: (_err, where) => errors.push(where) });
    failing.setQueueDepth(async () => {
      throw new Error('store down');
    });
    expect(sampleValue(parseMetrics(await failing.render()), 'leadflow_queue_depth')).toBeNaN();
    expect(errors).toEqual(['queue_depth']);
  });

  it('reads the appointments by status at scrape time from the callback the host sets; no series when it fails', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const count = async (status: string) => sampleValue(parseMetrics(await metrics.render()), 'leadflow_appointments', { status });
    expect(await count('marcado')).toBeUndefined();
    let counts: Record<string, number> = { marcado: 2, confirmado: 1, cancelado: 0 };
    metrics.setAppointmentCounts(() => counts);
    expect([await count('marcado'), await count('confirmado'), await count('cancelado')]).toEqual([2, 1, 0]);
    counts = { marcado: 1, confirmado: 2 };
    expect([await count('marcado'), await count('confirmado'), await count('cancelado')]).toEqual([1, 2, undefined]);
    const errors: string[] = [];
    const failing = createMetrics({ defaultMetrics: false, onError: (_err, where) => errors.push(where) });
    failing.setAppointmentCounts(async () => {
      throw new Error('database down');
    });
    expect(sampleValue(parseMetrics(await failing.render()), 'leadflow_appointments', { status: 'marcado' })).toBeUndefined();
    expect(errors).toEqual(['appointments']);
  });

  it('embedded queue depth: executions running in this process plus stored waits already due', async () => {
    const store = new MemoryExecutionStore();
    const base = {
      trigger: {},
      vars: {},
      steps: [],
      outbound: [],
      dry_run: false,
      created_at: '2024-01-01T00:00:00.000Z',
      updated_at: '2024-01-01T00:00:00.000Z',
    };
    const put = (id: string, status: ExecutionRecord['status'], wake_at?: number) =>
      store.insert({ ...base, id, flow: 'f', status, ...(wake_at !== undefined ? { wake_at } : {}) });
    await put('due', 'waiting', 1_000);
    await put('later', 'waiting', 9_000);
    await put('child', 'waiting');
    await put('resuming', 'waiting', 500); // being driven: counted once, as running
    await put('done', 'success');
    const depth = embeddedQueueDepth({ runningIds: () => ['resuming', 'fresh'], store }, () => 5_000);
    expect(await depth()).toBe(3);
  });

  it('counts AI calls, agent attempts by role, and gateway sends, downloads and retries', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.aiCall({ model: 'openai:m', kind: 'chat', outcome: 'rate_limited', ms: 3 });
    metrics.aiCall({ model: 'anthropic:c', kind: 'chat', outcome: 'ok', ms: 3, input_tokens: 10, output_tokens: 4 });
    metrics.aiCall({ model: 'openai:t', kind: 'transcribe', outcome: 'error', ms: 3 });
    metrics.agentAttempt({ model: 'openai:m', role: 'primary', outcome: 'rate_limited', ms: 1 });
    metrics.gatewayCall({ provider: 'cloud', op: 'download', outcome: 'ok' });
    const samples = parseMetrics(await metrics.render());
    expect(sampleValue(samples, 'leadflow_ai_calls_total', { model: 'openai:m', kind: 'chat', outcome: 'rate_limited' })).toBe(1);
    expect(sampleValue(samples, 'leadflow_ai_calls_total', { model: 'anthropic:c', kind: 'chat', outcome: 'ok' })).toBe(1);
    expect(sampleValue(samples, 'leadflow_ai_calls_total', { model: 'openai:t', kind: 'transcribe', outcome: 'error' })).toBe(1);
    expect(sampleValue(samples, 'leadflow_ai_tokens_total', { model: 'anthropic:c', direction: 'input' })).toBe(10);
    expect(sampleValue(samples, 'leadflow_ai_tokens_total', { model: 'anthropic:c', direction: 'output' })).toBe(4);
    expect(sampleValue(samples, 'leadflow_ai_agent_attempts_total', { model: 'openai:m', role: 'primary', outcome: 'rate_limited' })).toBe(
      1,
    );
    expect(sampleValue(samples, 'leadflow_gateway_downloads_total', { provider: 'cloud', outcome: 'ok' })).toBe(1);
  });
});

describe('hooks of the agent runner and the uazapi client', () => {
  it('runAgent reports each attempt with the role of its model: primary, fallback, contingency', async () => {
    const events: AgentAttemptEvent[] = [];
    const answers: Record<string, Array<() => ChatResult>> = {
      'openai:p': [
        () => {
          throw new Error('boom');
        },
      ],
      'anthropic:f': [
        () => {
          throw new RateLimitError('anthropic:f', undefined);
        },
      ],
      'openai:c': [
        () =>
          ({ text: 'oi', tool_calls: [], usage: { input_tokens: 1, output_tokens: 1 }, finish_reason: 'stop' }) as unknown as ChatResult,
      ],
    };
    const result = await runAgent({
      ai: {
        chat: async (model) => answers[model]!.shift()!(),
        reportAttempt: (e) => events.push(e),
      },
      models: { primary: 'openai:p', fallbacks: ['anthropic:f'], contingency: 'openai:c' },
      input: 'olá',
      rateLimitWaitMs: 0,
    });
    expect(result.text).toBe('oi');
    expect(events.map(({ model, role, outcome }) => ({ model, role, outcome }))).toEqual([
      { model: 'openai:p', role: 'primary', outcome: 'error' },
      { model: 'anthropic:f', role: 'fallback', outcome: 'rate_limited' },
      { model: 'openai:c', role: 'contingency', outcome: 'ok' },
    ]);
    // The attempts in the node's output keep their documented shape (no role).
    expect(Object.keys(result.attempts[0]!).sort()).toEqual(['error', 'model', 'ms', 'outcome']);
  });

  it('a reporter that throws does not change the run', async () => {
    const result = await runAgent({
      ai: {
        chat: async () => ({ text: 'oi', tool_calls: [], usage: { input_tokens: 1, output_tokens: 1 } }) as unknown as ChatResult,
        reportAttempt: () => {
          throw new Error('metrics broken');
        },
      },
      models: { primary: 'openai:p' },
      input: 'olá',
    });
    expect(result).toMatchObject({ text: 'oi', model_used: 'openai:p', attempts: [{ model: 'openai:p', outcome: 'ok' }] });
  });

  it('the uazapi client reports ok, error and each retry; a throwing callback changes nothing', async () => {
    const fake = await startFakeGateway({ tokens: { tok: '5511912345678' } });
    cleanups.push(() => fake.close());
    const events: GatewayCallEvent[] = [];
    const client = new UazapiClient({
      serverUrl: fake.url,
      token: 'tok',
      retries: 2,
      baseDelayMs: 5,
      maxDelayMs: 20,
      onCall: (e) => events.push(e),
    });
    fake.failNext('500', 1);
    await client.sendText({ number: '5511999990000', text: 'a' });
    expect(events).toEqual([
      { provider: 'uazapi', op: 'send', outcome: 'retried' },
      { provider: 'uazapi', op: 'send', outcome: 'ok' },
    ]);
    events.length = 0;
    fake.failNext('500', 3);
    await expect(client.sendText({ number: '5511999990000', text: 'b' })).rejects.toThrow();
    expect(events.map((e) => e.outcome)).toEqual(['retried', 'retried', 'error']);

    const throwing = new UazapiClient({
      serverUrl: fake.url,
      token: 'tok',
      retries: 1,
      baseDelayMs: 5,
      onCall: () => {
        throw new Error('metrics broken');
      },
    });
    fake.failNext('500', 1);
    await expect(throwing.sendText({ number: '5511999990000', text: 'c' })).resolves.toMatchObject({ messageid: expect.any(String) });
  });
});

describe('engine observer', () => {
  it('an observer that throws (or rejects) in every hook never fails or changes an execution', async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (_fields: object, message: string) => warnings.push(message) };
    const boom = () => {
      throw new Error('observer broken');
    };
    const observer: EngineObserver = {
      executionEnded: boom,
      stepEnded: boom,
      waitResumed: () => Promise.reject(new Error('async observer broken')) as unknown as undefined,
    };
    const engine = makeEngine(PAUSE_FLOW, { observer, logger });
    await engine.startScheduler();
    const handle = await engine.start('pause', { body: {} });
    const done = await waitForEnd(engine, handle.id);
    expect(done.status).toBe('success');
    expect(done.steps.map((s) => [s.id, s.status])).toEqual([
      ['first', 'success'],
      ['pause', 'success'],
      ['broken', 'error'],
    ]);
    expect(done.output).toEqual({ form_to_first_message_ms: 1500 });
    await sleep(10);
    expect(warnings.filter((m) => m === 'engine observer failed (ignored)').length).toBeGreaterThanOrEqual(6);

    // Same flow without an observer: the same record shape.
    const plain = makeEngine(PAUSE_FLOW);
    await plain.startScheduler();
    const again = await waitForEnd(plain, (await plain.start('pause', { body: {} })).id);
    expect(again.steps.map((s) => [s.id, s.status])).toEqual(done.steps.map((s) => [s.id, s.status]));
  });
});

describe('ops routes', () => {
  it('/metrics answers the exposition with its content type; /readyz without checks is ready; neither is taken as a webhook', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const engine = makeEngine(STOP_FLOW, { observer: metrics.observer });
    const url = await listen(engine, { metrics });
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(metrics.contentType);
    expect(await res.text()).toContain('# TYPE leadflow_executions_total counter');
    // A counter a flow declares is served too, at 0 before anything ran, then with what was added.
    const counted = makeEngine(
      `
name: counted
output: { optouts: 1 }
metrics:${COUNTER_METRIC}
steps:
  - { id: only, type: set, params: { values: { a: 1 } } }
`,
      { observer: metrics.observer },
    );
    const declared = await (await fetch(`${url}/metrics`)).text();
    expect(declared).toContain('# TYPE leadflow_optouts_total counter');
    expect(sampleValue(parseMetrics(declared), 'leadflow_optouts_total')).toBe(0);
    await waitForEnd(counted, (await counted.start('counted', { body: {} })).id);
    expect(sampleValue(parseMetrics(await (await fetch(`${url}/metrics`)).text()), 'leadflow_optouts_total')).toBe(1);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: {} });
  });

  it('without metrics, GET /metrics is not served', async () => {
    const url = await listen(makeEngine(STOP_FLOW));
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
  });

  it('/readyz answers 503 naming the failed check, and 503 without internals when the check itself throws', async () => {
    const engine = makeEngine(STOP_FLOW);
    let result = { ok: false, checks: { database: 'failed', redis: 'ok' } };
    const failing = await listen(engine, { ready: async () => result });
    const res = await fetch(`${failing}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'not ready', checks: { database: 'failed', redis: 'ok' } });
    result = { ok: true, checks: { database: 'ok', redis: 'not configured' } };
    expect(await (await fetch(`${failing}/readyz`)).json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', redis: 'not configured' },
    });

    const throwing = await listen(engine, {
      ready: async () => {
        throw new Error('connect ECONNREFUSED postgres://user:secret@db:5432');
      },
    });
    const thrown = await fetch(`${throwing}/readyz`);
    expect(thrown.status).toBe(503);
    const text = await thrown.text();
    expect(JSON.parse(text)).toEqual({ status: 'not ready', error: 'readiness check failed' });
    expect(text).not.toContain('secret');
    expect(text).not.toContain('ECONNREFUSED');
  });

  it('/metrics answers 500 without internals when rendering fails', async () => {
    const url = await listen(makeEngine(STOP_FLOW), {
      metrics: {
        contentType: 'text/plain',
        render: async () => {
          throw new Error('at Registry.metrics (/app/node_modules/prom-client)');
        },
      },
    });
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: 'metrics unavailable' });
  });
});

describe('runtime readiness', () => {
  it('names the database when it is unreachable, and redis when REDIS_URL points where nothing listens', async () => {
    const pgPort = await deadPort();
    const redisPort = await deadPort();
    const runtime = await openRuntime({
      logger: silentLogger,
      env: { DATABASE_URL: `postgres://postgres@127.0.0.1:${pgPort}/postgres`, REDIS_URL: `redis://127.0.0.1:${redisPort}` },
    });
    cleanups.push(() => runtime.close());
    const started = Date.now();
    expect(await runtime.ready()).toEqual({ ok: false, checks: { database: 'failed', redis: 'failed' } });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('is ready on the embedded backend with redis not configured', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'leadflow-ready-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const runtime = await openRuntime({ logger: silentLogger, env: { LEADFLOW_DATA_DIR: dir } });
    cleanups.push(() => runtime.close());
    expect(await runtime.ready()).toEqual({ ok: true, checks: { database: 'ok', redis: 'not configured' } });
    await runtime.db.close();
    expect(await runtime.ready()).toEqual({ ok: false, checks: { database: 'failed', redis: 'not configured' } });
  });
});
