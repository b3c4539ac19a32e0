// The security surface as the built command wires it: `leadflow serve` mounts the admin surface only
// with LEADFLOW_ADMIN_TOKEN and never logs it; `leadflow run` applies the agent webhook's
// instance-token check to the payload, as POST /leadagent does (refused token: exit 2; accepted:
// the record holds the instance as trigger.auth and the token as "***").
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { removeScratch, ROOT, runCli, SCRATCH, startServe, type ServeProcess } from '../helpers/cli.js';

const ADMIN = 'cli-admin-token-42af0e';
const SAMPLE = JSON.parse(readFileSync(join(ROOT, 'flows/samples/agent.json'), 'utf8')) as Record<string, unknown>;
const SEED_TOKEN = String(SAMPLE.token);

let serve: ServeProcess | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  env = { LEADFLOW_DATA_DIR: mkdtempSync(join(SCRATCH, 'security-data-')), OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '' };
  const seeded = await runCli(['seed', 'seed/example.yaml'], { env });
  expect(seeded.code, seeded.stderr).toBe(0);
});

afterEach(async () => {
  await serve?.stop('SIGKILL');
  serve = undefined;
});

afterAll(removeScratch);

describe('leadflow serve: admin surface', () => {
  it('is absent without LEADFLOW_ADMIN_TOKEN', async () => {
    serve = await startServe(['--flows', 'test/fixtures/http-flows'], { LEADFLOW_ADMIN_TOKEN: '' });
    const res = await fetch(`${serve.url}/admin/executions`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(res.status).toBe(404);
  });

  it('with LEADFLOW_ADMIN_TOKEN: bearer required, lists executions, never logs the token', async () => {
    serve = await startServe(['--flows', 'test/fixtures/http-flows'], { LEADFLOW_ADMIN_TOKEN: ADMIN });
    const started = await fetch(`${serve.url}/lead`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ nome: 'Ana', telefone: '5511987654321' }),
    });
    const { execution_id } = (await started.json()) as { execution_id: string };
    expect((await fetch(`${serve.url}/admin/executions`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
    const list = await fetch(`${serve.url}/admin/executions?flow=lead`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(list.status).toBe(200);
    expect(((await list.json()) as { executions: Array<{ id: string }> }).executions.map((e) => e.id)).toContain(execution_id);
    await serve.waitForLog(/admin request rejected/);
    expect(serve.logs()).not.toContain(ADMIN);
    expect(serve.logs()).not.toContain('5511987654321');
  });
});

describe('leadflow run: the instance-token check of the agent webhook', () => {
  it('refuses a payload whose token is not a registered instance (exit 2), naming the 401', async () => {
    const file = join(SCRATCH, 'agent-wrong-token.json');
    writeFileSync(file, JSON.stringify({ ...SAMPLE, token: 'not-registered-91c' }));
    const run = await runCli(['run', 'agent', '--payload', file, '--dry-run', '--json'], { env, timeoutMs: 30_000 });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /refused by POST \/leadagent \(auth instance-token: missing or unknown instance token; it would answer 401\)/,
    );
    expect(run.stderr).not.toContain('not-registered-91c');
    expect(run.stdout).toBe('');
  });

  it('records the instance as trigger.auth and the token as "***"', async () => {
    const run = await runCli(['run', 'agent', '--payload', 'flows/samples/agent.json', '--json'], { env, timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    const { execution_id } = JSON.parse(run.stdout) as { execution_id: string };
    const show = await runCli(['executions', 'show', execution_id, '--json'], { env });
    expect(show.code, show.stderr).toBe(0);
    const record = JSON.parse(show.stdout) as {
      trigger: { body: { token: string }; auth: { instance_id: number; clinica_id: number; provider: string } };
    };
    expect(record.trigger.body.token).toBe('***');
    expect(record.trigger.auth).toEqual({ instance_id: expect.any(Number), clinica_id: expect.any(Number), provider: 'uazapi' });
    expect(show.stdout).not.toContain(SEED_TOKEN);
  });
});
