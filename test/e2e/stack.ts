// The whole service in one test process, wired exactly as `leadflow serve` wires it (cli/runtime.ts,
// cli/host.ts, the webhook app), with only the outside faked as loopback HTTP servers: the uazapi
// gateway, OpenAI and Anthropic. Database: a fresh SQLite file (or PostgreSQL schema); key-value:
// in-process (or Redis).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDatabase } from '../../adapters/db/seed.js';
import { createEngine, flowsDirectory, loadValidFlows } from '../../cli/host.js';
import { openRuntime, type Runtime } from '../../cli/runtime.js';
import { silentLogger, type Engine } from '../../engine/engine.js';
import { buildWebhookApp } from '../../engine/triggers/webhook-app.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { FakeGateway } from '../fakes/fake-gateway.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/fake-anthropic.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';

export const INSTANCE_TOKEN = 'fake-token';
export const CLINIC_PHONE = '5511912345678';
export const HUNTER_PHONE = '5511987650000';
export const ADMIN_PHONE = '5511955554444';

export interface StackOptions {
  /** Extra environment (e.g. LEADFLOW_INTAKE_DELAY_MS=0); merged over the test defaults. */
  env?: Record<string, string>;
  /** PostgreSQL URL (a fresh schema is the caller's business); default a fresh SQLite file. */
  databaseUrl?: string;
  redisUrl?: string;
  flowsDir?: string;
}

export interface Stack {
  url: string;
  engine: Engine;
  runtime: Runtime;
  gateway: FakeGateway;
  openai: FakeOpenAi;
  anthropic: FakeAnthropic;
  /** The seeded clinic, protocol and instance ids. */
  clinic: { id: number; protocolId: number; instanceId: number };
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Executions of a flow, newest first. */
  executions(flow?: string): Promise<ExecutionRecord[]>;
  /** Resolves when no execution is running or due within `settleMs`, then returns all of them. */
  idle(timeoutMs?: number): Promise<ExecutionRecord[]>;
  close(): Promise<void>;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const gateway = await new FakeGateway({ tokens: { [INSTANCE_TOKEN]: CLINIC_PHONE } }).start();
  const openai = await startFakeOpenAi();
  const anthropic = await startFakeAnthropic();
  const dataDir = mkdtempSync(join(tmpdir(), 'leadflow-e2e-'));
  const env: Record<string, string | undefined> = {
    ...process.env,
    DATABASE_URL: options.databaseUrl ?? '',
    LEADFLOW_DATA_DIR: dataDir,
    REDIS_URL: options.redisUrl ?? '',
    OPENAI_API_KEY: 'test-openai-key',
    OPENAI_BASE_URL: openai.baseURL,
    ANTHROPIC_API_KEY: 'test-anthropic-key',
    ANTHROPIC_BASE_URL: anthropic.baseURL,
    LEADFLOW_WEBHOOK_SECRET: '',
    LEADFLOW_INTAKE_DELAY_MS: '0',
    LEADFLOW_DEBOUNCE_MS: '200',
    LEADFLOW_DEBOUNCE_MAX_MS: '2000',
    LEADFLOW_TYPING_MIN_MS: '0',
    LEADFLOW_TYPING_MAX_MS: '0',
    LEADFLOW_RATE_LIMIT_WAIT_MS: '50',
    ...options.env,
  };
  const runtime = await openRuntime({ logger: silentLogger, migrate: true, env });
  const seeded = await seedDatabase(runtime.db, {
    clinicas: [
      {
        nome: 'Clínica Sorriso',
        endereco: 'Av. Paulista, 1000, São Paulo',
        posicionamento: 'Implantes e lentes de contato dental com atendimento humanizado',
        hunter_nome: 'Mariana',
        hunter_telefone: HUNTER_PHONE,
        admin_telefones: [ADMIN_PHONE],
        protocolos: [{ nome: 'Lentes de contato dental', descricao: 'Lentes de porcelana em duas sessões', preco: 'A partir de R$ 1.200 por dente' }],
        instancias: [{ nome: 'Recepção', server_url: gateway.url, token: INSTANCE_TOKEN }],
      },
    ],
  });
  void seeded;
  const clinicRow = await runtime.db.get('clinicas_com_atendentes', { nome: 'Clínica Sorriso' });
  const protocolRow = await runtime.db.get('protocolos', { clinica_id: clinicRow!.id });
  const instanceRow = await runtime.db.get('instancias_whatsapp', { clinica_id: clinicRow!.id });
  const loaded = loadValidFlows(options.flowsDir ?? flowsDirectory());
  const engine = createEngine(loaded.flows, silentLogger, { services: runtime.services, store: runtime.store, env });
  await engine.startScheduler();
  const app = buildWebhookApp({ engine, logger: silentLogger, secret: env.LEADFLOW_WEBHOOK_SECRET || undefined });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // PUBLIC_BASE_URL defaults to this server, as `serve` defaults it to http://127.0.0.1:$PORT (the
  // engine reads `env` when an execution starts, so setting it after listen is in time).
  if (!options.env?.PUBLIC_BASE_URL) env.PUBLIC_BASE_URL = url;

  const executions = (flow?: string) => runtime.store.list({ limit: 1000, flow });
  return {
    url,
    engine,
    runtime,
    gateway,
    openai,
    anthropic,
    clinic: { id: Number(clinicRow!.id), protocolId: Number(protocolRow!.id), instanceId: Number(instanceRow!.id) },
    post: (path, body, headers = {}) =>
      fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    executions,
    async idle(timeoutMs = 15_000) {
      const started = Date.now();
      for (;;) {
        const all = await executions();
        const busy = all.some((r) => r.status === 'running' || (r.status === 'waiting' && (r.wake_at ?? Infinity) < Date.now() + 5_000));
        if (!busy) return all;
        if (Date.now() - started > timeoutMs) throw new Error(`executions still busy after ${timeoutMs} ms: ${all.map((r) => `${r.flow}:${r.status}`).join(', ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await engine.shutdown();
      await runtime.close();
      await gateway.close();
      await openai.close();
      await anthropic.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
