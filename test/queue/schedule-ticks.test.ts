// Schedule triggers in queue mode across real processes: `leadflow serve` and two `leadflow worker`
// on one PostgreSQL schema and one Redis database (claimed for this file, flushed before and
// after), a flow ticking every second. Each tick runs exactly once among the three; after every
// process was down, the next start runs one catch-up, however many processes start. Skipped by
// name, with the reason, when PostgreSQL or Redis is absent.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnLeadflow, type LeadflowProcess } from '../helpers/cli.js';
import { createTestSchema, dropTestSchema, postgresProblem, TEST_DATABASE_URL, withSearchPath } from '../helpers/databases.js';
import { redisProblem } from '../helpers/key-values.js';
import { claimRedisDatabase, type RedisDatabase } from '../helpers/redis-database.js';

const problem = [postgresProblem, redisProblem].filter(Boolean).join('; ') || null;
if (problem) console.warn(`skipping "schedule ticks across processes": ${problem}`);
const suite = problem ? describe.skip : describe;

const TICK_FLOW = `name: every-second
trigger:
  schedule: { cron: "* * * * * *", timezone: UTC }
steps:
  - id: note
    type: set
    params: { values: { at: "{{ trigger.schedule.tick }}" } }
`;

let schema: string;
let env: Record<string, string>;
let knex: Knex;
let redis: RedisDatabase | undefined;
let scratch: string;
const procs: LeadflowProcess[] = [];

function start(name: string, command: 'serve' | 'worker'): LeadflowProcess {
  const proc = spawnLeadflow(name, [command, '--flows', join(scratch, 'flows')], { env });
  procs.push(proc);
  return proc;
}

const ready = (p: LeadflowProcess) => p.waitForLog(/listening on port \d+|worker started/, 20_000);

async function stop(list: LeadflowProcess[]): Promise<void> {
  for (const p of list) if (p.child.exitCode === null) p.child.kill('SIGTERM');
  const codes = await Promise.all(list.map((p) => p.exited));
  expect(codes).toEqual(list.map(() => 0));
}

interface Tick {
  at: number;
  catchUp: boolean;
  status: string;
}

async function ticks(): Promise<Tick[]> {
  const rows = (await knex('executions').where({ flow: 'every-second' }).select('trigger', 'status')) as Array<{
    trigger: string;
    status: string;
  }>;
  return rows
    .map((r) => {
      const schedule = JSON.parse(r.trigger).schedule as { tick: string; catch_up: boolean };
      return { at: Date.parse(schedule.tick), catchUp: schedule.catch_up, status: r.status };
    })
    .sort((a, b) => a.at - b.at);
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

suite('schedule ticks across processes (serve + workers on PostgreSQL and Redis)', () => {
  beforeAll(async () => {
    schema = await createTestSchema();
    redis = await claimRedisDatabase('schedule-ticks.test.ts');
    scratch = mkdtempSync(join(tmpdir(), 'leadflow-schedule-'));
    const flows = join(scratch, 'flows');
    mkdirSync(flows);
    writeFileSync(join(flows, 'every-second.yaml'), TICK_FLOW);
    env = {
      DATABASE_URL: withSearchPath(TEST_DATABASE_URL, schema),
      REDIS_URL: redis.url,
      PORT: '0',
      LOG_LEVEL: 'info',
      LEADFLOW_DATA_DIR: scratch,
      LEADFLOW_WEBHOOK_SECRET: '',
      OPENAI_API_KEY: 'test-key',
      ANTHROPIC_API_KEY: 'test-key',
      LEADFLOW_LEASE_MS: '2000',
    };
    knex = knexFactory({ client: 'pg', connection: env.DATABASE_URL!, pool: { min: 0, max: 2 } });
  }, 30_000);

  afterAll(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await knex?.destroy();
    if (schema) await dropTestSchema(schema);
    await redis?.release();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('every tick runs exactly once among serve and two workers; after a downtime, one catch-up', async () => {
    const serve = start('serve-1', 'serve');
    await ready(serve);
    const workers = [start('worker-1', 'worker'), start('worker-2', 'worker')];
    await Promise.all(workers.map(ready));
    const allUp = Date.now();
    // Ten ticks with all three processes up, and every execution finished.
    await until('ten ticks with every process up', async () => {
      const list = await ticks();
      return list.filter((t) => t.at > allUp).length >= 10 && list.every((t) => t.status === 'success');
    });
    await stop([serve, ...workers]);
    const stoppedAt = Date.now();
    const first = await ticks();
    // One execution per tick, and every second from the first tick to the last one ran. How many ticks
    // serve ran alone before the workers were ready depends on the machine's speed (none on a fast start),
    // so only the ticks with every process up are counted.
    expect(first.at(-1)!.at - first[0]!.at).toBe((first.length - 1) * 1000);
    expect(first.every((t) => t.status === 'success')).toBe(true);
    expect(first.filter((t) => t.at > allUp).length).toBeGreaterThanOrEqual(10);
    // A new schedule catches nothing up; every execution is one claim won by one of the processes.
    expect(first.some((t) => t.catchUp)).toBe(false);
    const started = [serve, ...workers].map((p) => p.logs().match(/schedule tick started/g)?.length ?? 0);
    expect(started.reduce((x, y) => x + y, 0)).toBe(first.length);

    await sleep(3000);
    // Every process down for three seconds; two start again at once: one catch-up between them.
    const again = [start('serve-2', 'serve'), start('worker-3', 'worker')];
    await Promise.all(again.map(ready));
    const restartedAt = Date.now();
    await sleep(2000);
    await until('the executions after the restart to finish', async () => (await ticks()).every((t) => t.status === 'success'));
    await stop(again);
    const all = await ticks();
    const later = all.filter((t) => t.at > first.at(-1)!.at);
    const catchUps = later.filter((t) => t.catchUp);
    expect(catchUps).toHaveLength(1);
    // The catch-up is the latest tick before the restart; nothing else of the downtime ran.
    expect(catchUps[0]!.at).toBeGreaterThan(stoppedAt);
    expect(catchUps[0]!.at).toBeLessThanOrEqual(restartedAt);
    const regular = later.filter((t) => !t.catchUp);
    expect(regular.length).toBeGreaterThanOrEqual(1);
    expect(regular.every((t) => t.at > catchUps[0]!.at)).toBe(true);
    expect(new Set(all.map((t) => t.at)).size).toBe(all.length);
    // From the catch-up on, every second once: the restarted processes missed nothing.
    expect(later[0]!.catchUp).toBe(true);
    expect(later.at(-1)!.at - later[0]!.at).toBe((later.length - 1) * 1000);
  }, 90_000);
});
