// Real `leadflow serve` / `worker` subprocesses for fault tests that kill the process holding an
// execution at a named instant: the two backends (embedded: SQLite and the in-process key-value
// store, one `serve`; queue: PostgreSQL + Redis, `serve` + `worker`), starting and SIGKILLing
// processes, finding the one that holds an execution (its lease owner's pid), and restarting one of
// the same kind; seeding one clinic through the CLI. Used by test/faults/ and test/queue/ kill tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, type Database } from '../../adapters/db/database.js';
import { expect } from 'vitest';
import { runCli, spawnLeadflow, type LeadflowProcess } from './cli.js';
import { createTestSchema, dropTestSchema, TEST_DATABASE_URL, withSearchPath } from './databases.js';
import { claimRedisDatabase } from './redis-database.js';

/** Where the subprocesses keep their data, and how the test opens it. */
export interface FaultBackend {
  name: string;
  queue: boolean;
  /** LEADFLOW_DATA_DIR, DATABASE_URL and REDIS_URL for the subprocesses. */
  env: Record<string, string>;
  /** Opens the service's database (SQLite: the same file the service uses). */
  open(): Database;
  cleanup(): Promise<void>;
}

/** SQLite and the in-process key-value store in a fresh data directory: one `serve`. */
export async function embeddedBackend(prefix: string): Promise<FaultBackend> {
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return {
    name: 'sqlite, in-process',
    queue: false,
    env: { LEADFLOW_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' },
    open: () => createDatabase({ dataDir }),
    cleanup: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

/** A fresh PostgreSQL schema and Redis database (claimed for `file`): `serve` + `worker`. */
export async function queueBackend(prefix: string, file: string): Promise<FaultBackend> {
  const schema = await createTestSchema();
  const url = withSearchPath(TEST_DATABASE_URL, schema);
  const redis = await claimRedisDatabase(file);
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return {
    name: 'postgres + redis',
    queue: true,
    env: { LEADFLOW_DATA_DIR: dataDir, DATABASE_URL: url, REDIS_URL: redis.url },
    open: () => createDatabase({ url }),
    cleanup: async () => {
      await redis.release();
      await dropTestSchema(schema);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A running `serve` (with its URL) or `worker`. */
export interface RunningProcess {
  kind: 'serve' | 'worker';
  proc: LeadflowProcess;
  url?: string;
}

/** Not exited, not killed. */
export const alive = (running: RunningProcess) => running.proc.child.exitCode === null && running.proc.child.signalCode === null;

/** Starts `leadflow serve` (on a free port) or `leadflow worker` with `env`, resolved once it listens or takes jobs. */
export async function startProcess(kind: 'serve' | 'worker', env: Record<string, string>): Promise<RunningProcess> {
  const proc = spawnLeadflow(kind, [kind], { env: { PORT: '0', LOG_LEVEL: 'info', ...env }, timeoutMs: 20_000 });
  if (kind === 'worker') {
    await proc.waitForLog(/worker started/);
    return { kind, proc };
  }
  const line = await proc.waitForLog(/listening on port \d+/);
  return { kind, proc, url: `http://127.0.0.1:${/listening on port (\d+)/.exec(line)![1]}` };
}

/** SIGKILLs the process (when alive) and resolves once it is gone. */
export async function killProcess(running: RunningProcess): Promise<void> {
  if (!alive(running)) return;
  running.proc.child.kill('SIGKILL');
  await running.proc.exited;
}

/** The processes of one test file: started with a shared environment, found by kind or by the pid of a lease owner. */
export class ProcessFleet {
  readonly processes: RunningProcess[] = [];

  constructor(private readonly env: () => Record<string, string>) {}

  /** A live process of `kind`, if any. */
  live(kind: 'serve' | 'worker'): RunningProcess | undefined {
    return this.processes.find((p) => p.kind === kind && alive(p));
  }

  /** Starts one more process of `kind` with the shared environment and `extra`. */
  async start(kind: 'serve' | 'worker', extra: Record<string, string> = {}): Promise<RunningProcess> {
    const running = await startProcess(kind, { ...this.env(), ...extra });
    this.processes.push(running);
    return running;
  }

  /** The live process whose pid is the one in `leaseOwner` (`host:pid:random`). */
  holding(leaseOwner: string | null): RunningProcess | undefined {
    const pid = Number(String(leaseOwner).split(':')[1]);
    return this.processes.find((p) => p.proc.child.pid === pid && alive(p));
  }

  /** SIGKILLs every process. */
  async killAll(): Promise<void> {
    for (const running of this.processes) await killProcess(running);
  }
}

/**
 * The environment a fault suite's processes share: `backend`'s, the fake OpenAI at `openaiBaseUrl` as
 * the only AI provider that answers (Anthropic points at a closed port), no webhook secret, no typing
 * delay, a grouping window of 200 ms (max 20 s), a 2 s lease, no follow-up within a test; `overrides`
 * last.
 */
export function faultEnv(
  backend: Pick<FaultBackend, 'env'>,
  openaiBaseUrl: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    ...backend.env,
    LEADFLOW_WEBHOOK_SECRET: '',
    OPENAI_API_KEY: 'test-key',
    OPENAI_BASE_URL: openaiBaseUrl,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    LEADFLOW_DEBOUNCE_MS: '200',
    LEADFLOW_DEBOUNCE_MAX_MS: '20000',
    LEADFLOW_TYPING_MIN_MS: '0',
    LEADFLOW_TYPING_MAX_MS: '0',
    LEADFLOW_LEASE_MS: '2000',
    LEADFLOW_FOLLOWUP_AFTER_MS: '600000',
    ...overrides,
  };
}

/** The clinic a kill-and-restart suite seeds: its name, its Hunter's phone, its instance's gateway and token. */
export interface SeededClinic {
  nome: string;
  hunterPhone: string;
  gatewayUrl: string;
  token: string;
}

/**
 * Seeds `backend` through `leadflow seed` (run with `env`): one clinic with a Hunter named Ana, one
 * protocol (Lentes) and one instance (Recepção) on `gatewayUrl` with `token`. Fails the test when
 * the command fails.
 */
export async function seedClinicWithInstance(backend: FaultBackend, env: Record<string, string>, clinic: SeededClinic): Promise<void> {
  const seedFile = join(backend.env.LEADFLOW_DATA_DIR!, 'seed.yaml');
  writeFileSync(
    seedFile,
    `clinicas:\n  - nome: ${clinic.nome}\n    hunter_nome: Ana\n    hunter_telefone: "${clinic.hunterPhone}"\n    protocolos: [{ nome: Lentes, descricao: Lentes de porcelana }]\n    instancias: [{ nome: Recepção, server_url: "${clinic.gatewayUrl}", token: ${clinic.token} }]\n`,
  );
  const seeded = await runCli(['seed', seedFile], { env, timeoutMs: 30_000 });
  expect(seeded.code, seeded.stderr).toBe(0);
}
