// Retry policy: the delay function on its own, then attempts, backoff and `when` in real runs.
import { afterEach, describe, expect, it } from 'vitest';
import { retryDelay } from '../../engine/run/retry.js';
import type { RetryPolicy } from '../../engine/types.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { runFlow, shutdownEngines, stepRecord } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
  await closeServers();
});

const policy = (over: Partial<RetryPolicy> = {}): RetryPolicy => ({
  attempts: 10,
  delay_ms: 100,
  backoff: 2,
  max_delay_ms: 60_000,
  jitter: 0,
  ...over,
});

describe('retryDelay', () => {
  it('grows exponentially from delay_ms by the backoff factor', () => {
    const p = policy();
    expect([1, 2, 3, 4, 5].map((a) => retryDelay(p, a))).toEqual([100, 200, 400, 800, 1600]);
    expect([1, 2, 3].map((a) => retryDelay(policy({ backoff: 3, delay_ms: 20 }), a))).toEqual([20, 60, 180]);
  });

  it('stays constant with backoff 1', () => {
    expect([1, 2, 5].map((a) => retryDelay(policy({ backoff: 1 }), a))).toEqual([100, 100, 100]);
  });

  it('caps every delay at max_delay_ms', () => {
    const p = policy({ max_delay_ms: 500 });
    expect([1, 2, 3, 4, 10].map((a) => retryDelay(p, a))).toEqual([100, 200, 400, 500, 500]);
  });

  it('moves each delay by at most ±jitter of itself, using the injected random', () => {
    const p = policy({ jitter: 0.5 });
    expect(retryDelay(p, 1, () => 0)).toBe(50);
    expect(retryDelay(p, 1, () => 0.5)).toBe(100);
    expect(retryDelay(p, 1, () => 0.999999)).toBe(150);
    expect(retryDelay(p, 3, () => 0)).toBe(200);
    expect(retryDelay(p, 3, () => 0.25)).toBe(300);
    for (let i = 0; i <= 100; i++) {
      const d = retryDelay(policy({ jitter: 0.2 }), 2, () => i / 101);
      expect(d).toBeGreaterThanOrEqual(160);
      expect(d).toBeLessThanOrEqual(240);
    }
  });

  it('never exceeds max_delay_ms, even with jitter', () => {
    const p = policy({ max_delay_ms: 500, jitter: 0.5 });
    expect(retryDelay(p, 10, () => 0)).toBe(250);
    for (const r of [0, 0.3, 0.5, 0.7, 0.999999]) expect(retryDelay(p, 10, () => r)).toBeLessThanOrEqual(500);
    // Below the cap, jitter still moves the delay both ways.
    expect(retryDelay(p, 1, () => 0.999999)).toBe(150);
  });

  it('uses Math.random by default', () => {
    const values = new Set(Array.from({ length: 50 }, () => retryDelay(policy({ jitter: 1, delay_ms: 10_000 }), 1)));
    expect(values.size).toBeGreaterThan(1);
    for (const v of values) expect(v).toBeGreaterThanOrEqual(0);
  });
});

describe('executor retry', () => {
  it('retries until an attempt succeeds and records the attempt count', async () => {
    const server = await startServer((_req, i) => (i < 2 ? { status: 503, json: { error: 'busy' } } : { json: { ok: true } }));
    const { record } = await runFlow(
      `
name: retry-ok
steps:
  - id: call
    type: http.request
    params: { url: "{{ trigger.body.url }}" }
    retry: { attempts: 4, delay_ms: 20 }
`,
      { body: { url: `${server.url}/x` } },
    );
    expect(record.status).toBe('success');
    expect(server.requests).toHaveLength(3);
    const call = stepRecord(record, 'call');
    expect(call.attempt).toBe(3);
    expect(call.status).toBe('success');
    expect(call.error).toBeUndefined();
    expect((call.output as { body: unknown }).body).toEqual({ ok: true });
  });

  it('fails after the last attempt, naming the attempt', async () => {
    const server = await startServer(() => ({ status: 500, text: 'down' }));
    const { record } = await runFlow(
      `
name: retry-exhausted
steps:
  - id: call
    type: http.request
    params: { url: "{{ trigger.body.url }}" }
    retry: { attempts: 3, delay_ms: 10 }
`,
      { body: { url: server.url } },
    );
    expect(record.status).toBe('failed');
    expect(server.requests).toHaveLength(3);
    expect(stepRecord(record, 'call').attempt).toBe(3);
    expect(record.error).toMatchObject({ step: 'call', status: 500, body: 'down' });
    expect(record.error?.message).toContain('step "call" (http.request), attempt 3');
  });

  it('waits longer before each later attempt (exponential backoff)', async () => {
    const server = await startServer(() => ({ status: 503, text: 'busy' }));
    const { record } = await runFlow(
      `
name: retry-backoff
steps:
  - id: call
    type: http.request
    params: { url: "{{ trigger.body.url }}" }
    retry: { attempts: 4, delay_ms: 30, backoff: 4 }
`,
      { body: { url: server.url } },
    );
    expect(record.status).toBe('failed');
    expect(server.requests).toHaveLength(4);
    const at = server.requests.map((r) => r.at);
    const gaps = [at[1]! - at[0]!, at[2]! - at[1]!, at[3]! - at[2]!];
    // Delays 30, 120, 480 ms: each gap at least its delay (timers never fire early by more than ~1 ms).
    expect(gaps[0]).toBeGreaterThanOrEqual(28);
    expect(gaps[1]).toBeGreaterThanOrEqual(115);
    expect(gaps[2]).toBeGreaterThanOrEqual(470);
    expect(gaps[2]).toBeGreaterThan(gaps[0]!);
    expect(gaps[2]).toBeGreaterThan(gaps[1]!);
  });

  it('retries only when `when` holds on the error: 5xx retried, 404 not', async () => {
    const server = await startServer((req) => {
      const n = server.requests.filter((r) => r.path === req.path).length;
      // `requests` already holds this request: n counts it.
      if (req.path === '/flaky') return n <= 2 ? { status: 502, json: { n } } : { json: { n } };
      return { status: 404, json: { error: 'not found' } };
    });
    const flow = `
name: retry-when
steps:
  - id: call
    type: http.request
    params: { url: "{{ trigger.body.url }}" }
    retry: { attempts: 5, delay_ms: 10, when: "{{ error.status >= 500 }}" }
`;
    const flaky = await runFlow(flow, { body: { url: `${server.url}/flaky` } });
    expect(flaky.record.status).toBe('success');
    expect(stepRecord(flaky.record, 'call').attempt).toBe(3);
    expect(server.requests.filter((r) => r.path === '/flaky')).toHaveLength(3);

    const missing = await runFlow(flow, { body: { url: `${server.url}/missing` } });
    expect(missing.record.status).toBe('failed');
    expect(server.requests.filter((r) => r.path === '/missing')).toHaveLength(1);
    expect(stepRecord(missing.record, 'call').attempt).toBe(1);
    expect(missing.record.error).toMatchObject({ step: 'call', status: 404, body: { error: 'not found' } });
  });

  it('`when` sees the error name, message and body', async () => {
    const server = await startServer((_req, i) =>
      i === 0 ? { status: 409, json: { code: 'locked' } } : i === 1 ? { status: 409, json: { code: 'gone' } } : { json: {} },
    );
    const { record } = await runFlow(
      `
name: retry-when-body
steps:
  - id: call
    type: http.request
    params: { url: "{{ trigger.body.url }}" }
    retry: { attempts: 5, delay_ms: 5, when: "{{ error.name = 'HttpStatusError' and $contains(error.message, '409') and error.body.code = 'locked' }}" }
`,
      { body: { url: server.url } },
    );
    // First 409 (locked) is retried, second 409 (gone) is not.
    expect(server.requests).toHaveLength(2);
    expect(record.status).toBe('failed');
    expect(stepRecord(record, 'call').attempt).toBe(2);
    expect(record.error?.body).toEqual({ code: 'gone' });
  });

  it('re-resolves parameters on each attempt', async () => {
    const server = await startServer((_req, i) => (i === 0 ? { status: 500, text: 'x' } : { json: {} }));
    const { record } = await runFlow(
      `
name: retry-params
steps:
  - id: call
    type: http.request
    params: { url: "{{ trigger.body.url }}", query: { t: "{{ $millis() }}" } }
    retry: { attempts: 2, delay_ms: 30 }
`,
      { body: { url: server.url } },
    );
    expect(record.status).toBe('success');
    const [t1, t2] = server.requests.map((r) => Number(r.query.t));
    expect(t2! - t1!).toBeGreaterThanOrEqual(25);
    expect((stepRecord(record, 'call').params as { query: { t: number } }).query.t).toBe(t2);
  });
});
