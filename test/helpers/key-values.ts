// The store matrix of key-value suites: each suite runs on the in-process store and on Redis
// (TEST_REDIS_URL, default redis://127.0.0.1:6379) under a namespace of its own
// (`lf_test_<random>:`, every key of it deleted at the end). When Redis does not answer, its suites
// are reported as skipped by name, with the reason, never silently passed; when LEADFLOW_TEST_REQUIRE
// lists `redis` (CI), every test file importing this one fails instead (./required-parts.ts).
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { describe } from 'vitest';
import { freshPerTest } from './fresh-per-test.js';
import { partProblem } from './required-parts.js';
import type { KeyValue } from '../../adapters/kv/key-value.js';
import { MemoryKeyValue, MemoryKeyValueStorage } from '../../adapters/kv/memory-key-value.js';
import { RedisKeyValue } from '../../adapters/kv/redis-key-value.js';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';

export type KeyValueKind = 'memory' | 'redis';

/** A fresh, empty store; `cleanup` closes every client and deletes every key of its namespace. */
export interface TestKeyValue {
  kv: KeyValue;
  kind: KeyValueKind;
  /** Namespace of this store's keys. */
  prefix: string;
  /** Another client of the same data (a second process, as far as the data is concerned); default the same namespace. */
  openAnother(prefix?: string): KeyValue;
  cleanup(): Promise<void>;
}

export type OpenKeyValue = () => Promise<TestKeyValue>;

function redisUrlForDisplay(): string {
  return TEST_REDIS_URL.replace(/:[^:@/]*@/, ':***@');
}

/** Why Redis cannot be used, or null when it answers. */
async function probeRedis(): Promise<string | null> {
  const client = new Redis(TEST_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // The socket error (e.g. ECONNREFUSED) says more than the "Connection is closed." that follows it.
  let socketError: Error | undefined;
  client.on('error', (err: Error) => {
    socketError ??= err;
  });
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (err) {
    const cause = socketError ?? (err as Error);
    return `Redis at ${redisUrlForDisplay()} does not answer (${cause.message || cause.name})`;
  } finally {
    client.disconnect();
  }
}

/**
 * Why Redis cannot be used, or null when it answers. Probed once per test file, at import; when
 * LEADFLOW_TEST_REQUIRE lists `redis` and it does not answer, the import throws, naming it.
 */
export const redisProblem: string | null = partProblem('redis', await probeRedis());

/** A fresh key namespace `lf_test_<random>:` (nothing of it exists yet). */
export const randomPrefix = () => `lf_test_${randomBytes(6).toString('hex')}:`;

export const openMemoryKeyValue: OpenKeyValue = async () => {
  const storage = new MemoryKeyValueStorage();
  const prefix = randomPrefix();
  const kv = new MemoryKeyValue({ prefix, storage });
  const others: KeyValue[] = [];
  return {
    kv,
    kind: 'memory',
    prefix,
    openAnother(other = prefix) {
      const store = new MemoryKeyValue({ prefix: other, storage });
      others.push(store);
      return store;
    },
    async cleanup() {
      await Promise.all([kv, ...others].map((s) => s.close()));
    },
  };
};

/** Deletes every key whose name starts with `prefix` (SCAN + DEL, never KEYS); returns how many went. */
export async function deleteNamespace(redis: Redis, prefix: string): Promise<number> {
  if (prefix === '') throw new Error('refusing to delete every key: empty prefix');
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

export const openRedisKeyValue: OpenKeyValue = async () => {
  const prefix = randomPrefix();
  const kv = new RedisKeyValue({ url: TEST_REDIS_URL, prefix });
  const others: KeyValue[] = [];
  const namespaces = new Set([prefix]);
  return {
    kv,
    kind: 'redis',
    prefix,
    openAnother(other = prefix) {
      namespaces.add(other);
      const store = new RedisKeyValue({ url: TEST_REDIS_URL, prefix: other });
      others.push(store);
      return store;
    },
    async cleanup() {
      // Every key of every namespace this test used, found with SCAN.
      for (const ns of namespaces) await deleteNamespace(kv.redis, ns);
      await Promise.all([kv, ...others].map((s) => s.close()));
    },
  };
};

/** `describe(title)` running on Redis, or `describe.skip` with the reason in its name and a warning. */
export function describeOnRedis(title: string, body: () => void): void {
  if (redisProblem) {
    console.warn(`skipping "${title}": ${redisProblem}`);
    describe.skip(`${title} (skipped: ${redisProblem})`, body);
  } else {
    describe(title, body);
  }
}

/** Declares `describe("<title> [memory]")` and `describe("<title> [redis]")` with the same body. */
export function forEachKeyValue(title: string, body: (open: OpenKeyValue, kind: KeyValueKind) => void): void {
  describe(`${title} [memory]`, () => body(openMemoryKeyValue, 'memory'));
  describeOnRedis(`${title} [redis]`, () => body(openRedisKeyValue, 'redis'));
}

/**
 * A fresh, empty store for every test of the enclosing describe: call inside a describe body and
 * read `.current` in the tests.
 */
export function useFreshKeyValue(open: () => Promise<TestKeyValue>): { readonly current: TestKeyValue } {
  return freshPerTest(open, 'key-value store (useFreshKeyValue() works inside tests only)');
}
