// The KeyValue contract on Redis (TEST_REDIS_URL), plus what only Redis shows: where keys live,
// their TTLs, and the EVALSHA -> EVAL fallback. Skipped by name, with the reason, without Redis.
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { createKeyValue } from '../../adapters/kv/create-key-value.js';
import { LuaScript } from '../../adapters/kv/lua-scripts.js';
import { RedisKeyValue } from '../../adapters/kv/redis-key-value.js';
import { describeOnRedis, openRedisKeyValue, TEST_REDIS_URL, useFreshKeyValue } from '../helpers/key-values.js';
import { keyValueContract } from './key-value.contract.js';

describeOnRedis('KeyValue contract [redis]', () => keyValueContract(openRedisKeyValue));

describeOnRedis('RedisKeyValue', () => {
  const store = useFreshKeyValue(openRedisKeyValue);
  const redis = () => (store.current.kv as RedisKeyValue).redis;

  it('is what createKeyValue gives with a URL', async () => {
    const kv = createKeyValue({ url: TEST_REDIS_URL, prefix: store.current.prefix });
    try {
      expect(kv).toBeInstanceOf(RedisKeyValue);
      await kv.ping();
      await kv.dedupe('via-factory', 60_000);
      expect(await redis().exists(`${store.current.prefix}dedupe:via-factory`)).toBe(1);
    } finally {
      await kv.close();
    }
  });

  it('keeps every key under its prefix and kind, each with a TTL', async () => {
    const { kv, prefix } = store.current;
    await kv.bufferPush('5:5511987654321', 'm1', { text: 'oi' }, Date.now(), 90_000);
    await kv.dedupe('5:5511987654321:m1', 60_000);
    await kv.acquireLock('5:5511987654321', 30_000);
    const [, keys] = await redis().scan('0', 'MATCH', `${prefix}*`, 'COUNT', 1000);
    expect(keys.sort()).toEqual([`${prefix}buf:5:5511987654321`, `${prefix}dedupe:5:5511987654321:m1`, `${prefix}lock:5:5511987654321`]);
    const ttl = async (key: string) => redis().pttl(`${prefix}${key}`);
    expect(await ttl('buf:5:5511987654321')).toBeGreaterThan(80_000);
    expect(await ttl('buf:5:5511987654321')).toBeLessThanOrEqual(90_000);
    expect(await ttl('dedupe:5:5511987654321:m1')).toBeGreaterThan(50_000);
    expect(await ttl('lock:5:5511987654321')).toBeLessThanOrEqual(30_000);
    expect(await ttl('lock:5:5511987654321')).toBeGreaterThan(20_000);
    // After an erase the phone appears nowhere under the prefix.
    expect(await kv.deleteByPrefix('5:5511987654321')).toBe(3);
    const [, after] = await redis().scan('0', 'MATCH', `${prefix}*`, 'COUNT', 1000);
    expect(after).toEqual([]);
  });

  it('runs a script the server has not cached (EVALSHA falls back to EVAL)', async () => {
    const script = new LuaScript(`-- ${randomBytes(8).toString('hex')}\nreturn ARGV[1] .. KEYS[1]`);
    expect(await script.run(redis(), ['k'], ['v'])).toBe('vk');
    expect(await script.run(redis(), ['k'], ['w'])).toBe('wk');
  });

  it('closes only a client it opened', async () => {
    const shared = new RedisKeyValue({ client: redis(), prefix: store.current.prefix });
    await shared.close();
    await expect(redis().ping()).resolves.toBe('PONG');
  });
});
