import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../adapters/db/database.js';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import type { ExecutionRecord, ExecutionStatus } from '../../engine/types.js';
import { removeScratch, ROOT, SCRATCH, startServe, type ServeProcess } from '../helpers/cli.js';

let serve: ServeProcess | undefined;

afterAll(removeScratch);

afterEach(async () => {
  await serve?.stop('SIGKILL');
  serve = undefined;
});

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

function copyFlows(): string {
  const dir = mkdtempSync(join(SCRATCH, 'flows-'));
  cpSync(join(ROOT, 'test/fixtures/http-flows'), dir, { recursive: true });
  return dir;
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('leadflow serve', () => {
  it('serves the flows, answers health checks and warns when no webhook secret is set', async () => {
    serve = await startServe(['--flows', 'test/fixtures/http-flows']);
    expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
    const res = await post(`${serve.url}/lead`, { nome: 'Ana', telefone: '5511987654321' });
    expect(res.status).toBe(202);
    expect(await res.json()).toHaveProperty('execution_id');
    expect(serve.logs()).toMatch(/LEADFLOW_WEBHOOK_SECRET is not set/);
  });

  it('enforces LEADFLOW_WEBHOOK_SECRET and never logs it', async () => {
    serve = await startServe(['--flows', 'test/fixtures/http-flows'], { LEADFLOW_WEBHOOK_SECRET: 'topsecret-123' });
    expect((await post(`${serve.url}/lead`, { nome: 'Ana', telefone: '1' })).status).toBe(401);
    expect((await post(`${serve.url}/lead`, { nome: 'Ana', telefone: '1' }, { 'x-webhook-secret': 'topsecret-123' })).status).toBe(202);
    await serve.waitForLog(/webhook rejected/);
    expect(serve.logs()).not.toContain('topsecret-123');
  });

  it('refuses to start when a flow is invalid, listing the problems', async () => {
    await expect(startServe(['--flows', 'test/fixtures/cli-invalid'])).rejects.toThrow(/bad\.yaml:7:11 unknown node type/);
  });

  it('drains and exits 0 on SIGTERM', async () => {
    serve = await startServe(['--flows', 'test/fixtures/http-flows']);
    const code = await serve.stop('SIGTERM');
    expect(code).toBe(0);
    expect(serve.logs()).toMatch(/"msg":"stopped"/);
  });

  it('--watch reloads a valid edit and keeps the old flows on an invalid one', async () => {
    const dir = copyFlows();
    serve = await startServe(['--watch', '--flows', dir], { LEADFLOW_ADMIN_TOKEN: 'watch-token' });
    const url = serve.url;
    const loadProblems = async () =>
      ((await (await fetch(`${url}/admin/flows`, { headers: { authorization: 'Bearer watch-token' } })).json()) as { problems: unknown[] })
        .problems;
    expect((await post(`${url}/lead`, { nome: 'Ana', telefone: '1' })).status).toBe(202);

    // A valid edit: the route moves from /lead to /lead2.
    const file = join(dir, 'lead.yaml');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace('path: /lead', 'path: /lead2'));
    await until(async () => (await post(`${url}/lead2`, { nome: 'Ana', telefone: '1' })).status === 202);
    expect((await post(`${url}/lead`, { nome: 'Ana', telefone: '1' })).status).toBe(404);
    expect(await loadProblems()).toEqual([]);

    // An invalid edit is refused with its position; /lead2 keeps serving.
    writeFileSync(file, original.replace('path: /lead', 'path: /lead3').replace('type: set', 'type: sett'));
    await serve.waitForLog(/flows not reloaded/);
    expect(serve.logs()).toMatch(/lead\.yaml:\d+:\d+ unknown node type \\"sett\\"/);
    expect((await post(`${url}/lead2`, { nome: 'Ana', telefone: '1' })).status).toBe(202);
    expect((await post(`${url}/lead3`, { nome: 'Ana', telefone: '1' })).status).toBe(404);
    // The console lists the refused reload's problems (GET /admin/flows).
    expect(await loadProblems()).toEqual([
      expect.objectContaining({ code: 'unknown-node-type', file: expect.stringMatching(/lead\.yaml$/) }),
    ]);
  });

  it('prunes finished executions older than LEADFLOW_EXECUTIONS_RETAIN_DAYS when it starts', async () => {
    const dataDir = mkdtempSync(join(SCRATCH, 'prune-data-'));
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    const rec = (id: string, status: ExecutionStatus, finishedDaysAgo: number): ExecutionRecord => ({
      id,
      flow: 'lead',
      status,
      trigger: { body: {} },
      vars: {},
      steps: [],
      outbound: [],
      dry_run: false,
      created_at: daysAgo(finishedDaysAgo + 1),
      updated_at: daysAgo(finishedDaysAgo),
      ...(status === 'waiting' ? {} : { finished_at: daysAgo(finishedDaysAgo) }),
    });
    const db = createDatabase({ dataDir });
    try {
      await db.migrate();
      const store = new DbExecutionStore(db);
      await store.insert(rec('old-success', 'success', 9));
      await store.insert(rec('old-failed', 'failed', 8));
      await store.insert(rec('recent', 'stopped', 6));
      await store.insert(rec('old-waiting', 'waiting', 20));
    } finally {
      await db.close();
    }
    serve = await startServe(['--flows', 'test/fixtures/http-flows'], { LEADFLOW_DATA_DIR: dataDir, LEADFLOW_EXECUTIONS_RETAIN_DAYS: '7' });
    // The first pruning runs before the server listens.
    const line = serve
      .logs()
      .split('\n')
      .find((l) => l.includes('pruned old executions'));
    expect(JSON.parse(line ?? '{}')).toMatchObject({ removed: 2, retain_days: 7 });
    const after = createDatabase({ dataDir });
    try {
      const ids = (await new DbExecutionStore(after).list({ limit: 100 })).map((r) => r.id).sort();
      expect(ids).toEqual(['old-waiting', 'recent']);
    } finally {
      await after.close();
    }
  });
});
