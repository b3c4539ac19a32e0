// Appointment reminders survive SIGKILL (CONTRACT §12: "a crash neither loses nor repeats one"):
// `leadflow serve` (embedded mode: SQLite, no Redis) is killed while the reminders of an appointment
// wait for their first instant, started again, killed again right after the first reminder went
// (waiting for the second), and started again: each reminder is sent exactly once, each kept once in
// memory. Real subprocesses on the shipped flows (a copy of flows/ plus a one-step webhook flow that
// starts `reminders` under the appointment's key, as agent.yaml does on a booking); the gateway is a
// fake of this test process.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../adapters/db/database.js';
import type { ExecutionListResponse } from '../../engine/triggers/admin-api-types.js';
import { FakeGateway } from '../fakes/fake-gateway.js';
import { runCli, startServe, type ServeProcess } from '../helpers/cli.js';
import { pollFor } from '../helpers/poll.js';

const TOKEN = 'reminders-restart-token';
const CLINIC_PHONE = '5511912342222';
const ADMIN_TOKEN = 'reminders-restart-admin';
const PHONE = '5511955551234';
/**
 * The appointment starts this long after it is written, ms; reminders 20 s and 4 s before it. The
 * flow plans only the instants still ahead when it starts, so the first `serve` must start it within
 * 15 s of the write; the second kill must come before the second reminder, 16 s after the first:
 * room for the starts of `serve` on a loaded machine (CI runs took 5 s and more to start the flow,
 * and the first reminder, 5 s after the write then, was never planned).
 */
const AHEAD_MS = 35_000;
const BEFORE_MS = '20000,4000';

/** Starts the reminders of `agendamento_id` under its key, as agent.yaml does on a booking. */
const START_FLOW = `name: start-reminders
trigger:
  webhook: { path: /test/remind }
steps:
  - id: start
    type: flow.start
    params:
      flow: reminders
      key: "{{ 'agendamento:' & trigger.body.agendamento_id }}"
      input: { agendamento_id: "{{ trigger.body.agendamento_id }}" }
`;

let gateway: FakeGateway;
let dataDir: string;
let flowsDir: string;
let env: Record<string, string>;
let serving: ServeProcess | undefined;

/** Opens the service's SQLite database for a moment (only while no serve runs). */
async function withDb<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const db = createDatabase({ dataDir });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function remindersOf(url: string): Promise<ExecutionListResponse['executions']> {
  const res = await fetch(`${url}/admin/executions?flow=reminders`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (res.status !== 200) throw new Error(`GET /admin/executions: ${res.status}`);
  return ((await res.json()) as ExecutionListResponse).executions;
}

const sentTo = () => gateway.sent.filter((s) => s.number === PHONE).map((s) => s.text);

beforeAll(async () => {
  gateway = await new FakeGateway({ tokens: { [TOKEN]: CLINIC_PHONE } }).start();
  dataDir = mkdtempSync(join(tmpdir(), 'leadflow-reminders-'));
  flowsDir = mkdtempSync(join(tmpdir(), 'leadflow-reminders-flows-'));
  cpSync(join(import.meta.dirname, '../../flows'), flowsDir, { recursive: true });
  rmSync(join(flowsDir, 'tests'), { recursive: true, force: true });
  writeFileSync(join(flowsDir, 'start-reminders.yaml'), START_FLOW);
  env = {
    LEADFLOW_DATA_DIR: dataDir,
    LEADFLOW_FLOWS_DIR: flowsDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    LEADFLOW_WEBHOOK_SECRET: '',
    OPENAI_API_KEY: 'test-key',
    OPENAI_BASE_URL: 'http://127.0.0.1:9',
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    LEADFLOW_LEASE_MS: '2000',
    LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN,
    LEADFLOW_REMINDERS_BEFORE_MS: BEFORE_MS,
    // The fake gateway gives no evidence of a send (no webhooks): a kill in the instant between its
    // acceptance and the step's record would, under the default \`resend\` policy, wait 10 s and send
    // it again. That instant is test/faults/send-once.test.ts's; here a send
    // started and never recorded counts as sent, so the kills test the waits and the records.
    LEADFLOW_SEND_EVIDENCE_WAIT_MS: '0',
    LEADFLOW_SEND_UNCONFIRMED: 'skip',
  };
  const seedFile = join(dataDir, 'seed.yaml');
  writeFileSync(
    seedFile,
    `clinicas:\n  - nome: Clínica Local\n    endereco: Rua A, 1\n    hunter_nome: Ana\n    hunter_telefone: "5511987650002"\n    protocolos: [{ nome: Lentes, descricao: Lentes de porcelana }]\n    instancias: [{ nome: Recepção, server_url: "${gateway.url}", token: ${TOKEN} }]\n`,
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
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (flowsDir) rmSync(flowsDir, { recursive: true, force: true });
});

it('killed while a reminder waits, and again right after one went: each reminder is sent once and kept once', async () => {
  const inicio = Date.now() + AHEAD_MS;
  const id = await withDb(async (db) => {
    const clinic = (await db.find('clinicas_com_atendentes', { limit: 1 }))[0]!;
    const instance = (await db.find('instancias_whatsapp', { limit: 1 }))[0]!;
    const lead = await db.insert('leads', {
      remotejid: PHONE,
      clinica_id: clinic.id,
      instancia_id: instance.id,
      nome: 'Maria Souza',
      telefone: PHONE,
    });
    const row = await db.insert('agendamentos', {
      clinica_id: clinic.id,
      lead_id: lead.id,
      inicio,
      fim: inicio + 3_600_000,
      origem: 'agente',
      provider: 'interno',
    });
    return Number(row.id);
  });

  serving = await startServe([], env);
  const started = await fetch(`${serving.url}/test/remind`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agendamento_id: id }),
  });
  expect(started.status).toBeLessThan(300);
  const url = serving.url;
  await pollFor('the reminders waiting for the first instant', async () => (await remindersOf(url)).some((e) => e.status === 'waiting'));
  await serving.stop('SIGKILL');
  expect(sentTo()).toEqual([]);

  serving = await startServe([], env);
  await pollFor('the first reminder', async () => sentTo().length >= 1, 30_000);
  // Killed while the second waits (the first went a moment ago).
  await serving.stop('SIGKILL');
  expect(Date.now()).toBeLessThan(inicio - 4000);

  serving = await startServe([], env);
  const again = serving.url;
  await pollFor(
    'the reminders to end',
    async () => {
      const all = await remindersOf(again);
      return all.length > 0 && all.every((e) => e.status !== 'waiting' && e.status !== 'running');
    },
    30_000,
  );
  await serving.stop('SIGKILL');
  serving = undefined;
  const line = sentTo()[0]!;
  expect(line).toMatch(
    /^Olá, Maria! Lembrete da sua avaliação na Clínica Local: .+, Rua A, 1\. Responda 1 para confirmar ou 2 para remarcar\.$/,
  );
  expect(sentTo()).toEqual([line, line]);
  const rows = await withDb((db) => db.find('wf_chat_histories', { where: { session_id: PHONE } }));
  expect(rows.map((r) => [r.type, r.content])).toEqual([
    ['agent', line],
    ['agent', line],
  ]);
  expect((await withDb((db) => db.get('agendamentos', { id })))?.lembrete_at).not.toBeNull();
}, 90_000);
