// GET /metrics and GET /readyz on the whole service, wired as `serve` wires it (test/e2e/stack.ts):
// a real intake over HTTP fills every family (executions, steps by node type, wait lag, AI calls and
// agent attempts with a 429 and a fallback, gateway sends with a retry, form to first message), and
// readiness answers 503 naming the database or Redis when one of them does not answer.
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseMetrics, sampleValue, samplesOf, type Sample } from '../helpers/metrics-text.js';
import { forEachBackend, startStack, type Stack } from './stack.js';
import { pollFor } from '../helpers/poll.js';

const root = join(import.meta.dirname, '../..');
const genericForm = () => JSON.parse(readFileSync(join(root, 'test/fixtures/forms/generic.json'), 'utf8'));
/** Short real wait at the start of intake, so the execution parks and is resumed by the scheduler. */
const INTAKE_DELAY_MS = 60;

let flowsDir: string;

beforeAll(() => {
  flowsDir = mkdtempSync(join(tmpdir(), 'leadflow-ops-flows-'));
  copyFileSync(join(root, 'flows/intake.yaml'), join(flowsDir, 'intake.yaml'));
  copyFileSync(join(root, 'flows/followup.yaml'), join(flowsDir, 'followup.yaml'));
  cpSync(join(root, 'flows/prompts'), join(flowsDir, 'prompts'), { recursive: true });
});

afterAll(() => {
  rmSync(flowsDir, { recursive: true, force: true });
});

async function scrape(stack: Stack): Promise<Sample[]> {
  const res = await fetch(`${stack.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(await res.text());
}

/** A port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

forEachBackend('ops endpoints', (backend) => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ backend, flowsDir, env: { LEADFLOW_INTAKE_DELAY_MS: String(INTAKE_DELAY_MS) } });
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('/readyz: 200 when the database (and Redis, when configured) answer', async () => {
    const res = await fetch(`${stack.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', redis: backend === 'embedded' ? 'not configured' : 'ok' },
    });
  });

  it('/metrics after one intake over HTTP: executions, steps by node type, wait lag, AI 429 and fallback, gateway retry, form to first message', async () => {
    const before = await scrape(stack);
    expect(sampleValue(before, 'leadflow_executions_total', { flow: 'intake', status: 'success' })).toBeUndefined();
    expect(sampleValue(before, 'leadflow_queue_depth')).toBe(0);

    // The primary model (OpenAI) answers 429: the fallback (Anthropic) writes the first message.
    stack.openai.queueChat({ status: 429, error_message: 'Rate limit reached' });
    stack.anthropic.queue({ text: 'Olá, Maria! Aqui é a Ana, da Clínica Sorriso.\n\nPosso te fazer umas perguntas?' });
    // The first send fails once with a 500 and is retried.
    stack.gateway.failNext('500', 1);
    const res = await stack.post('/form/intake', { ...genericForm(), clinica_id: String(stack.clinic.id) });
    expect(res.status).toBe(202);
    const { execution_id } = (await res.json()) as { execution_id: string };
    const done = await stack.engine.waitForEnd(execution_id);
    expect(done.status).toBe('success');
    expect(done.output).toMatchObject({ written_by: 'anthropic:claude-sonnet-4-6' });
    await stack.idle();

    const samples = await scrape(stack);
    // Executions: parked once at the wait, then ended successfully.
    expect(samplesOf(samples, 'leadflow_executions_total')).toEqual(
      expect.arrayContaining([
        { flow: 'intake', status: 'waiting', value: 1 },
        { flow: 'intake', status: 'success', value: 1 },
      ]),
    );
    expect(samplesOf(samples, 'leadflow_executions_total').filter((s) => s.status === 'failed')).toEqual([]);
    expect(sampleValue(samples, 'leadflow_wait_lag_seconds_count')).toBe(1);

    // Steps by node type, each once per step record of the execution that ended.
    const count = (node_type: string, status = 'success') =>
      sampleValue(samples, 'leadflow_step_duration_seconds_count', { node_type, status }) ?? 0;
    const ofType = (type: string) => done.steps.filter((s) => s.type === type && s.status === 'success').length;
    for (const type of ['wait', 'ai.generate', 'gateway.send', 'db.insert', 'phone.normalize']) {
      expect(ofType(type), type).toBeGreaterThan(0);
      expect(count(type), type).toBe(ofType(type));
    }
    expect(samplesOf(samples, 'leadflow_step_duration_seconds_count').filter((s) => s.status === 'error')).toEqual([]);

    // AI: the 429 and the fallback, per call and per agent attempt with the model's role.
    expect(sampleValue(samples, 'leadflow_ai_calls_total', { model: 'openai:gpt-4.1-mini', kind: 'chat', outcome: 'rate_limited' })).toBe(
      1,
    );
    expect(sampleValue(samples, 'leadflow_ai_calls_total', { model: 'anthropic:claude-sonnet-4-6', kind: 'chat', outcome: 'ok' })).toBe(1);
    expect(
      sampleValue(samples, 'leadflow_ai_agent_attempts_total', { model: 'openai:gpt-4.1-mini', role: 'primary', outcome: 'rate_limited' }),
    ).toBe(1);
    expect(
      sampleValue(samples, 'leadflow_ai_agent_attempts_total', { model: 'anthropic:claude-sonnet-4-6', role: 'fallback', outcome: 'ok' }),
    ).toBe(1);
    expect(sampleValue(samples, 'leadflow_ai_tokens_total', { model: 'anthropic:claude-sonnet-4-6', direction: 'output' })).toBeGreaterThan(
      0,
    );

    // Gateway: every message delivered once, the failed attempt retried.
    expect(stack.gateway.sent.length).toBe(3); // two paragraphs to the lead, one alert to the Hunter
    expect(sampleValue(samples, 'leadflow_gateway_sends_total', { provider: 'uazapi', outcome: 'ok' })).toBe(3);
    expect(sampleValue(samples, 'leadflow_gateway_sends_total', { provider: 'uazapi', outcome: 'retried' })).toBe(1);
    expect(sampleValue(samples, 'leadflow_gateway_sends_total', { outcome: 'error' })).toBeUndefined();

    // Rule 1: the intake's form_to_first_message_ms, observed in seconds.
    const ms = (done.output as { form_to_first_message_ms: number }).form_to_first_message_ms;
    expect(ms).toBeGreaterThanOrEqual(INTAKE_DELAY_MS);
    expect(sampleValue(samples, 'leadflow_form_to_first_message_seconds_count')).toBe(1);
    expect(sampleValue(samples, 'leadflow_form_to_first_message_seconds_sum')).toBeCloseTo(ms / 1000, 6);
    expect(sampleValue(samples, 'leadflow_form_to_first_message_seconds_bucket', { le: '120' })).toBe(1);

    // Nothing left due or running. In queue mode BullMQ moves a finished job out of `active` a moment
    // after the engine recorded its end (what stack.idle() reads), so the figure is read until it is 0.
    await pollFor('queue depth 0', async () => sampleValue(await scrape(stack), 'leadflow_queue_depth') === 0, 5_000);
    expect(sampleValue(samples, 'leadflow_process_resident_memory_bytes')).toBeGreaterThan(0);
  });
});

describe('/readyz when a dependency does not answer', () => {
  const stacks: Stack[] = [];
  afterEach(async () => {
    for (const s of stacks.splice(0)) await s.close();
  });

  it('503 naming the database when the database is closed; /healthz stays 200 (liveness)', async () => {
    const stack = await startStack({ flowsDir });
    stacks.push(stack);
    await stack.runtime.db.close();
    const res = await fetch(`${stack.url}/readyz`);
    expect(res.status).toBe(503);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ status: 'not ready', checks: { database: 'failed', redis: 'not configured' } });
    expect(text).not.toMatch(/\bat\s|sqlite|Error/);
    expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);
  });

  it('503 naming redis when REDIS_URL points at a port where nothing listens', async () => {
    const stack = await startStack({ flowsDir, redisUrl: `redis://127.0.0.1:${await deadPort()}`, kvPrefix: 'lf_test_unreachable:' });
    stacks.push(stack);
    const started = Date.now();
    const res = await fetch(`${stack.url}/readyz`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'not ready', checks: { database: 'ok', redis: 'failed' } });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});
