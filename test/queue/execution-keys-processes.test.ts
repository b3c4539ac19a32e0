// Executions by key across real processes in queue mode: a `leadflow serve` that only queues
// (LEADFLOW_WEBHOOK_MODE=queue) and a `leadflow worker`, on one PostgreSQL schema and one Redis
// database (claimed for this file, flushed before and after). Webhook starts of a flow with a
// `concurrency:` key replace its waiting execution, a flow.cancel from a webhook cancels one, and a
// waiting execution survives SIGKILL of every process. Skipped by name when PostgreSQL or Redis is absent.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnLeadflow as spawnProcess, type LeadflowProcess } from '../helpers/cli.js';
import { createTestSchema, dropTestSchema, postgresProblem, TEST_DATABASE_URL, withSearchPath } from '../helpers/databases.js';
import { closeServers, startServer, type TestServer } from '../helpers/http-echo-server.js';
import { redisProblem } from '../helpers/key-values.js';
import { claimRedisDatabase, type RedisDatabase } from '../helpers/redis-database.js';

const problem = [postgresProblem, redisProblem].filter(Boolean).join('; ') || null;
if (problem) console.warn(`skipping "executions by key across processes": ${problem}`);
const suite = problem ? describe.skip : describe;

const FOLLOWUP = `
name: followup
trigger: { webhook: { path: /followup, auth: none } }
concurrency: { key: "{{ trigger.body.phone }}" }
env: { TARGET: "" }
steps:
  - { id: pause, type: wait, params: { ms: 1500 } }
  - { id: after, type: http.request, params: { url: "{{ env.TARGET }}/after/{{ trigger.body.phone }}/{{ trigger.body.n }}" } }
`;

const ANSWER = `
name: answer
trigger: { webhook: { path: /answer, auth: none } }
steps:
  - id: drop
    type: flow.cancel
    params: { flow: followup, key: "{{ trigger.body.phone }}", reason: the lead answered }
`;

let schema: string;
let env: Record<string, string>;
let knex: Knex;
let redis: RedisDatabase | undefined;
let scratch: string;
let target: TestServer;
const procs: LeadflowProcess[] = [];

function spawn(name: string, args: string[]): LeadflowProcess {
  const proc = spawnProcess(name, args, { env });
  procs.push(proc);
  return proc;
}

async function startServe(name: string): Promise<string> {
  const proc = spawn(name, ['serve']);
  const line = await proc.waitForLog(/listening on port \d+/);
  return `http://127.0.0.1:${/listening on port (\d+)/.exec(line)![1]}`;
}

async function startWorker(name: string): Promise<void> {
  await spawn(name, ['worker']).waitForLog(/worker started/);
}

async function post(url: string, path: string, body: unknown): Promise<number> {
  const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await res.text();
  return res.status;
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function killAll(): Promise<void> {
  const live = procs.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  for (const p of live) p.child.kill('SIGKILL');
  await Promise.all(live.map((p) => p.exited));
}

const rowsOf = (phone: string) =>
  knex('executions')
    .where({ flow: 'followup', concurrency_key: phone })
    .orderBy('seq')
    .select('id', 'status', 'stop_reason', 'replaced_by');
const hits = (phone: string) => target.requests.filter((r) => r.path.startsWith(`/after/${phone}/`)).map((r) => r.path);

suite('executions by key across processes (queue mode, PostgreSQL and Redis)', () => {
  beforeAll(async () => {
    target = await startServer();
    schema = await createTestSchema();
    redis = await claimRedisDatabase('execution-keys-processes.test.ts');
    scratch = mkdtempSync(join(tmpdir(), 'leadflow-keys-'));
    const flows = join(scratch, 'flows');
    mkdirSync(flows);
    writeFileSync(join(flows, 'followup.yaml'), FOLLOWUP);
    writeFileSync(join(flows, 'answer.yaml'), ANSWER);
    env = {
      DATABASE_URL: withSearchPath(TEST_DATABASE_URL, schema),
      REDIS_URL: redis.url,
      PORT: '0',
      LOG_LEVEL: 'info',
      LEADFLOW_DATA_DIR: scratch,
      LEADFLOW_FLOWS_DIR: flows,
      LEADFLOW_WEBHOOK_MODE: 'queue',
      LEADFLOW_WEBHOOK_SECRET: '',
      LEADFLOW_LEASE_MS: '2000',
      OPENAI_API_KEY: 'test-key',
      ANTHROPIC_API_KEY: 'test-key',
      TARGET: target.url,
    };
    const migrated = await runCli(['migrate'], { env, timeoutMs: 30_000 });
    expect(migrated.code, migrated.stderr).toBe(0);
    knex = knexFactory({ client: 'pg', connection: env.DATABASE_URL!, pool: { min: 0, max: 2 } });
  });

  afterAll(async () => {
    await killAll();
    await knex?.destroy();
    if (schema) await dropTestSchema(schema);
    await redis?.release();
    await closeServers();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('webhook starts replace the waiting execution of their key; a cancel from another flow cancels one; SIGKILL loses none', async () => {
    const url = await startServe('serve-1');
    await startWorker('worker-1');

    // Three starts for one key: the last one runs, the two before end cancelled, replaced by the next.
    for (const n of [1, 2, 3]) {
      expect(await post(url, '/followup', { phone: 'A', n })).toBe(202);
      await until(`start ${n} recorded`, async () => (await rowsOf('A')).length === n);
    }
    await until('the last start of A to run', () => hits('A').length === 1, 20_000);
    await until('the last start of A to end', async () => (await rowsOf('A'))[2]?.status === 'success');
    const a = await rowsOf('A');
    expect(a.map((r) => r.status)).toEqual(['cancelled', 'cancelled', 'success']);
    expect(a[0]!.replaced_by).toBe(a[1]!.id);
    expect(a[1]!.replaced_by).toBe(a[2]!.id);
    expect(hits('A')).toEqual(['/after/A/3']);

    // A flow.cancel from another webhook's flow: the waiting execution never resumes.
    expect(await post(url, '/followup', { phone: 'B', n: 1 })).toBe(202);
    await until('B waiting', async () => (await rowsOf('B'))[0]?.status === 'waiting');
    expect(await post(url, '/answer', { phone: 'B' })).toBe(202);
    await until('B cancelled', async () => (await rowsOf('B'))[0]?.status === 'cancelled');
    expect((await rowsOf('B'))[0]!.stop_reason).toBe('the lead answered');

    // Every process killed while C waits: started again, C runs once.
    expect(await post(url, '/followup', { phone: 'C', n: 1 })).toBe(202);
    await until('C waiting', async () => (await rowsOf('C'))[0]?.status === 'waiting');
    await killAll();
    await startServe('serve-2');
    await until('C to run after the restart', () => hits('C').length === 1, 20_000);
    await until('C to end', async () => (await rowsOf('C'))[0]?.status === 'success');
    await new Promise((r) => setTimeout(r, 1500));
    expect(hits('B')).toEqual([]);
    expect(hits('C')).toEqual(['/after/C/1']);
  });
});
