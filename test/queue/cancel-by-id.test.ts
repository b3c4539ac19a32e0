// Queue mode (BullMQ on Redis, PostgreSQL): a waiting execution cancelled by id keeps its delayed
// wake job in the queue (BullMqScheduler.cancel removes nothing); when the job fires, in whichever
// process takes it, the claim refuses the cancelled record and nothing runs. Two engines in this
// process stand for two processes: each its own connection pool and its own BullMQ worker on one
// queue (a fresh key prefix, deleted after). Skipped by name, with the reason, without PostgreSQL or Redis.
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../adapters/db/database.js';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { BullMqScheduler } from '../../adapters/queue/bullmq-scheduler.js';
import { postgresProblem, openTestDatabase, type TestDatabase } from '../helpers/databases.js';
import { closeServers, startServer } from '../helpers/http-echo-server.js';
import { deleteNamespace, randomPrefix, redisProblem, TEST_REDIS_URL } from '../helpers/key-values.js';
import { makeEngine, shutdownEngines, sleep, until } from '../helpers/run-flow.js';

const problem = [postgresProblem, redisProblem].filter(Boolean).join('; ') || null;
if (problem) console.warn(`skipping "cancel by id in queue mode": ${problem}`);
const suite = problem ? describe.skip : describe;

const later = `
name: later
steps:
  - { id: pause, type: wait, params: { ms: 1200 } }
  - { id: after, type: http.request, params: { url: "{{ trigger.body.url }}/after" } }
`;

const opened: Array<{ close(): Promise<unknown> }> = [];
let database: TestDatabase | undefined;
let prefix: string | undefined;

afterEach(async () => {
  await shutdownEngines();
  for (const o of opened.splice(0)) await o.close();
  await closeServers();
  if (prefix) {
    const redis = new Redis(TEST_REDIS_URL);
    await deleteNamespace(redis, prefix);
    redis.disconnect();
    prefix = undefined;
  }
  await database?.cleanup();
  database = undefined;
});

suite(`cancel by id in queue mode${problem ? ` (skipped: ${problem})` : ''}`, () => {
  it("a cancelled waiting execution's delayed wake fires in either process and runs nothing", async () => {
    database = await openTestDatabase('postgres');
    prefix = randomPrefix().replace(/:$/, '');
    const server = await startServer();
    const engines = [database.db, database.openAnother()].map((db: Database) => {
      const scheduler = new BullMqScheduler({ url: TEST_REDIS_URL, prefix, concurrency: 4, lockDurationMs: 5000 });
      opened.push(scheduler);
      return makeEngine(later, { store: new DbExecutionStore(db), scheduler, leaseMs: 5000 });
    });
    const woken: string[] = [];
    for (const engine of engines) {
      const resume = engine.resume.bind(engine);
      vi.spyOn(engine, 'resume').mockImplementation(async (id) => {
        const result = await resume(id);
        woken.push(`${id}:${result?.status ?? 'none'}`);
        return result;
      });
      await engine.startScheduler();
    }
    const [driver, canceller] = engines as [ReturnType<typeof makeEngine>, ReturnType<typeof makeEngine>];
    const handle = await driver.start('later', { body: { url: server.url } });
    expect((await handle.settled).status).toBe('waiting');
    const queue = (driver.scheduler as BullMqScheduler).queue;
    await until(async () => (await queue.getJobCounts('delayed')).delayed === 1);

    expect((await canceller.cancelExecution(handle.id, 'not needed')).cancelled).toBe(true);
    // The job is still there; it fires at the wake time and finds nothing to take.
    expect((await queue.getJobCounts('delayed')).delayed).toBe(1);
    await until(async () => woken.some((w) => w.startsWith(`${handle.id}:`)), 10_000);
    expect(woken.filter((w) => w.startsWith(`${handle.id}:`))).toEqual([`${handle.id}:cancelled`]);
    await until(async () => {
      const counts = await queue.getJobCounts('delayed', 'waiting', 'active');
      return counts.delayed === 0 && counts.waiting === 0 && counts.active === 0;
    });
    await sleep(300);
    const record = (await driver.store.get(handle.id))!;
    expect(record).toMatchObject({ status: 'cancelled', stop_reason: 'not needed' });
    expect(record.steps.map((s) => [s.id, s.status])).toEqual([['pause', 'waiting']]);
    expect(server.requests).toHaveLength(0);
  }, 30_000);
});
