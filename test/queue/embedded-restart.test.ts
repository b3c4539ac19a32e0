// The embedded mode (SQLite, no Redis) survives SIGKILL: `leadflow serve` killed in the middle of a
// grouping window or of a step and started again on the same data directory answers the lead once.
// Real subprocesses; the gateway and OpenAI are fakes of this test process. What the service has
// recorded (an execution waiting on its timer, every execution ended) is read from its admin API.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../adapters/db/database.js';
import { FakeGateway } from '../fakes/fake-gateway.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import type { ExecutionListResponse } from '../../engine/triggers/admin-api-types.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { runCli, startServe, type ServeProcess } from '../helpers/cli.js';
import { pollFor } from '../helpers/poll.js';
import { leadTextEvent } from '../helpers/uazapi-events.js';

const TOKEN = 'embedded-test-token';
const CLINIC_PHONE = '5511912341111';
const ADMIN_TOKEN = 'embedded-admin-token';

let gateway: FakeGateway;
let openai: FakeOpenAi;
let dataDir: string;
let env: Record<string, string>;
let serving: ServeProcess | undefined;

const event = (phone: string, text: string) => leadTextEvent({ phone, text, token: TOKEN, owner: CLINIC_PHONE });

async function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}/leadagent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** Opens the service's SQLite database for a moment (only while no serve runs). */
async function withDb<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const db = createDatabase({ dataDir });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function createLead(phone: string): Promise<void> {
  await withDb(async (db) => {
    const clinic = (await db.find('clinicas_com_atendentes', { limit: 1 }))[0]!;
    const instance = (await db.find('instancias_whatsapp', { limit: 1 }))[0]!;
    await db.insert('leads', {
      remotejid: phone,
      clinica_id: clinic.id,
      instancia_id: instance.id,
      nome: 'Lead Teste',
      telefone: phone,
      orcamento: 'Até R$ 3.000',
    });
  });
}

const repliesTo = (phone: string) => gateway.sent.filter((s) => s.number === phone).map((s) => s.text);

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  await pollFor(what, async () => check(), timeoutMs);
}

/** GET <url>/admin<path> with the admin token: the JSON answer (throws on any status but 200). */
async function admin<T>(url: string, path: string): Promise<T> {
  const res = await fetch(`${url}/admin${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (res.status !== 200) throw new Error(`GET /admin${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The executions of `flow` the running server has recorded, newest first. */
async function executionsOf(url: string, flow: string): Promise<ExecutionListResponse['executions']> {
  return (await admin<ExecutionListResponse>(url, `/executions?flow=${flow}`)).executions;
}

/**
 * Resolves once every agent execution and, with `phone`, that lead's follow-ups (keyed
 * `<clinic>:<phone>`) have ended (none running or waiting): nothing more will be sent. The other
 * tests' leads keep their own follow-ups waiting (hours away), so only this lead's count.
 */
async function allEnded(url: string, flows: string[], phone?: string): Promise<void> {
  const ours = (flow: string, key: string | undefined) => flow !== 'followup' || (phone !== undefined && key?.endsWith(`:${phone}`));
  await pollFor(
    `every ${flows.join(' and ')} execution ended`,
    async () => {
      const all = (await Promise.all(flows.map(async (flow) => (await executionsOf(url, flow)).filter((e) => ours(flow, e.key))))).flat();
      return all.length > 0 && all.every((e) => e.status !== 'running' && e.status !== 'waiting');
    },
    45_000,
  );
}

beforeAll(async () => {
  gateway = await new FakeGateway({ tokens: { [TOKEN]: CLINIC_PHONE } }).start();
  openai = await startFakeOpenAi();
  dataDir = mkdtempSync(join(tmpdir(), 'leadflow-embedded-'));
  env = {
    LEADFLOW_DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    LEADFLOW_WEBHOOK_SECRET: '',
    OPENAI_API_KEY: 'test-key',
    OPENAI_BASE_URL: openai.baseURL,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    LEADFLOW_DEBOUNCE_MS: '3000',
    LEADFLOW_DEBOUNCE_MAX_MS: '20000',
    LEADFLOW_TYPING_MIN_MS: '0',
    LEADFLOW_TYPING_MAX_MS: '0',
    LEADFLOW_LEASE_MS: '2000',
    LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN,
  };
  const seedFile = join(dataDir, 'seed.yaml');
  writeFileSync(
    seedFile,
    `clinicas:\n  - nome: Clínica Local\n    hunter_nome: Ana\n    hunter_telefone: "5511987650002"\n    protocolos: [{ nome: Lentes, descricao: Lentes de porcelana }]\n    instancias: [{ nome: Recepção, server_url: "${gateway.url}", token: ${TOKEN} }]\n`,
  );
  const seeded = await runCli(['seed', seedFile], { env, timeoutMs: 30_000 });
  expect(seeded.code, seeded.stderr).toBe(0);
});

afterEach(async () => {
  await serving?.stop('SIGKILL');
  serving = undefined;
});

afterAll(async () => {
  await gateway?.close();
  await openai?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('embedded mode after SIGKILL (SQLite, in-process)', () => {
  it('killed in the middle of a grouping window: the restarted server answers the burst once', async () => {
    const phone = '5511955550001';
    await createLead(phone);
    openai.reset();
    serving = await startServe([], env);
    expect(await post(serving.url, event(phone, 'primeira parte'))).toEqual({ status: 200, json: { status: 'queued' } });
    expect(await post(serving.url, event(phone, 'segunda parte'))).toEqual({ status: 200, json: { status: 'queued' } });
    await serving.stop('SIGKILL');
    expect(repliesTo(phone)).toEqual([]);

    serving = await startServe([], env);
    await until('the burst to be answered after the restart', () => repliesTo(phone).length >= 1);
    await allEnded(serving.url, ['agent']);
    expect(repliesTo(phone)).toEqual(['Olá! Como posso ajudar?']);
    expect(openai.chatRequests()).toHaveLength(1);
    expect(JSON.stringify(openai.chatRequests()[0].messages.at(-1))).toContain('primeira parte\\nsegunda parte');
  }, 60_000);

  it('killed in the middle of a step: the restarted server takes the execution back once its lease lapses and answers once', async () => {
    const phone = '5511955550002';
    await createLead(phone);
    openai.reset();
    openai.queueChat({ text: 'nunca enviada', delay_ms: 8000 });
    serving = await startServe([], { ...env, LEADFLOW_DEBOUNCE_MS: '200' });
    expect(await post(serving.url, event(phone, 'Oi, tudo bem?'))).toEqual({ status: 200, json: { status: 'queued' } });
    await until('the agent run to reach the model', () => openai.chatRequests().length === 1);
    await serving.stop('SIGKILL');

    serving = await startServe([], env);
    await until('the taken-over run to answer', () => repliesTo(phone).length >= 1, 45_000);
    await allEnded(serving.url, ['agent']);
    expect(repliesTo(phone)).toEqual(['Olá! Como posso ajudar?']);
    expect(openai.chatRequests()).toHaveLength(2);
    await serving.stop('SIGKILL');
    serving = undefined;
    const rows = await withDb((db) =>
      db.find('wf_chat_histories', { where: { session_id: phone }, order_by: [{ column: 'id', direction: 'asc' }] }),
    );
    expect(rows.map((r) => [r.type, r.content])).toEqual([
      ['lead', 'Oi, tudo bem?'],
      ['agent', 'Olá! Como posso ajudar?'],
    ]);
  }, 90_000);

  it('a follow-up survives SIGKILL while it waits and while it is written: sent once', async () => {
    const phone = '5511955550003';
    await createLead(phone);
    openai.reset();
    const followupEnv = { ...env, LEADFLOW_DEBOUNCE_MS: '200', LEADFLOW_FOLLOWUP_AFTER_MS: '2500' };
    openai.queueChat({ text: 'Resposta do agente' });
    serving = await startServe([], followupEnv);
    expect(await post(serving.url, event(phone, 'Oi, quero saber das lentes'))).toEqual({ status: 200, json: { status: 'queued' } });
    await until('the agent reply', () => repliesTo(phone).length >= 1);
    // Killed with the follow-up planned and waiting (scheduled, not sent): the agent run ends a few
    // ms after its send (memory row, then the follow-up planned), and the follow-up is recorded as
    // waiting on its timer.
    const url = serving.url;
    const waiting = await pollFor('the follow-up recorded as waiting on its timer', async () => {
      const [followup, ...others] = (await executionsOf(url, 'followup')).filter((e) => e.key?.endsWith(`:${phone}`));
      if (!followup || others.length > 0) return undefined;
      const record = await admin<ExecutionRecord>(url, `/executions/${followup.id}`);
      return record.status === 'waiting' && typeof record.wake_at === 'number' ? record : undefined;
    });
    await allEnded(url, ['agent']);
    await serving.stop('SIGKILL');
    // Killed before it woke: the follow-up had not been written.
    expect(openai.chatRequests()).toHaveLength(1);
    expect(waiting.steps.at(-1)?.type).toBe('wait');
    openai.queueChat({ text: 'nunca enviada', delay_ms: 8000 });
    serving = await startServe([], followupEnv);
    await until('the follow-up being written', () => openai.chatRequests().length === 2, 20_000);
    expect(JSON.stringify(openai.chatRequests()[1].messages)).toContain('parou de responder');
    // Killed again while the model writes it: the restarted server takes it over once the lease lapses.
    await serving.stop('SIGKILL');
    serving = await startServe([], followupEnv);
    await until('the follow-up to be sent', () => repliesTo(phone).length >= 2, 45_000);
    await allEnded(serving.url, ['agent', 'followup'], phone);
    expect(repliesTo(phone)).toEqual(['Resposta do agente', 'Olá! Como posso ajudar?']);
    expect(openai.chatRequests()).toHaveLength(3);
    await serving.stop('SIGKILL');
    serving = undefined;
    const rows = await withDb((db) =>
      db.find('wf_chat_histories', { where: { session_id: phone }, order_by: [{ column: 'id', direction: 'asc' }] }),
    );
    expect(rows.map((r) => r.type)).toEqual(['lead', 'agent', 'agent']);
  }, 120_000);
});
