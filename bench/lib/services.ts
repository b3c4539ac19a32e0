// What every benchmark stands on: a fresh PostgreSQL schema and a flushed Redis database (db
// BENCH_REDIS_DB, default 9, of BENCH_REDIS_URL) of its own, the fake gateway and OpenAI of test/fakes on 127.0.0.1, a seeded
// clinic, and `leadflow serve` / `leadflow worker` processes spawned from dist/ (run `npm run build`
// first; `npm run bench` does). Everything is loopback; `close()` kills the processes and removes
// the schema and the Redis data; so does Ctrl-C (SIGINT) or SIGTERM of the benchmark (exit 130).
// With `mode: 'embedded'`, no PostgreSQL or Redis: the spawned processes get no DATABASE_URL and no
// REDIS_URL, so they use the SQLite file `leadflow.sqlite` in the run's temporary directory (the
// same migrations and seed, through the CLI) and in-process key-value store and scheduler; `knex`
// is then on that file, and `close()` removes the directory.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { createDatabase } from '../../adapters/db/database.js';
import knexFactory, { type Knex } from 'knex';
import { FakeGateway } from '../../test/fakes/fake-gateway.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../test/fakes/fake-openai.js';
import { spawnLeadflow as spawnProcess, type LeadflowProcess as SpawnedProcess } from '../../test/helpers/leadflow-process.js';
import { leadTextEvent } from '../../test/helpers/uazapi-events.js';

export { BIN, ROOT } from '../../test/helpers/leadflow-process.js';
export const DATABASE_URL =
  process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_BASE = process.env.BENCH_REDIS_URL || process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
export const TOKEN = 'bench-instance-token';
export const CLINIC_PHONE = '5511900001111';

/** The Redis database of a benchmark run: BENCH_REDIS_DB (default 9), flushed before and after — give concurrent runs different ones. */
export function redisUrl(): string {
  const u = new URL(REDIS_BASE);
  u.pathname = `/${process.env.BENCH_REDIS_DB || '9'}`;
  return u.toString();
}

/** A spawned `leadflow` process (test/helpers/cli.ts), with its resident memory. */
export interface LeadflowProcess extends SpawnedProcess {
  /** Resident set size of the process, MB (from /proc; NaN where there is none). */
  rssMb(): Promise<number>;
}

/** `queue`: PostgreSQL + Redis; `embedded`: a SQLite file and in-process store and scheduler. */
export type BenchMode = 'queue' | 'embedded';

export interface BenchServices {
  mode: BenchMode;
  /** The benchmark's own connection: the PostgreSQL schema, or the SQLite file (embedded). */
  knex: Knex;
  /** The run's Redis database; undefined in embedded mode. */
  redis: Redis | undefined;
  gateway: FakeGateway;
  openai: FakeOpenAi;
  /**
   * Environment of the spawned processes: DATABASE_URL on the fresh schema and REDIS_URL (both empty
   * in embedded mode), LEADFLOW_DATA_DIR (the SQLite file's directory in embedded mode), fakes ...
   */
  env: Record<string, string>;
  clinicId: number;
  instanceId: number;
  /** Spawns `leadflow serve` (PORT 0) and resolves with its URL once it listens. */
  serve(name?: string, extraEnv?: Record<string, string>): Promise<{ proc: LeadflowProcess; url: string }>;
  /** Spawns `leadflow worker` and resolves once it takes jobs. */
  worker(name?: string, extraEnv?: Record<string, string>): Promise<LeadflowProcess>;
  /** Inserts `count` leads of the seeded clinic; returns their phones. */
  createLeads(count: number): Promise<string[]>;
  /** The gateway's message event of a lead's text to the seeded instance. */
  leadEvent(phone: string, text: string, messageid?: string): Record<string, unknown>;
  close(): Promise<void>;
}

const schemaName = () => `bench_${process.pid}_${Date.now().toString(36)}`;

/** A fresh PostgreSQL schema on DATABASE_URL; resolves with the URL whose search_path is that schema. */
async function createSchema(schema: string): Promise<string> {
  const admin = knexFactory({ client: 'pg', connection: DATABASE_URL, pool: { min: 0, max: 1 } });
  await admin.raw(`create schema "${schema}"`);
  await admin.destroy();
  const url = new URL(DATABASE_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** The environment of every spawned process (see BenchServices.env), `extra` over it. */
function processEnv(
  run: { databaseUrl: string; embedded: boolean; scratch: string; openai: FakeOpenAi; logLevel: string | undefined },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    // Empty in embedded mode: set over any DATABASE_URL / REDIS_URL of the benchmark's own environment.
    DATABASE_URL: run.databaseUrl,
    REDIS_URL: run.embedded ? '' : redisUrl(),
    PORT: '0',
    // info: serve() waits for the "listening on port" line, logged at info.
    LOG_LEVEL: run.logLevel ?? 'info',
    LEADFLOW_DATA_DIR: run.scratch,
    LEADFLOW_WEBHOOK_SECRET: 'bench-secret',
    OPENAI_API_KEY: 'bench-key',
    OPENAI_BASE_URL: run.openai.baseURL,
    ANTHROPIC_API_KEY: 'bench-key',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    LEADFLOW_INTAKE_DELAY_MS: '0',
    LEADFLOW_TYPING_MIN_MS: '0',
    LEADFLOW_TYPING_MAX_MS: '0',
    ...extra,
  };
}

/** Spawns a `leadflow` process; the ones still running are killed by `close()`. */
type Spawn = (name: string, args: string[], extraEnv?: Record<string, string>) => LeadflowProcess;

/** The schema and the seeded clinic (one protocol, one instance on the fake gateway), through the CLI as an operator would. */
async function seedClinic(spawnLeadflow: Spawn, scratch: string, gateway: FakeGateway): Promise<void> {
  const seedFile = join(scratch, 'seed.yaml');
  writeFileSync(
    seedFile,
    `clinicas:\n  - nome: Clínica Bench\n    hunter_nome: Ana\n    hunter_telefone: "5511987650001"\n    protocolos: [{ nome: Lentes, descricao: Lentes de porcelana }]\n    instancias: [{ nome: Recepção, server_url: "${gateway.url}", token: ${TOKEN} }]\n`,
  );
  const seeded = spawnLeadflow('seed', ['seed', seedFile], { LOG_LEVEL: 'warn' });
  const code = await new Promise<number | null>((resolve) => seeded.child.once('exit', resolve));
  if (code !== 0) throw new Error(`leadflow seed failed (${code}):\n${seeded.logs()}`);
}

/** Inserts a lead of the clinic for each phone, 500 rows per statement. */
async function insertLeads(knex: Knex, clinicId: number, instanceId: number, phones: string[]): Promise<void> {
  for (let i = 0; i < phones.length; i += 500) {
    const rows = phones.slice(i, i + 500).map((phone) => ({
      remotejid: phone,
      clinica_id: clinicId,
      instancia_id: instanceId,
      nome: 'Lead Bench',
      telefone: phone,
      orcamento: 'Até R$ 3.000',
      transferido: false,
    }));
    await knex('leads').insert(rows);
  }
}

/** What a run holds and close() releases. */
interface Held {
  procs: LeadflowProcess[];
  knex: Knex;
  /** The PostgreSQL schema dropped at the end; undefined in embedded mode. */
  schema: string | undefined;
  redis: Redis | undefined;
  gateway: FakeGateway;
  openai: FakeOpenAi;
  scratch: string;
}

/** Kills the processes still running (SIGKILL) and waits for them, then drops the schema, flushes Redis, stops the fakes and removes the scratch directory. */
async function release(held: Held): Promise<void> {
  const running = (p: LeadflowProcess) => p.child.exitCode === null && p.child.signalCode === null;
  for (const p of held.procs) if (running(p)) p.child.kill('SIGKILL');
  await Promise.all(held.procs.map((p) => (running(p) ? new Promise((r) => p.child.once('exit', r)) : undefined)));
  await held.knex.destroy();
  if (held.schema !== undefined) {
    const dropper = knexFactory({ client: 'pg', connection: DATABASE_URL, pool: { min: 0, max: 1 } });
    await dropper.raw(`drop schema if exists "${held.schema}" cascade`);
    await dropper.destroy();
  }
  if (held.redis) {
    await held.redis.flushdb();
    held.redis.disconnect();
  }
  await held.gateway.close();
  await held.openai.close();
  rmSync(held.scratch, { recursive: true, force: true });
}

/**
 * Starts what a benchmark stands on (see above): the database (a fresh schema, or the SQLite file
 * in embedded mode), Redis, the fakes and the seeded clinic. `env` goes over every spawned process's
 * environment; `logLevel` is theirs (default info). Ctrl-C or SIGTERM closes it all and exits 130.
 */
export async function startServices(
  options: { env?: Record<string, string>; logLevel?: string; mode?: BenchMode } = {},
): Promise<BenchServices> {
  const mode = options.mode ?? 'queue';
  const embedded = mode === 'embedded';
  const schema = schemaName();
  const databaseUrl = embedded ? '' : await createSchema(schema);
  const redis = embedded ? undefined : new Redis(redisUrl(), { maxRetriesPerRequest: 3 });
  await redis?.flushdb();
  const gateway = await new FakeGateway({ tokens: { [TOKEN]: CLINIC_PHONE } }).start();
  const openai = await startFakeOpenAi();
  const scratch = mkdtempSync(join(tmpdir(), 'leadflow-bench-'));
  const procs: LeadflowProcess[] = [];
  const env = processEnv({ databaseUrl, embedded, scratch, openai, logLevel: options.logLevel }, options.env);
  const spawnLeadflow: Spawn = (name, args, extraEnv = {}) => {
    const proc = spawnProcess(name, args, { env: { ...env, ...extraEnv }, timeoutMs: 30_000, keepChars: 1_000_000 });
    const benchProc: LeadflowProcess = { ...proc, rssMb: () => rssMb(proc.child.pid) };
    procs.push(benchProc);
    return benchProc;
  };
  await seedClinic(spawnLeadflow, scratch, gateway);
  procs.length = 0; // the seed process has exited: close() has nothing of it to kill

  // Embedded: LeadFlow's own SQLite settings (adapters/db/database.ts) on the same file.
  const knex = embedded
    ? createDatabase({ dataDir: scratch }).knex
    : knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 4 } });
  const closeOnce = onceClosing({ procs, knex, schema: embedded ? undefined : schema, redis, gateway, openai, scratch });
  const clinic = (await knex('clinicas_com_atendentes').first('id')) as { id: number };
  const instance = (await knex('instancias_whatsapp').first('id')) as { id: number };
  let phoneSeq = 0;
  return {
    mode,
    knex,
    redis,
    gateway,
    openai,
    env,
    clinicId: Number(clinic.id),
    instanceId: Number(instance.id),
    async serve(name = 'serve', extraEnv = {}) {
      const proc = spawnLeadflow(name, ['serve'], extraEnv);
      const line = await proc.waitForLog(/listening on port \d+/);
      return { proc, url: `http://127.0.0.1:${/listening on port (\d+)/.exec(line)![1]}` };
    },
    async worker(name = 'worker', extraEnv = {}) {
      const proc = spawnLeadflow(name, ['worker'], extraEnv);
      await proc.waitForLog(/worker started/);
      return proc;
    },
    async createLeads(count) {
      const phones = Array.from({ length: count }, () => `55119${String(10000000 + ++phoneSeq).padStart(8, '0')}`);
      await insertLeads(knex, clinic.id, instance.id, phones);
      return phones;
    },
    leadEvent: (phone, text, messageid) =>
      leadTextEvent({ phone, text, token: TOKEN, owner: CLINIC_PHONE, ...(messageid ? { messageid } : {}) }),
    close: closeOnce,
  };
}

/**
 * The run's `close()`: releases `held` once, however often it is called. Until then, Ctrl-C or a
 * kill of the benchmark (SIGINT, SIGTERM) closes everything first and exits 130.
 */
function onceClosing(held: Held): () => Promise<void> {
  let closed: Promise<void> | undefined;
  const close = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    closed ??= release(held);
    return closed;
  };
  function onSignal(signal: NodeJS.Signals) {
    console.error(`\n${signal}: closing the services…`);
    void close().finally(() => process.exit(130));
  }
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return close;
}

async function rssMb(pid: number | undefined): Promise<number> {
  if (pid === undefined) return Number.NaN;
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    return Number.NaN;
  }
}

/**
 * The spawned processes' settings for a run where the agent answers: a burst closes after
 * `debounceMs` of quiet and is held at most `debounceMaxMs` (LEADFLOW_DEBOUNCE_MS, _MAX_MS), with no
 * simulated typing (LEADFLOW_TYPING_MIN_MS = _MAX_MS = 0: it would only add a constant).
 */
export function agentRunEnv(debounceMs: number, debounceMaxMs: number): Record<string, string> {
  return {
    LEADFLOW_DEBOUNCE_MS: String(debounceMs),
    LEADFLOW_DEBOUNCE_MAX_MS: String(debounceMaxMs),
    LEADFLOW_TYPING_MIN_MS: '0',
    LEADFLOW_TYPING_MAX_MS: '0',
  };
}

/** Resolves after `ms`. */
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `check` every 20 ms until true; rejects after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}
