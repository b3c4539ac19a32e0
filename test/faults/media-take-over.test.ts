// A burst with a voice note survives the death of the process converting it: a lead sends a text
// and a voice note; the process running the agent flow downloads the audio (the `download` step is
// recorded, the bytes are in that process's memory only) and is SIGKILLed while the transcription
// request is held at the fake OpenAI. Another process takes the execution over: the recorded
// download is not run again, so `to_text` finds the handle missing from its memory and the media
// store downloads the medium again from the source noted on the key-value store
// (adapters/gateway/media-store.ts). The transcription happens, memory holds the lead's row with both
// the text and "[áudio] <transcript>", and the lead gets exactly one reply.
// Embedded (SQLite, in-process store; `leadflow serve` restarted on the same data directory) and
// queue mode (PostgreSQL + Redis; `serve` and a worker, the one running the execution killed, a
// fresh worker started), as real subprocesses; the gateway (uazapi) and OpenAI are fakes here.
import { readFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../adapters/db/database.js';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { FakeGateway } from '../fakes/fake-gateway.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import { runCli, spawnLeadflow, startServe } from '../helpers/cli.js';
import { createTestSchema, dropTestSchema, postgresProblem, TEST_DATABASE_URL, withSearchPath } from '../helpers/databases.js';
import { redisProblem } from '../helpers/key-values.js';
import { faultEnv } from '../helpers/fault-processes.js';
import { pollFor } from '../helpers/poll.js';
import { claimRedisDatabase } from '../helpers/redis-database.js';
import { leadTextEvent } from '../helpers/uazapi-events.js';

const TOKEN = 'media-take-over-token';
const CLINIC_PHONE = '5511912346666';
const VOICE = Buffer.from('OggS voice note held by a process that dies');
const TRANSCRIPT = 'quanto custa a lente?';
const REPLY = 'Olá! Como posso ajudar?';

let gateway: FakeGateway;
let openai: FakeOpenAi;
/** Every process a test started (killed after each test). */
let processes: Array<{ name: string; child: import('node:child_process').ChildProcess }> = [];

beforeAll(async () => {
  gateway = await new FakeGateway({ tokens: { [TOKEN]: CLINIC_PHONE } }).start();
  openai = await startFakeOpenAi();
});

afterEach(async () => {
  for (const p of processes) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  processes = [];
});

afterAll(async () => {
  await gateway?.close();
  await openai?.close();
});

const repliesTo = (phone: string) => gateway.sent.filter((s) => s.number === phone).map((s) => s.text);
const downloadsOf = (id: string) => gateway.requestsTo('/message/download').filter((r) => r.body.id === id).length;

/** The uazapi event of a voice note (test/fixtures/uazapi/audio-ptt.json) from `phone`. */
function voiceNoteEvent(phone: string, messageid: string): Record<string, any> {
  const body = JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/uazapi/audio-ptt.json'), 'utf8'));
  const jid = `${phone}@s.whatsapp.net`;
  body.token = TOKEN;
  body.owner = CLINIC_PHONE;
  body.chat.wa_chatid = jid;
  Object.assign(body.message, { id: `${CLINIC_PHONE}:${messageid}`, messageid, chatid: jid, sender_pn: jid, owner: CLINIC_PHONE });
  return body;
}

async function post(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${url}/leadagent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.json();
}

interface Backend {
  env: Record<string, string>;
  /** Opens the service's database (SQLite: only while reading, the service may run). */
  open(): Database;
  /** Starts the processes that run executions; the webhook server's URL. */
  start(env: Record<string, string>): Promise<string>;
  /** Kills the process running the execution `leaseOwner` names, then starts the process that takes over. */
  takeOver(leaseOwner: string, env: Record<string, string>): Promise<void>;
  cleanup(): Promise<void>;
}

type Started = { name: string; child: import('node:child_process').ChildProcess };

async function serve(env: Record<string, string>): Promise<string> {
  const serving = await startServe([], env);
  processes.push({ name: 'serve', child: serving.child });
  return serving.url;
}

async function worker(name: string, env: Record<string, string>): Promise<Started> {
  const proc = spawnLeadflow(name, ['worker', '--metrics-port', '0'], { env: { LOG_LEVEL: 'info', ...env }, timeoutMs: 15_000 });
  processes.push(proc);
  await proc.waitForLog(/worker started/);
  return proc;
}

/** SIGKILLs the started process whose pid the lease owner (`host:pid:…`) names; throws when none does. */
async function killOwner(leaseOwner: string): Promise<string> {
  const pid = Number(leaseOwner.split(':')[1]);
  const owner = processes.find((p) => p.child.pid === pid && p.child.exitCode === null);
  if (!owner) throw new Error(`no live process of this test runs the execution (lease ${leaseOwner})`);
  const exited = new Promise((resolve) => owner.child.once('exit', resolve));
  owner.child.kill('SIGKILL');
  await exited;
  return owner.name;
}

function embedded(): Backend {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadflow-media-'));
  return {
    env: { LEADFLOW_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' },
    open: () => createDatabase({ dataDir }),
    start: serve,
    async takeOver(leaseOwner, env) {
      expect(await killOwner(leaseOwner)).toBe('serve');
      await serve(env);
    },
    cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

async function queue(): Promise<Backend> {
  const schema = await createTestSchema();
  const url = withSearchPath(TEST_DATABASE_URL, schema);
  const redis = await claimRedisDatabase('media-take-over.test.ts');
  const dataDir = mkdtempSync(join(tmpdir(), 'leadflow-media-'));
  return {
    env: { LEADFLOW_DATA_DIR: dataDir, DATABASE_URL: url, REDIS_URL: redis.url },
    open: () => createDatabase({ url }),
    async start(env) {
      const url = await serve(env);
      await worker('worker-1', env);
      return url;
    },
    async takeOver(leaseOwner, env) {
      await killOwner(leaseOwner);
      await worker('worker-2', env);
    },
    cleanup: async () => {
      await redis.release();
      await dropTestSchema(schema);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The agent execution that holds the lead's burst: running, with a recorded `download` step. */
async function runningWithDownload(open: () => Database): Promise<{ record: ExecutionRecord; leaseOwner: string }> {
  const db = open();
  try {
    const rows = await db.knex('executions').where({ flow: 'agent', status: 'running' }).select('id', 'lease_owner');
    const store = new DbExecutionStore(db);
    for (const row of rows) {
      const record = await store.get(row.id);
      if (record?.steps.some((s) => s.id === 'download' && s.status === 'success')) return { record, leaseOwner: row.lease_owner };
    }
    throw new Error(`no running agent execution has a recorded download (${rows.length} running)`);
  } finally {
    await db.close();
  }
}

const queueProblem = [postgresProblem, redisProblem].filter(Boolean).join('; ') || null;
if (queueProblem) console.warn(`skipping "voice note taken over [postgres + redis]": ${queueProblem}`);

for (const [name, make, skip] of [
  ['sqlite, in-process', async () => embedded(), null],
  ['postgres + redis', queue, queueProblem],
] as const) {
  (skip ? describe.skip : describe)(`a voice note taken over after SIGKILL [${name}]`, () => {
    let backend: Backend;
    let env: Record<string, string>;

    beforeAll(async () => {
      backend = await make();
      env = faultEnv(backend, openai.baseURL, { LEADFLOW_DEBOUNCE_MS: '1500' });
      const seedFile = join(backend.env.LEADFLOW_DATA_DIR!, 'seed.yaml');
      writeFileSync(
        seedFile,
        `clinicas:\n  - nome: Clínica Áudio\n    hunter_nome: Ana\n    hunter_telefone: "5511987650003"\n    protocolos: [{ nome: Lentes, descricao: Lentes de porcelana }]\n    instancias: [{ nome: Recepção, server_url: "${gateway.url}", token: ${TOKEN} }]\n`,
      );
      const seeded = await runCli(['seed', seedFile], { env, timeoutMs: 30_000 });
      expect(seeded.code, seeded.stderr).toBe(0);
    }, 60_000);

    afterAll(async () => {
      await backend?.cleanup();
    });

    it('the process taking over downloads the voice note again: transcribed, remembered with the text, answered once', async () => {
      const phone = name.startsWith('sqlite') ? '5511955562001' : '5511955562002';
      const audioId = `3EB0AUDTAKE${name.startsWith('sqlite') ? 'S' : 'Q'}${process.pid}`;
      const setup = backend.open();
      try {
        const clinic = (await setup.find('clinicas_com_atendentes', { limit: 1 }))[0]!;
        const instance = (await setup.find('instancias_whatsapp', { limit: 1 }))[0]!;
        await setup.insert('leads', {
          remotejid: phone,
          clinica_id: clinic.id,
          instancia_id: instance.id,
          nome: 'Lead Áudio',
          telefone: phone,
        });
      } finally {
        await setup.close();
      }
      gateway.setMedia(audioId, { mimetype: 'audio/ogg; codecs=opus', bytes: VOICE });
      openai.reset();
      // The first process's transcription is held past its death; the next one is answered.
      openai.queueTranscription({ transcript: 'nunca lida', delay_ms: 60_000 }, { transcript: TRANSCRIPT });

      const url = await backend.start(env);
      expect(await post(url, leadTextEvent({ phone, text: 'Quero saber das lentes', token: TOKEN, owner: CLINIC_PHONE }))).toEqual({
        status: 'queued',
      });
      expect(await post(url, voiceNoteEvent(phone, audioId))).toEqual({ status: 'queued' });
      await pollFor('the transcription request to arrive', async () => openai.transcriptionRequests().length === 1, 30_000);

      // The named instant: the download is recorded, the transcription is not.
      const { record, leaseOwner } = await runningWithDownload(() => backend.open());
      expect(record.steps.some((s) => s.id === 'to_text')).toBe(false);
      expect(downloadsOf(audioId)).toBe(1);
      await backend.takeOver(leaseOwner, env);

      await pollFor('the taken-over run to answer', async () => repliesTo(phone).length >= 1, 60_000);
      const db = backend.open();
      try {
        const store = new DbExecutionStore(db);
        await pollFor('the execution to end', async () => (await store.get(record.id))?.status === 'success', 30_000);
        // Settle: a second answer (a run of the same burst elsewhere) would show within the lease.
        await new Promise((r) => setTimeout(r, 2500));
        expect(repliesTo(phone)).toEqual([REPLY]);
        expect(openai.transcriptionRequests()).toHaveLength(2);
        expect(downloadsOf(audioId)).toBe(2);
        const memory = await db.find('wf_chat_histories', { where: { session_id: phone }, order_by: [{ column: 'id', direction: 'asc' }] });
        expect(memory.map((r) => [r.type, r.content])).toEqual([
          ['lead', `Quero saber das lentes\n[áudio] ${TRANSCRIPT}`],
          ['agent', REPLY],
        ]);
        const done = (await store.get(record.id))!;
        expect(done.steps.filter((s) => s.id === 'download')).toHaveLength(1);
        expect(done.steps.find((s) => s.id === 'to_text')).toMatchObject({ status: 'success', output: { text: TRANSCRIPT, ok: true } });
      } finally {
        await db.close();
      }
    }, 150_000);
  });
}
