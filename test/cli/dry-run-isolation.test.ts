// A dry run changes nothing, the key-value store included: with REDIS_URL set, `leadflow run
// --dry-run` of a flow that marks (dedupe) and erases (kv.erase) leaves Redis exactly as it was.
// A Redis database claimed for this file, flushed before and after (the CLI uses the default `leadflow:`
// namespace). Skipped by name, with the reason, without Redis.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, SCRATCH } from '../helpers/cli.js';
import { redisProblem } from '../helpers/key-values.js';
import { claimRedisDatabase, type RedisDatabase } from '../helpers/redis-database.js';

const FLOW = `
name: marks
trigger:
  webhook: { path: /marks, auth: none }
steps:
  - id: mark
    type: dedupe
    params: { key: "7:5511900000001:msg", ttl_ms: 60000 }
  - id: forget
    type: kv.erase
    params: { key: "7:5511900000002" }
`;

if (redisProblem) console.warn(`skipping "dry runs leave Redis alone": ${redisProblem}`);
const suite = redisProblem ? describe.skip : describe;

suite('dry runs leave Redis alone', () => {
  let database: RedisDatabase | undefined;
  let dir: string;

  beforeAll(async () => {
    database = await claimRedisDatabase('dry-run-isolation.test.ts');
    dir = mkdtempSync(join(SCRATCH, 'dry-kv-'));
    writeFileSync(join(dir, 'marks.yaml'), FLOW);
    writeFileSync(join(dir, 'payload.json'), '{}');
  });

  afterAll(async () => {
    await database?.release();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('marks and erasures of a dry run stay in a scratch store; the same run for real changes Redis', async () => {
    const redis = database!.client;
    await redis.set('leadflow:dedupe:7:5511900000002:old', '1');
    const env = { REDIS_URL: database!.url, LEADFLOW_DATA_DIR: join(dir, 'data') };
    const dry = await runCli(['run', 'marks', '--payload', join(dir, 'payload.json'), '--flows', dir, '--dry-run', '--json'], {
      env,
      timeoutMs: 30_000,
    });
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout).status).toBe('success');
    expect((await redis.keys('*')).sort()).toEqual(['leadflow:dedupe:7:5511900000002:old']);

    const real = await runCli(['run', 'marks', '--payload', join(dir, 'payload.json'), '--flows', dir, '--json'], {
      env,
      timeoutMs: 30_000,
    });
    expect(real.code, real.stderr).toBe(0);
    expect((await redis.keys('*')).sort()).toEqual(['leadflow:dedupe:7:5511900000001:msg']);
  }, 60_000);
});
