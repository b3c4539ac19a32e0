// The claimed Redis databases of test/helpers/redis-database.ts: two claims at once never share a
// database, a claimed database starts empty, and a released one is empty and its claim gone. Skipped by
// name, with the reason, without Redis.
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { redisProblem, TEST_REDIS_URL } from '../helpers/key-values.js';
import { claimableDatabases, claimRedisDatabase, type RedisDatabase } from '../helpers/redis-database.js';

if (redisProblem) console.warn(`skipping "claimed Redis databases": ${redisProblem}`);

(redisProblem ? describe.skip : describe)('claimed Redis databases', () => {
  const held: RedisDatabase[] = [];
  afterEach(async () => {
    await Promise.all(held.splice(0).map((d) => d.release()));
  });

  it('are never the benchmarks database nor database 0', () => {
    const pool = claimableDatabases();
    expect(pool).not.toContain(0);
    expect(pool).not.toContain(Number(process.env.BENCH_REDIS_DB || 9));
    expect(pool.every((n) => n >= 1 && n <= 15)).toBe(true);
  });

  it('two claims at once get different, empty databases; a released one is flushed and its claim gone', async () => {
    const [a, b] = await Promise.all([claimRedisDatabase('claim test a'), claimRedisDatabase('claim test b')]);
    held.push(a, b);
    expect(a.index).not.toBe(b.index);
    expect(a.url).toMatch(new RegExp(`/${a.index}$`));
    expect(await a.client.dbsize()).toBe(0);
    await a.client.set('leadflow:mine', 'a');
    expect(await b.client.get('leadflow:mine')).toBeNull();

    const spy = a.client.duplicate();
    const claims = new Redis(TEST_REDIS_URL);
    try {
      expect(await claims.get(`lf_test_db_claim:${a.index}`)).toContain('claim test a');
      await a.release();
      expect(await spy.dbsize()).toBe(0);
      // Free again: the claim is gone (or already another test's).
      expect(String(await claims.get(`lf_test_db_claim:${a.index}`))).not.toContain('claim test a');
    } finally {
      spy.disconnect();
      claims.disconnect();
    }
  });
});
