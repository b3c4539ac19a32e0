// Pinned flow versions across real processes (CONTRACT.md §10): an execution parked at a wait when
// its service is killed (SIGKILL) and its flow edited finishes on the version it started on — the
// steps before the wait are not run again — while a new trigger runs the edited flow. Embedded: one
// `serve` on SQLite, killed and started again on the edited file. PostgreSQL + Redis: a `serve` on
// the old file and a `worker` on the edited one; the worker resumes the execution the killed serve
// started, on the serve's version read from the database. Also `serve --watch` editing the flow
// while an execution waits.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../adapters/db/database.js';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { runCli, spawnLeadflow, type LeadflowProcess } from '../helpers/cli.js';
import { createTestSchema, dropTestSchema, TEST_DATABASE_URL, withSearchPath } from '../helpers/databases.js';
import { claimRedisDatabase } from '../helpers/redis-database.js';
import { type Backend, forEachBackend } from './stack.js';

const OLD = `name: paused
trigger:
  webhook: { path: /paused }
steps:
  - { id: a, type: set, params: { values: { from: old } } }
  - { id: pause, type: wait, params: { ms: 4000 } }
  - { id: b, type: set, params: { values: { from: old } } }
`;
const NEW = `name: paused
trigger:
  webhook: { path: /paused }
steps:
  - { id: first, type: set, params: { values: { from: new } } }
  - { id: pause2, type: wait, params: { ms: 200 } }
  - { id: b, type: set, params: { values: { from: new } } }
`;

const scratch = mkdtempSync(join(tmpdir(), 'leadflow-versions-'));
const procs: LeadflowProcess[] = [];
afterEach(async () => {
  const live = procs.splice(0).filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  for (const p of live) p.child.kill('SIGKILL');
  await Promise.all(live.map((p) => p.exited));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function flowsDir(yaml: string): string {
  const dir = mkdtempSync(join(scratch, 'flows-'));
  writeFileSync(join(dir, 'paused.yaml'), yaml);
  return dir;
}

async function start(
  kind: 'serve' | 'worker',
  dir: string,
  env: Record<string, string>,
  extra: string[] = [],
): Promise<{ proc: LeadflowProcess; url: string }> {
  const proc = spawnLeadflow(kind, [kind, '--flows', dir, ...extra], { env, timeoutMs: 20_000 });
  procs.push(proc);
  const line = await proc.waitForLog(kind === 'serve' ? /listening on port \d+/ : /worker started/);
  return { proc, url: kind === 'serve' ? `http://127.0.0.1:${/listening on port (\d+)/.exec(line)![1]}` : '' };
}

async function kill(proc: LeadflowProcess): Promise<void> {
  proc.child.kill('SIGKILL');
  await proc.exited;
}

async function trigger(url: string): Promise<string> {
  const res = await fetch(`${url}/paused`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(res.status).toBe(202);
  return ((await res.json()) as { execution_id: string }).execution_id;
}

async function until(
  store: DbExecutionStore,
  id: string,
  done: (r: ExecutionRecord) => boolean,
  timeoutMs = 30_000,
): Promise<ExecutionRecord> {
  const started = Date.now();
  for (;;) {
    const record = await store.get(id);
    if (record && done(record)) return record;
    if (Date.now() - started > timeoutMs) throw new Error(`execution ${id}: ${JSON.stringify(record?.status)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const parkedAtPause = (r: ExecutionRecord) => r.status === 'waiting' && r.steps.some((s) => s.key === 'pause');
const ended = (r: ExecutionRecord) => r.status !== 'waiting' && r.status !== 'running';
const keys = (r: ExecutionRecord) => r.steps.map((s) => s.key);
const outputOf = (r: ExecutionRecord, key: string) => r.steps.find((s) => s.key === key)?.output;

/** What each backend's processes are started with, and a store on the same database for the test to read. */
interface Setup {
  env: Record<string, string>;
  db: Database;
  close(): Promise<void>;
}

async function setUp(backend: Backend): Promise<Setup> {
  const base = { PORT: '0', LOG_LEVEL: 'info', LEADFLOW_WEBHOOK_SECRET: '', LEADFLOW_LEASE_MS: '2000' };
  if (backend === 'embedded') {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const db = createDatabase({ dataDir });
    await db.migrate();
    return { env: { ...base, LEADFLOW_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' }, db, close: () => db.close() };
  }
  const schema = await createTestSchema();
  const url = withSearchPath(TEST_DATABASE_URL, schema);
  const redis = await claimRedisDatabase('pinned-versions.test.ts');
  const db = createDatabase({ url });
  return {
    env: { ...base, DATABASE_URL: url, REDIS_URL: redis.url, LEADFLOW_DATA_DIR: scratch },
    db,
    async close() {
      await db.close();
      await dropTestSchema(schema);
      await redis.release();
    },
  };
}

forEachBackend('an execution finishes on the flow version it started on', (backend) => {
  it('parked at a wait, its service killed and the flow edited: it finishes on the old version, a new trigger runs the new one', async () => {
    const setup = await setUp(backend);
    try {
      const oldDir = flowsDir(OLD);
      const newDir = flowsDir(NEW);
      const first = await start('serve', oldDir, setup.env);
      const id = await trigger(first.url);
      const store = new DbExecutionStore(setup.db);
      const parked = await until(store, id, parkedAtPause);
      expect(parked.flow_version).toMatch(/^[0-9a-f]{64}$/);
      await kill(first.proc);

      // Embedded: the same service, restarted on the edited file. Queue mode: a worker holding the
      // edited file takes the wait the killed serve left in Redis; a serve on the edited file takes new triggers.
      const second = backend === 'embedded' ? await start('serve', newDir, setup.env) : await start('worker', newDir, setup.env);
      const done = await until(store, id, ended);
      expect(done.status).toBe('success');
      expect(done.flow_version).toBe(parked.flow_version);
      expect(keys(done)).toEqual(['a', 'pause', 'b']);
      expect(outputOf(done, 'b')).toEqual({ from: 'old' });
      expect(done.steps.filter((s) => s.key === 'a')).toHaveLength(1);

      const entry = backend === 'embedded' ? second : await start('serve', newDir, setup.env);
      const fresh = await until(store, await trigger(entry.url), ended);
      expect(fresh.status).toBe('success');
      expect(fresh.flow_version).not.toBe(parked.flow_version);
      expect(keys(fresh)).toEqual(['first', 'pause2', 'b']);
      expect(outputOf(fresh, 'b')).toEqual({ from: 'new' });

      // The CLI shows the version and filters by it.
      const cliEnv = { ...setup.env, LOG_LEVEL: 'warn' };
      const shown = await runCli(['executions', 'show', id], { env: cliEnv });
      expect(shown.stdout).toContain(`version   ${parked.flow_version}`);
      const listed = await runCli(['executions', 'list', '--json', '--version', parked.flow_version!.slice(0, 10)], { env: cliEnv });
      expect((JSON.parse(listed.stdout) as ExecutionRecord[]).map((r) => r.id)).toEqual([id]);
    } finally {
      await setup.close();
    }
  }, 90_000);
});

describe('serve --watch', () => {
  it('an edit while an execution waits: it finishes on its version, the next trigger runs the edited flow', async () => {
    const setup = await setUp('embedded');
    try {
      const dir = flowsDir(OLD);
      const serve = await start('serve', dir, setup.env, ['--watch']);
      const store = new DbExecutionStore(setup.db);
      const id = await trigger(serve.url);
      const parked = await until(store, id, parkedAtPause);
      writeFileSync(join(dir, 'paused.yaml'), NEW);
      await serve.proc.waitForLog(/flows reloaded/);
      const done = await until(store, id, ended);
      expect(keys(done)).toEqual(['a', 'pause', 'b']);
      expect(outputOf(done, 'b')).toEqual({ from: 'old' });
      expect(done.flow_version).toBe(parked.flow_version);
      const fresh = await until(store, await trigger(serve.url), ended);
      expect(keys(fresh)).toEqual(['first', 'pause2', 'b']);

      // A file a flow reads is part of its version: editing it reloads the flow, as a new version.
      const greetingNow = async () => {
        const res = await fetch(`${serve.url}/greet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        if (res.status !== 202) throw new Error(`POST /greet: ${res.status}`);
        const record = await until(store, ((await res.json()) as { execution_id: string }).execution_id, ended);
        return { text: (outputOf(record, 's') as { text: string }).text, version: record.flow_version };
      };
      mkdirSync(join(dir, 'prompts'));
      writeFileSync(join(dir, 'prompts', 'greeting.md'), 'Olá {{nome}}');
      writeFileSync(
        join(dir, 'greet.yaml'),
        'name: greet\ntrigger: { webhook: { path: /greet } }\nfiles: { greeting: prompts/greeting.md }\nsteps:\n  - { id: s, type: set, params: { values: { text: "{{ files.greeting }}" } } }\n',
      );
      const started = Date.now();
      let before = await greetingNow().catch(() => undefined);
      while (!before && Date.now() - started < 10_000) {
        await new Promise((r) => setTimeout(r, 100));
        before = await greetingNow().catch(() => undefined);
      }
      expect(before?.text).toBe('Olá {{nome}}');
      writeFileSync(join(dir, 'prompts', 'greeting.md'), 'Oi {{nome}}');
      let after = await greetingNow();
      while (after.text !== 'Oi {{nome}}' && Date.now() - started < 20_000) {
        await new Promise((r) => setTimeout(r, 100));
        after = await greetingNow();
      }
      expect(after.text).toBe('Oi {{nome}}');
      expect(after.version).not.toBe(before?.version);
    } finally {
      await setup.close();
    }
  }, 60_000);
});
