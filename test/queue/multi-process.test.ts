// Queue mode across real processes: `leadflow serve` and `leadflow worker` subprocesses on one
// PostgreSQL schema and one Redis database (claimed for this file, flushed before and after), the
// real flows, and the fake gateway and OpenAI servers of this test process. Skipped by name, with the
// reason, when PostgreSQL or Redis is absent.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGateway } from '../fakes/fake-gateway.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import { runCli, spawnLeadflow as spawnProcess, type LeadflowProcess } from '../helpers/cli.js';
import { createTestSchema, dropTestSchema, postgresProblem, TEST_DATABASE_URL, withSearchPath } from '../helpers/databases.js';
import { redisProblem } from '../helpers/key-values.js';
import { claimRedisDatabase, type RedisDatabase } from '../helpers/redis-database.js';
import { leadTextEvent } from '../helpers/uazapi-events.js';

const TOKEN = 'queue-test-token';
const CLINIC_PHONE = '5511912340000';
const problem = [postgresProblem, redisProblem].filter(Boolean).join('; ') || null;
if (problem) console.warn(`skipping "queue mode across processes": ${problem}`);
const suite = problem ? describe.skip : describe;

type Proc = LeadflowProcess;

let schema: string;
let env: Record<string, string>;
let gateway: FakeGateway;
let openai: FakeOpenAi;
let knex: Knex;
let redis: RedisDatabase | undefined;
let scratch: string;
const procs: Proc[] = [];

function spawnLeadflow(name: string, args: string[], extraEnv: Record<string, string> = {}): Proc {
  const proc = spawnProcess(name, args, { env: { ...env, ...extraEnv } });
  procs.push(proc);
  return proc;
}

async function startServe(name: string, extraEnv: Record<string, string> = {}): Promise<{ proc: Proc; url: string }> {
  const proc = spawnLeadflow(name, ['serve'], extraEnv);
  const line = await proc.waitForLog(/listening on port \d+/);
  return { proc, url: `http://127.0.0.1:${/listening on port (\d+)/.exec(line)![1]}` };
}

async function startWorker(name: string, extra: string[] = [], extraEnv: Record<string, string> = {}): Promise<Proc> {
  const proc = spawnLeadflow(name, ['worker', ...extra], extraEnv);
  await proc.waitForLog(/worker started/);
  return proc;
}

let phoneSeq = 0;
const nextPhone = () => `55119${String(60000000 + ++phoneSeq * 1013).padStart(8, '0')}`;

const event = (phone: string, text: string) => leadTextEvent({ phone, text, token: TOKEN, owner: CLINIC_PHONE });

async function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}/leadagent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

async function createLead(phone: string): Promise<void> {
  const clinic = await knex('clinicas_com_atendentes').first('id');
  const instance = await knex('instancias_whatsapp').first('id');
  await knex('leads').insert({
    remotejid: phone,
    clinica_id: clinic.id,
    instancia_id: instance.id,
    nome: 'Lead Teste',
    telefone: phone,
    orcamento: 'Até R$ 3.000',
    transferido: false,
  });
}

const repliesTo = (phone: string) => gateway.sent.filter((s) => s.number === phone).map((s) => s.text);

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function killAll(signal: NodeJS.Signals): Promise<void> {
  const live = procs.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
  for (const p of live) p.child.kill(signal);
  await Promise.all(live.map((p) => p.exited));
}

suite('queue mode across processes (serve + workers on PostgreSQL and Redis)', () => {
  beforeAll(async () => {
    gateway = await new FakeGateway({ tokens: { [TOKEN]: CLINIC_PHONE } }).start();
    openai = await startFakeOpenAi();
    schema = await createTestSchema();
    redis = await claimRedisDatabase('multi-process.test.ts');
    scratch = mkdtempSync(join(tmpdir(), 'leadflow-queue-'));
    env = {
      DATABASE_URL: withSearchPath(TEST_DATABASE_URL, schema),
      REDIS_URL: redis.url,
      PORT: '0',
      LOG_LEVEL: 'info',
      LEADFLOW_DATA_DIR: scratch,
      LEADFLOW_WEBHOOK_SECRET: '',
      OPENAI_API_KEY: 'test-key',
      OPENAI_BASE_URL: openai.baseURL,
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
      // Wide enough for a loaded CI machine: a webhook answer can take a second or more there.
      LEADFLOW_DEBOUNCE_MS: '4000',
      LEADFLOW_DEBOUNCE_MAX_MS: '20000',
      LEADFLOW_TYPING_MIN_MS: '0',
      LEADFLOW_TYPING_MAX_MS: '0',
      LEADFLOW_RATE_LIMIT_WAIT_MS: '50',
      LEADFLOW_LEASE_MS: '2000',
    };
    const seedFile = join(scratch, 'seed.yaml');
    writeFileSync(
      seedFile,
      `clinicas:\n  - nome: Clínica Fila\n    hunter_nome: Ana\n    hunter_telefone: "5511987650001"\n    protocolos: [{ nome: Lentes, descricao: Lentes de porcelana }]\n    instancias: [{ nome: Recepção, server_url: "${gateway.url}", token: ${TOKEN} }]\n`,
    );
    const seeded = await runCli(['seed', seedFile], { env, timeoutMs: 30_000 });
    expect(seeded.code, seeded.stderr).toBe(0);
    knex = knexFactory({ client: 'pg', connection: env.DATABASE_URL!, pool: { min: 0, max: 2 } });
  });

  afterAll(async () => {
    await killAll('SIGKILL');
    await knex?.destroy();
    if (schema) await dropTestSchema(schema);
    await redis?.release();
    await gateway?.close();
    await openai?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('one server and two workers: bursts from many leads, each answered exactly once, the work shared', async () => {
    const { url } = await startServe('serve-1');
    const workers = [await startWorker('worker-1', ['--metrics-port', '0']), await startWorker('worker-2', ['--metrics-port', '0'])];
    const leads = Array.from({ length: 10 }, nextPhone);
    for (const phone of leads) await createLead(phone);
    await Promise.all(
      leads.map(async (phone) => {
        for (const text of ['Oi', 'tudo bem?', 'quero saber das lentes']) {
          expect(await post(url, event(phone, text))).toEqual({ status: 200, json: { status: 'queued' } });
          await new Promise((r) => setTimeout(r, 40));
        }
      }),
    );
    await until('a reply to every lead', () => leads.every((phone) => repliesTo(phone).length >= 1));
    await new Promise((r) => setTimeout(r, 2500));
    for (const phone of leads) {
      const memory = await knex('wf_chat_histories').where({ session_id: phone }).orderBy('id').select('type', 'content');
      expect(repliesTo(phone), `${phone}: memory ${JSON.stringify(memory)}`).toEqual(['Olá! Como posso ajudar?']);
    }
    expect(openai.chatRequests()).toHaveLength(leads.length);
    const rows = await knex('wf_chat_histories').whereIn('session_id', leads).where('type', 'lead').select('content');
    expect(rows.map((r) => r.content)).toEqual(leads.map(() => 'Oi\ntudo bem?\nquero saber das lentes'));
    // Executions finished in the workers too, not only in the server.
    const finishedIn = (p: Proc) =>
      p
        .logs()
        .split('\n')
        .filter((l) => l.includes('"flow":"agent"') && l.includes('execution finished')).length;
    expect(workers.map(finishedIn).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    // Each worker exposes its own figures; together they count the agent runs they finished.
    let counted = 0;
    for (const w of workers) {
      const port = /"port":(\d+).*worker metrics/.exec(w.logs())![1];
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      for (const line of text
        .split('\n')
        .filter((l) => /^leadflow_executions_total\{flow="agent",status="(success|stopped|failed)"\}/.test(l)))
        counted += Number(line.split(' ').at(-1));
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    }
    expect(counted).toBe(workers.map(finishedIn).reduce((a, b) => a + b, 0));
  }, 90_000);

  it('at most one agent run per lead across processes: a message arriving during a run is answered after it, replies never interleave', async () => {
    const server = procs.find((p) => p.name === 'serve-1')!;
    const url = `http://127.0.0.1:${/listening on port (\d+)/.exec(server.logs())![1]}`;
    const phone = nextPhone();
    await createLead(phone);
    openai.reset();
    openai.queueChat(
      { text: 'Resposta um, parte A.\\n\\nResposta um, parte B.', delay_ms: 2500 },
      { text: 'Resposta dois, parte A.\\n\\nResposta dois, parte B.' },
    );
    expect(await post(url, event(phone, 'primeira pergunta'))).toEqual({ status: 200, json: { status: 'queued' } });
    await until('the first run to reach the model', () => openai.chatRequests().length === 1);
    expect(await post(url, event(phone, 'segunda pergunta'))).toEqual({ status: 200, json: { status: 'queued' } });
    await until('both replies', () => repliesTo(phone).length >= 4, 45_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(repliesTo(phone)).toEqual([
      'Resposta um, parte A.',
      'Resposta um, parte B.',
      'Resposta dois, parte A.',
      'Resposta dois, parte B.',
    ]);
    // The second run started after the first had answered: its memory holds the first exchange.
    const second = JSON.stringify(openai.chatRequests()[1].messages);
    expect(second).toContain('Resposta um, parte A.');
  }, 90_000);

  it('SIGTERM drains: processes exit promptly, the run they interrupt is handed back and answered once by a fresh worker', async () => {
    const server = procs.find((p) => p.name === 'serve-1')!;
    const url = `http://127.0.0.1:${/listening on port (\d+)/.exec(server.logs())![1]}`;
    const phone = nextPhone();
    await createLead(phone);
    openai.reset();
    openai.queueChat({ text: 'resposta interrompida', delay_ms: 4000 });
    expect(await post(url, event(phone, 'Oi, pode me ajudar?'))).toEqual({ status: 200, json: { status: 'queued' } });
    await until('the agent run to reach the model', () => openai.chatRequests().length === 1);
    const started = Date.now();
    await killAll('SIGTERM');
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const p of procs) expect(p.child.exitCode, `${p.name} exit code`).toBe(0);

    await startWorker('worker-3');
    await until('the handed-back run to be answered', () => repliesTo(phone).length >= 1);
    await new Promise((r) => setTimeout(r, 2000));
    expect(repliesTo(phone)).toEqual(['Olá! Como posso ajudar?']);
  }, 90_000);

  it('SIGKILL of every process in the middle of a grouping window loses nothing: after restart the burst is answered once', async () => {
    const { url } = await startServe('serve-2');
    const phone = nextPhone();
    await createLead(phone);
    openai.reset();
    expect(await post(url, event(phone, 'primeira parte'))).toEqual({ status: 200, json: { status: 'queued' } });
    expect(await post(url, event(phone, 'segunda parte'))).toEqual({ status: 200, json: { status: 'queued' } });
    await killAll('SIGKILL');
    expect(repliesTo(phone)).toEqual([]);

    await startWorker('worker-4');
    await until('the burst to be answered after the restart', () => repliesTo(phone).length >= 1);
    await new Promise((r) => setTimeout(r, 2500));
    expect(repliesTo(phone)).toEqual(['Olá! Como posso ajudar?']);
    expect(openai.chatRequests()).toHaveLength(1);
    const rows = await knex('wf_chat_histories').where({ session_id: phone, type: 'lead' }).select('content');
    expect(rows.map((r) => r.content)).toEqual(['primeira parte\nsegunda parte']);
  }, 90_000);

  it('SIGKILL of every process in the middle of a step: a worker started afterwards takes the execution over at its start and the lead is answered once', async () => {
    const { url } = await startServe('serve-3');
    const phone = nextPhone();
    await createLead(phone);
    openai.reset();
    openai.queueChat({ text: 'nunca enviada', delay_ms: 6000 });
    expect(await post(url, event(phone, 'Oi, tudo bem?'))).toEqual({ status: 200, json: { status: 'queued' } });
    await until('the agent run to reach the model', () => openai.chatRequests().length === 1);
    await killAll('SIGKILL');
    const running = await knex('executions').where({ flow: 'agent', status: 'running' }).select('id');
    expect(running.length).toBeGreaterThan(0);

    await startWorker('worker-5');
    await until('the taken-over run to answer', () => repliesTo(phone).length >= 1, 45_000);
    await new Promise((r) => setTimeout(r, 2500));
    expect(repliesTo(phone)).toEqual(['Olá! Como posso ajudar?']);
    expect(openai.chatRequests()).toHaveLength(2);
    const rows = await knex('wf_chat_histories').where({ session_id: phone }).orderBy('id').select('type', 'content');
    expect(rows.map((r) => [r.type, r.content])).toEqual([
      ['lead', 'Oi, tudo bem?'],
      ['agent', 'Olá! Como posso ajudar?'],
    ]);
  }, 90_000);

  it('a follow-up survives SIGKILL of every process while it waits, and is sent by exactly one of a server and two workers', async () => {
    const followupEnv = { LEADFLOW_FOLLOWUP_AFTER_MS: '3000' };
    const start = async () => {
      const { url } = await startServe('serve-followup', followupEnv);
      await startWorker('worker-followup-1', ['--metrics-port', '0'], followupEnv);
      await startWorker('worker-followup-2', ['--metrics-port', '0'], followupEnv);
      return url;
    };
    // Only processes with the short delay may run: a process of an earlier test (default delays,
    // one day) taking the agent's wake would plan this lead's follow-up a day ahead.
    await killAll('SIGKILL');
    const url = await start();
    const phone = nextPhone();
    await createLead(phone);
    const chatsBefore = openai.chatRequests().length;
    expect(await post(url, event(phone, 'Oi, quero saber das lentes'))).toEqual({ status: 200, json: { status: 'queued' } });
    await until('the agent reply', () => repliesTo(phone).length >= 1);
    // This lead's follow-up (earlier tests left others waiting a day), planned after the reply.
    await until('the follow-up planned', async () =>
      Boolean(
        await knex('executions')
          .where({ flow: 'followup', status: 'waiting' })
          .andWhere('concurrency_key', 'like', `%:${phone}`)
          .first('id'),
      ),
    );
    await killAll('SIGKILL');
    await start();
    await until('the follow-up', () => repliesTo(phone).length >= 2, 45_000).catch(async (err) => {
      // What the store and the processes say, to tell a lost wake from a slow one.
      const runs = await knex('executions')
        .where('concurrency_key', 'like', `%:${phone}`)
        .select('id', 'status', 'wake_at', 'lease_owner', 'steps');
      console.error(
        'the follow-up executions of this lead:',
        Date.now(),
        JSON.stringify(runs.map((r) => ({ ...r, steps: JSON.parse(r.steps ?? '[]').map((x: any) => [x.id, x.status, x.error?.message]) }))),
      );
      for (const p of procs.slice(-3))
        console.error(
          'LOG',
          p.name,
          p
            .logs()
            .split('\n')
            .filter((l) => /error|warn/i.test(l))
            .slice(-15)
            .join('\n'),
        );
      throw err;
    });
    await new Promise((r) => setTimeout(r, 3000));
    expect(repliesTo(phone)).toHaveLength(2);
    expect(openai.chatRequests().length - chatsBefore).toBe(2);
    const memory = await knex('wf_chat_histories').where({ session_id: phone }).orderBy('id').select('type');
    expect(memory.map((r) => r.type)).toEqual(['lead', 'agent', 'agent']);
    await killAll('SIGTERM');
  }, 90_000);

  it('LEADFLOW_WEBHOOK_MODE=queue: the server only records and enqueues, a worker runs the executions, each burst answered once', async () => {
    await killAll('SIGKILL');
    const { url, proc: server } = await startServe('serve-queue', { LEADFLOW_WORKER_CONCURRENCY: '1', LEADFLOW_WEBHOOK_MODE: 'queue' });
    expect(server.logs()).toMatch(/"webhooks":"queue"/);
    await startWorker('worker-6');
    openai.reset();
    const leads = Array.from({ length: 3 }, nextPhone);
    for (const phone of leads) await createLead(phone);
    for (const phone of leads) {
      expect(await post(url, event(phone, 'Oi'))).toEqual({ status: 200, json: { status: 'queued' } });
      expect(await post(url, event(phone, 'quero saber das lentes'))).toEqual({ status: 200, json: { status: 'queued' } });
    }
    await until('a reply to every lead', () => leads.every((phone) => repliesTo(phone).length >= 1), 45_000);
    await new Promise((r) => setTimeout(r, 2500));
    for (const phone of leads) expect(repliesTo(phone)).toEqual(['Olá! Como posso ajudar?']);
    expect(openai.chatRequests()).toHaveLength(leads.length);
    const rows = await knex('wf_chat_histories').whereIn('session_id', leads).where('type', 'lead').select('content');
    expect(rows.map((r) => r.content)).toEqual(leads.map(() => 'Oi\nquero saber das lentes'));
  }, 90_000);

  it('a worker prunes finished executions older than LEADFLOW_EXECUTIONS_RETAIN_DAYS too', async () => {
    await killAll('SIGKILL');
    const old = new Date(Date.now() - 9 * 86_400_000).toISOString();
    const row = { flow: 'agent', trigger: '{}', vars: '{}', steps: '[]', outbound: '[]', dry_run: false, created_at: old, updated_at: old };
    await knex('executions').insert([
      { ...row, id: 'old-finished', status: 'success', finished_at: old },
      { ...row, id: 'old-waiting', status: 'waiting', wake_at: Date.now() + 3_600_000 },
    ]);
    const worker = spawnLeadflow('worker-prune', ['worker'], { LEADFLOW_EXECUTIONS_RETAIN_DAYS: '7' });
    await worker.waitForLog(/worker started/);
    expect(JSON.parse((await worker.waitForLog(/pruned old executions/)) ?? '{}')).toMatchObject({ retain_days: 7 });
    expect(await knex('executions').where({ id: 'old-finished' }).first()).toBeUndefined();
    expect(await knex('executions').where({ id: 'old-waiting' }).first()).toBeDefined();
    await knex('executions').where({ id: 'old-waiting' }).del();
  }, 30_000);

  it('a wrong LEADFLOW_WEBHOOK_MODE stops serve at start with its message', async () => {
    const proc = spawnLeadflow('serve-bad-mode', ['serve'], { LEADFLOW_WEBHOOK_MODE: 'sideways' });
    const code = await proc.exited;
    expect(code).not.toBe(0);
    expect(proc.logs()).toContain('LEADFLOW_WEBHOOK_MODE must be "local" or "queue", got "sideways"');
  }, 30_000);
});
