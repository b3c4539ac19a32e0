// A Redis database of its own for a test that runs LeadFlow processes. Those use the default
// `leadflow:` key prefix, so two of them on one database would read and flush each other's queue,
// waits and locks: a test file (or a second test run on the same Redis) must never share one.
//
// Contract: `claimRedisDatabase` takes one of databases 1–15 of TEST_REDIS_URL (database 0 holds the
// claims and the prefixed key-value suites; BENCH_REDIS_DB, default 9, is left to benchmarks) by
// `SET lf_test_db_claim:<n> NX` in database 0 with a 2-minute expiry renewed every 20 s, so a claim
// left by a killed run frees itself. The database is flushed once claimed and again on release.
// When every database is claimed it waits, up to 120 s, then throws naming the holders.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { TEST_REDIS_URL } from './key-values.js';

const CLAIM_PREFIX = 'lf_test_db_claim:';
const CLAIM_TTL_MS = 120_000;
const RENEW_EVERY_MS = 20_000;
const WAIT_FOR_FREE_MS = 120_000;
const RETRY_EVERY_MS = 250;

/** A claimed, empty Redis database: `url` for the processes' REDIS_URL, `client` for the test's own checks. */
export interface RedisDatabase {
  index: number;
  url: string;
  client: Redis;
  /** Flushes the database, gives up the claim and closes `client`. Safe to call twice. */
  release(): Promise<void>;
}

function benchDatabase(): number {
  const configured = Number(process.env.BENCH_REDIS_DB || 9);
  return Number.isInteger(configured) ? configured : 9;
}

/** The databases a test may claim, in the order they are tried. */
export function claimableDatabases(): number[] {
  const bench = benchDatabase();
  return Array.from({ length: 15 }, (_, i) => i + 1).filter((n) => n !== bench);
}

function urlOf(index: number): string {
  const u = new URL(TEST_REDIS_URL);
  u.pathname = `/${index}`;
  return u.toString();
}

// Renews or deletes a claim only while it is still this owner's.
const RENEW_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const DELETE_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** Claims a free database for `owner` (a name shown to whoever finds every database taken). */
export async function claimRedisDatabase(owner: string): Promise<RedisDatabase> {
  const claims = new Redis(urlOf(0), { maxRetriesPerRequest: 3 });
  const token = `${owner} pid ${process.pid} ${randomBytes(4).toString('hex')}`;
  const started = Date.now();
  let index: number | undefined;
  try {
    while (index === undefined) {
      for (const n of claimableDatabases()) {
        if ((await claims.set(`${CLAIM_PREFIX}${n}`, token, 'PX', CLAIM_TTL_MS, 'NX')) === 'OK') {
          index = n;
          break;
        }
      }
      if (index !== undefined) break;
      if (Date.now() - started > WAIT_FOR_FREE_MS) {
        const holders = await Promise.all(claimableDatabases().map(async (n) => `${n}: ${await claims.get(`${CLAIM_PREFIX}${n}`)}`));
        throw new Error(`every test Redis database is claimed after ${WAIT_FOR_FREE_MS / 1000} s (${holders.join('; ')})`);
      }
      await new Promise((r) => setTimeout(r, RETRY_EVERY_MS));
    }
  } catch (err) {
    claims.disconnect();
    throw err;
  }
  const key = `${CLAIM_PREFIX}${index}`;
  const renew = setInterval(() => {
    claims.eval(RENEW_IF_OWNER, 1, key, token, CLAIM_TTL_MS).catch(() => undefined);
  }, RENEW_EVERY_MS);
  renew.unref();
  const client = new Redis(urlOf(index), { maxRetriesPerRequest: 3 });
  await client.flushdb();
  let released = false;
  return {
    index,
    url: urlOf(index),
    client,
    async release() {
      if (released) return;
      released = true;
      clearInterval(renew);
      try {
        await client.flushdb();
        await claims.eval(DELETE_IF_OWNER, 1, key, token);
      } finally {
        client.disconnect();
        claims.disconnect();
      }
    },
  };
}
