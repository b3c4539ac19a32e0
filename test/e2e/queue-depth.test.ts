// The queue depth a queue-mode service reports at GET /metrics (`leadflow_queue_depth`) is the shared
// queue's, as `serve` reports it (BullMqScheduler.dueOrRunning): executions due or being driven by
// any process on that Redis, not only those of this process. Two stacks (test/e2e/stack.ts) share one
// database, Redis and namespace, as two `serve` processes would: the first takes no jobs (its engine
// shut down, its HTTP app and metrics still up); the second records the executions posted to it and
// enqueues them (LEADFLOW_WEBHOOK_MODE=queue), driving one at a time (LEADFLOW_WORKER_CONCURRENCY=1).
// Each execution calls a loopback server that answers only when the test lets it, so while the first
// is held there the second is due: the first stack reports 2 although it runs neither.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/http-echo-server.js';
import { createTestSchema, dropTestSchema, TEST_DATABASE_URL, withSearchPath } from '../helpers/databases.js';
import { deleteNamespace, randomPrefix, TEST_REDIS_URL } from '../helpers/key-values.js';
import { parseMetrics, sampleValue } from '../helpers/metrics-text.js';
import { pollFor } from '../helpers/poll.js';
import { postgresRedisProblem, startStack, type Stack } from './stack.js';

const HELD_FLOW = `name: held
description: Calls a server that answers when the test lets it.
trigger:
  webhook:
    path: /held
    auth: none
env:
  HELD_URL: "http://127.0.0.1:9"
steps:
  - id: call
    type: http.request
    params:
      url: "{{ env.HELD_URL }}"
      timeout_ms: 60000
`;

if (postgresRedisProblem) console.warn(`skipping "queue depth in queue mode": ${postgresRedisProblem}`);
const suite = postgresRedisProblem ? describe.skip : describe;

async function queueDepth(stack: Stack): Promise<number | undefined> {
  const res = await fetch(`${stack.url}/metrics`);
  return sampleValue(parseMetrics(await res.text()), 'leadflow_queue_depth');
}

suite(`queue depth in queue mode [postgres + redis]${postgresRedisProblem ? ` (skipped: ${postgresRedisProblem})` : ''}`, () => {
  const releases: Array<() => void> = [];
  let held: TestServer;
  let flowsDir: string;
  let schema: string;
  const kvPrefix = randomPrefix();
  let watching: Stack;
  let driving: Stack;

  beforeAll(async () => {
    held = await startServer(() => new Promise((resolve) => releases.push(() => resolve({ json: { ok: true } }))));
    flowsDir = mkdtempSync(join(tmpdir(), 'leadflow-queue-depth-'));
    writeFileSync(join(flowsDir, 'held.yaml'), HELD_FLOW);
    schema = await createTestSchema();
    const shared = { backend: 'postgres+redis' as const, flowsDir, databaseUrl: withSearchPath(TEST_DATABASE_URL, schema), kvPrefix };
    watching = await startStack(shared);
    await watching.engine.shutdown();
    driving = await startStack({
      ...shared,
      env: { HELD_URL: held.url, LEADFLOW_WEBHOOK_MODE: 'queue', LEADFLOW_WORKER_CONCURRENCY: '1' },
    });
  }, 60_000);

  afterAll(async () => {
    for (const release of releases) release();
    await driving?.close();
    await watching?.close();
    await held?.close();
    const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 3 });
    await deleteNamespace(redis, kvPrefix).finally(() => redis.disconnect());
    if (schema) await dropTestSchema(schema);
    rmSync(flowsDir, { recursive: true, force: true });
  });

  it('counts the jobs another process drives and those due, and falls back to 0 once they end', async () => {
    expect(await queueDepth(watching)).toBe(0);
    for (const n of [1, 2]) expect((await driving.post('/held', { n })).status).toBe(202);
    // The first is driven (held in its call), the second is due behind it.
    await pollFor('the first call held', async () => held.requests.length === 1);
    expect(await queueDepth(watching)).toBe(2);
    expect(await queueDepth(driving)).toBe(2);

    releases.shift()?.();
    await pollFor('the second call held', async () => held.requests.length === 2);
    await pollFor('depth 1: the second driven, nothing due', async () => (await queueDepth(watching)) === 1);

    releases.shift()?.();
    await pollFor('depth 0: both ended', async () => (await queueDepth(watching)) === 0);
    const ended = await driving.executions('held');
    expect(ended.map((r) => r.status)).toEqual(['success', 'success']);
    expect(held.requests.length).toBe(2);
  });
});
