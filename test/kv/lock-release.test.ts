// The lock node's release while Redis is away: the `do` steps end while the connection is cut (a
// Redis restart, a network blip), the release fails, and it is tried again until Redis answers, so
// the key is free again as soon as Redis is back, long before the lock's life (20 s here) ends. Real
// Redis behind a TCP proxy (test/helpers/tcp-proxy.ts) that stops listening on demand (connections
// refused, as while Redis restarts).
import { setTimeout as delay } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { RedisKeyValue } from '../../adapters/kv/redis-key-value.js';
import { NodeRegistry, nodeList } from '../../engine/registry.js';
import { defineNode } from '../../engine/types.js';
import { kvNodes } from '../../nodes/data/index.js';
import { coreNodes } from '../../nodes/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { deleteNamespace, describeOnRedis, randomPrefix, TEST_REDIS_URL } from '../helpers/key-values.js';
import { pollFor } from '../helpers/poll.js';
import { makeEngine, shutdownEngines, waitForEnd } from '../helpers/run-flow.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/** Test only: holds the step until `release()` is called (or 10 s pass). */
let release: () => void = () => undefined;
const held = defineNode({
  type: 'test.held',
  description: 'Test only: keeps the step running until the test releases it.',
  params: Type.Object({}, { additionalProperties: false }),
  output: { description: '`{done: true}`.' },
  examples: [{ title: 'Held', step: { type: 'test.held', params: {} } }],
  async run() {
    await Promise.race([new Promise<void>((resolve) => (release = resolve)), delay(10_000)]);
    return { done: true };
  },
});
const registry = new NodeRegistry([...coreNodes, ...kvNodes, ...nodeList(held)]);

/** Life of the lock, ms: far longer than the test waits for the release, so a release is not an expiry. */
const TTL_MS = 20_000;
const FLOW = `
name: locked
steps:
  - id: guard
    type: lock
    params: { key: "{{ trigger.body.lead }}", ttl_ms: ${TTL_MS}, wait_ms: 1000 }
    do:
      - id: work
        type: test.held
`;

describeOnRedis('lock: a release that fails while Redis is away', () => {
  const prefix = randomPrefix();
  let proxy: TcpProxy;
  let throughProxy: RedisKeyValue;
  let direct: RedisKeyValue;

  beforeAll(async () => {
    proxy = await startTcpProxy(Number(new URL(TEST_REDIS_URL).port || 6379), new URL(TEST_REDIS_URL).hostname);
    const url = new URL(TEST_REDIS_URL);
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    throughProxy = new RedisKeyValue({ url: url.toString(), prefix, onError: () => undefined });
    direct = new RedisKeyValue({ url: TEST_REDIS_URL, prefix });
  });
  afterEach(shutdownEngines);
  afterAll(async () => {
    await deleteNamespace(direct.redis, prefix);
    await Promise.all([throughProxy?.close(), direct?.close()]);
    await proxy?.close();
  });

  it('is tried again and goes through once Redis is back, long before the lock would expire', async () => {
    const { logger, text } = captureLogger();
    const engine = makeEngine(FLOW, { registry, services: { kv: throughProxy }, logger });
    const { id } = await engine.start('locked', { body: { lead: 'ana' } });
    await pollFor('the lock taken', async () => (await direct.lockHolder('ana')) === `execution:${id}`);

    await proxy.unplug();
    release();
    await pollFor('the first release to fail', async () => text().includes('releasing the lock failed'));
    // Still held (neither released nor expired) while Redis cannot be reached.
    expect(await direct.lockHolder('ana')).toBe(`execution:${id}`);
    expect(await direct.redis.pttl(`${prefix}lock:ana`)).toBeGreaterThan(TTL_MS / 2);

    await proxy.up();
    await pollFor('the lock released', async () => (await direct.lockHolder('ana')) === null, TTL_MS / 2);
    const record = await waitForEnd(engine, id);
    expect(record.status).toBe('success');
    expect(text()).toContain('lock released once the key-value store answered again');
    // The key is free for the next holder at once.
    expect(await direct.acquireLock('ana', 1000, 'next')).toBe('next');
  });
});
