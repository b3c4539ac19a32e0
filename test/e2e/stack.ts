// The whole service in one test process, wired as `leadflow serve` wires it (cli/executing-process.ts,
// cli/commands/serve.ts, cli/webhook-server.ts: the same runtime, queue scheduler, engine options,
// metrics with the queue depth from the shared queue in queue mode, console overview recorder,
// upkeep, schedule triggers and webhook app), with only the outside faked as loopback HTTP servers:
// the gateway (uazapi by default; another provider's fake with `provider`, test/e2e/providers.ts),
// OpenAI and Anthropic. Two backends: 'embedded' (a fresh SQLite file, the in-process key-value
// store) and 'postgres+redis' (a fresh PostgreSQL schema on TEST_DATABASE_URL and a key namespace of
// its own on TEST_REDIS_URL, both removed at close; queue mode, as `serve` with REDIS_URL).
// `forEachBackend` runs a suite on each; without PostgreSQL or Redis the second is reported as
// skipped, with the reason (a failure when LEADFLOW_TEST_REQUIRE lists the part).
// What differs from `serve`, on purpose: the environment is the stack's own object (the fakes' URLs,
// short delays, `env` option) rather than process.env, and PUBLIC_BASE_URL and LEADFLOW_CONSOLE_URL
// are set on it once the server listens (serve derives them before); the key-value and queue keys
// live under the stack's own namespace; the app listens on 127.0.0.1, a free port, without the
// HOST/secret check of listen-address.ts and without the startup log lines; `--watch` is an option;
// the nodes' clock may be replaced (`clock`); the database is seeded with one clinic; and `close()`
// stops it in serve's SIGTERM order instead of a signal (no exit, no grace timer).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe } from 'vitest';
import type { Clock } from '../../adapters/clock.js';
import { seedDatabase } from '../../adapters/db/seed.js';
import { createMetrics, embeddedQueueDepth, type Metrics } from '../../adapters/metrics/metrics.js';
import { adminFromEnv } from '../../cli/admin-host.js';
import { FlowLoadReport } from '../../cli/flow-load-report.js';
import { ActivityRecorder } from '../../console/server/activity-recorder.js';
import { createEngine, flowsDirectory, loadValidFlows } from '../../cli/host.js';
import { leaseMsFromEnv, queueSchedulerFromEnv, SWEEP_EVERY_MS, webhooksQueuedFromEnv } from '../../cli/queue-mode.js';
import { startPruning } from '../../cli/pruning.js';
import { DbTickStore } from '../../adapters/db/tick-store.js';
import { openRuntime, type Runtime } from '../../cli/runtime.js';
import { watchFlows } from '../../cli/watch-flows.js';
import { gatewayProviders } from '../../adapters/gateway/providers.js';
import { gatewayVerificationRoutes } from '../../cli/gateway-routes.js';
import { hostAuthModes } from '../../cli/webhook-auth-modes.js';
import type { Engine } from '../../engine/engine.js';
import { silentLogger } from '../../engine/logger.js';
import { composeObservers } from '../../engine/observer.js';
import type { Logger } from '../../engine/logger.js';
import { buildWebhookApp } from '../../engine/triggers/webhook-app.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { FakeGateway } from '../fakes/fake-gateway.js';
import { type ProviderCase, type ProviderFake, type SeededInstance, UAZAPI_CASE } from './providers.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/fake-anthropic.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import { createTestSchema, dropTestSchema, postgresProblem, TEST_DATABASE_URL, withSearchPath } from '../helpers/databases.js';
import { deleteNamespace, randomPrefix, redisProblem, TEST_REDIS_URL } from '../helpers/key-values.js';
import { consoleUrlOf } from '../../console/server/console-url.js';
import { withModelDefaults } from '../../adapters/ai/model-config.js';
import { appointmentCounts } from '../../adapters/calendar/appointment-counts.js';

export const INSTANCE_TOKEN = 'fake-token';
export const CLINIC_PHONE = '5511912345678';
export const HUNTER_PHONE = '5511987650000';
export const ADMIN_PHONE = '5511955554444';

/** Where a stack keeps its data: SQLite + in-process key-value, or PostgreSQL + Redis. */
export type Backend = 'embedded' | 'postgres+redis';

const BACKEND_LABEL: Record<Backend, string> = { embedded: 'sqlite + in-process', 'postgres+redis': 'postgres + redis' };

/** Why the 'postgres+redis' backend cannot be used, or null when both answer. Probed once per test file. */
export const postgresRedisProblem: string | null = [postgresProblem, redisProblem].filter(Boolean).join('; ') || null;

/**
 * Declares `describe("<title> [sqlite + in-process]")` and `describe("<title> [postgres + redis]")`
 * with the same body; start every stack of the body with `startStack({ backend })`. Without
 * PostgreSQL or Redis the second is `describe.skip` with the reason in its name and a warning.
 */
export function forEachBackend(title: string, body: (backend: Backend) => void): void {
  describe(`${title} [${BACKEND_LABEL.embedded}]`, () => body('embedded'));
  const name = `${title} [${BACKEND_LABEL['postgres+redis']}]`;
  if (postgresRedisProblem) {
    console.warn(`skipping "${name}": ${postgresRedisProblem}`);
    describe.skip(`${name} (skipped: ${postgresRedisProblem})`, () => body('postgres+redis'));
  } else {
    describe(name, () => body('postgres+redis'));
  }
}

export interface StackOptions {
  /** Default 'embedded'. 'postgres+redis' makes a fresh schema and key namespace, removed at close. */
  backend?: Backend;
  /** Extra environment (e.g. LEADFLOW_INTAKE_DELAY_MS=0); merged over the test defaults. */
  env?: Record<string, string>;
  /** PostgreSQL URL to use instead of the backend's database (its data is the caller's business). */
  databaseUrl?: string;
  /** Redis URL to use instead of the backend's key-value store. */
  redisUrl?: string;
  /** Namespace of the key-value keys; default on Redis a fresh `lf_test_<random>:` (its keys deleted at close), else `leadflow:`. */
  kvPrefix?: string;
  flowsDir?: string;
  /** Reload the flows when a file of the flows directory changes, as `serve --watch` does. Default false. */
  watchFlows?: boolean;
  /** Where the runtime, engine and webhook app log (e.g. a capturing pino logger); default silent. */
  logger?: Logger;
  /** The clock nodes read the time of day from (business hours, the agent's prompt); default the system's. */
  clock?: Clock;
  /** The gateway provider of the seeded instance (test/e2e/providers.ts); default uazapi. */
  provider?: ProviderCase;
}

export interface Stack {
  backend: Backend;
  url: string;
  engine: Engine;
  runtime: Runtime;
  /** The stack's own registry, served at GET /metrics (with GET /readyz, as `serve` wires them). */
  metrics: Metrics;
  /** The console overview's recorder, wired as `serve` wires it (`activity.idle()`: its writes done). */
  activity: ActivityRecorder;
  /**
   * The fake uazapi server: the seeded instance's gateway when the stack's provider is uazapi (the
   * default); started but unused otherwise.
   */
  gateway: FakeGateway;
  /** The seeded instance's provider, its fake server, and the instance as requests address it. */
  provider: ProviderCase;
  fake: ProviderFake;
  instance: SeededInstance;
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
  const backend = options.backend ?? 'embedded';
  if (backend === 'postgres+redis' && postgresRedisProblem) throw new Error(`backend postgres+redis unavailable: ${postgresRedisProblem}`);
  // Everything made so far, undone in reverse order by close() or when starting fails; every step
  // runs even when one before it failed (the schema and keys must go anyway), the first error wins.
  const undo: Array<() => unknown> = [];
  const cleanup = async () => {
    const errors: unknown[] = [];
    for (const step of undo.splice(0).reverse()) {
      try {
        await step();
      } catch (err) {
        errors.push(err);
      }
    }
    if (errors.length > 0) throw errors[0];
  };
  try {
    return await start(options, backend, undo, cleanup);
  } catch (err) {
    await cleanup().catch(() => undefined);
    throw err;
  }
}

async function start(options: StackOptions, backend: Backend, undo: Array<() => unknown>, cleanup: () => Promise<void>): Promise<Stack> {
  const provider = options.provider ?? UAZAPI_CASE;
  const gateway = await new FakeGateway({ tokens: { [INSTANCE_TOKEN]: CLINIC_PHONE } }).start();
  undo.push(() => gateway.close());
  let fake: ProviderFake = gateway;
  if (provider !== UAZAPI_CASE) {
    const own = await provider.startFake();
    undo.push(() => own.close());
    fake = own;
  }
  const openai = await startFakeOpenAi();
  undo.push(() => openai.close());
  const anthropic = await startFakeAnthropic();
  undo.push(() => anthropic.close());
  const dataDir = mkdtempSync(join(tmpdir(), 'leadflow-e2e-'));
  undo.push(() => rmSync(dataDir, { recursive: true, force: true }));
  let databaseUrl = options.databaseUrl;
  let redisUrl = options.redisUrl;
  if (backend === 'postgres+redis') {
    if (!databaseUrl) {
      const schema = await createTestSchema();
      undo.push(() => dropTestSchema(schema));
      databaseUrl = withSearchPath(TEST_DATABASE_URL, schema);
    }
    redisUrl ||= TEST_REDIS_URL;
  }
  // On Redis, a namespace of this stack's own (parallel test files share the server), deleted at
  // close; that step runs after the runtime closed (undo is reversed), so no late write escapes it.
  const kvPrefix = options.kvPrefix ?? (redisUrl ? randomPrefix() : undefined);
  if (redisUrl && kvPrefix && !options.kvPrefix) {
    const url = redisUrl;
    undo.push(async () => {
      const redis = new Redis(url, { maxRetriesPerRequest: 3 });
      try {
        await deleteNamespace(redis, kvPrefix);
      } finally {
        redis.disconnect();
      }
    });
  }
  // The same object for the whole stack: PUBLIC_BASE_URL is set on it once the server listens.
  const env: Record<string, string | undefined> = withModelDefaults({
    ...process.env,
    DATABASE_URL: databaseUrl ?? '',
    LEADFLOW_DATA_DIR: dataDir,
    REDIS_URL: redisUrl ?? '',
    OPENAI_API_KEY: 'test-openai-key',
    OPENAI_BASE_URL: openai.baseURL,
    ANTHROPIC_API_KEY: 'test-anthropic-key',
    ANTHROPIC_BASE_URL: anthropic.baseURL,
    LEADFLOW_WEBHOOK_SECRET: '',
    LEADFLOW_ADMIN_TOKEN: '',
    LEADFLOW_INTAKE_DELAY_MS: '0',
    LEADFLOW_DEBOUNCE_MS: '200',
    LEADFLOW_DEBOUNCE_MAX_MS: '2000',
    LEADFLOW_TYPING_MIN_MS: '0',
    LEADFLOW_TYPING_MAX_MS: '0',
    LEADFLOW_RATE_LIMIT_WAIT_MS: '50',
    ...options.env,
  });
  const logger = options.logger ?? silentLogger;
  const metrics = createMetrics({
    onError: (err, where) => logger.warn({ metric: where, err: (err as Error).message }, 'metrics hook failed'),
  });
  const activity = new ActivityRecorder({ logger });
  const runtime = await openRuntime({
    logger,
    migrate: true,
    env,
    kvPrefix,
    metrics,
    activity,
    durableKeyValue: true,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  undo.push(() => runtime.close());
  const seeded = await seedDatabase(runtime.db, {
    clinicas: [
      {
        nome: 'Clínica Sorriso',
        endereco: 'Av. Paulista, 1000, São Paulo',
        posicionamento: 'Implantes e lentes de contato dental com atendimento humanizado',
        hunter_nome: 'Mariana',
        hunter_telefone: HUNTER_PHONE,
        admin_telefones: [ADMIN_PHONE],
        protocolos: [
          { nome: 'Lentes de contato dental', descricao: 'Lentes de porcelana em duas sessões', preco: 'A partir de R$ 1.200 por dente' },
        ],
        instancias: [{ nome: 'Recepção', ...provider.instance(fake) }],
      },
    ],
  });
  void seeded;
  const clinicRow = await runtime.db.get('clinicas_com_atendentes', { nome: 'Clínica Sorriso' });
  const protocolRow = await runtime.db.get('protocolos', { clinica_id: clinicRow!.id });
  const instanceRow = await runtime.db.get('instancias_whatsapp', { clinica_id: clinicRow!.id });
  const flowsDir = options.flowsDir ?? flowsDirectory();
  const loaded = loadValidFlows(flowsDir);
  // With Redis the stack runs in queue mode, as `serve` does with REDIS_URL.
  const scheduler = await queueSchedulerFromEnv(env, logger, kvPrefix ?? 'leadflow:');
  if (scheduler) undo.push(() => scheduler.close());
  const ticks = new DbTickStore(runtime.db);
  const engine = createEngine(loaded.flows, logger, {
    services: runtime.services,
    store: runtime.store,
    env,
    ticks,
    observer: composeObservers(metrics.observer, activity.observer),
    leaseMs: leaseMsFromEnv(env),
    ...(scheduler ? { scheduler, queueWebhooks: webhooksQueuedFromEnv(env) } : {}),
  });
  // In queue mode the depth is the shared queue's (jobs due or being driven, by any process).
  metrics.setQueueDepth(scheduler ? () => scheduler.dueOrRunning() : embeddedQueueDepth(engine));
  metrics.setAppointmentCounts(() => appointmentCounts(runtime.db));
  undo.push(async () => {
    await engine.shutdown();
    await activity.idle();
  });
  await engine.startScheduler();
  // The upkeep of executing-process.ts: the sweep of stored waits and the retention pruning.
  const sweep = setInterval(
    () => void engine.sweep().catch((err: Error) => logger.warn({ err: err.message }, 'sweeping waits failed')),
    SWEEP_EVERY_MS,
  ).unref();
  const stopPruning = await startPruning(runtime.store, logger, ticks, activity);
  undo.push(() => {
    stopPruning();
    clearInterval(sweep);
  });
  const flowLoads = new FlowLoadReport(loaded.problems);
  if (options.watchFlows) undo.push(watchFlows(flowsDir, engine, logger, flowLoads));
  const admin = adminFromEnv({ env, engine, runtime, logger, flowLoads });
  const app = buildWebhookApp({
    engine,
    logger,
    secret: env.LEADFLOW_WEBHOOK_SECRET || undefined,
    authModes: hostAuthModes(runtime.inboundInstances, { ...runtime.services, logger }),
    extend: gatewayVerificationRoutes(gatewayProviders.inbound(), runtime.inboundInstances, logger),
    ...(admin ? { admin } : {}),
    metrics,
    ready: () => runtime.ready(),
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  undo.push(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // PUBLIC_BASE_URL defaults to this server, as `serve` defaults it to http://127.0.0.1:$PORT (the
  // engine reads `env` when an execution starts, so setting it after listen is in time).
  if (!options.env?.PUBLIC_BASE_URL) env.PUBLIC_BASE_URL = url;
  const consoleUrl = consoleUrlOf(env);
  if (consoleUrl) env.LEADFLOW_CONSOLE_URL = consoleUrl;
  // Last, as serve does: a tick's execution may start as soon as the schedules run.
  await engine.startSchedules();

  const executions = (flow?: string) => runtime.store.list({ limit: 1000, flow });
  return {
    backend,
    url,
    engine,
    runtime,
    metrics,
    activity,
    gateway,
    provider,
    fake,
    instance: {
      id: Number(instanceRow!.id),
      clinica_id: Number(instanceRow!.clinica_id),
      token: String(instanceRow!.token),
      external_id: (instanceRow!.external_id as string | null) ?? null,
      app_secret: (instanceRow!.app_secret as string | null) ?? null,
      verify_token: (instanceRow!.verify_token as string | null) ?? null,
    },
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
        if (Date.now() - started > timeoutMs)
          throw new Error(`executions still busy after ${timeoutMs} ms: ${all.map((r) => `${r.flow}:${r.status}`).join(', ')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    close: cleanup,
  };
}

/**
 * Inserts a lead of the stack's clinic and instance with `phone` (name "Lead", budget
 * "Até R$ 3.000"), `fields` over those defaults; resolves with the row.
 */
export function insertLead(stack: Stack, phone: string, fields: Record<string, unknown> = {}) {
  return stack.runtime.db.insert('leads', {
    remotejid: phone,
    clinica_id: stack.clinic.id,
    instancia_id: stack.clinic.instanceId,
    nome: 'Lead',
    telefone: phone,
    orcamento: 'Até R$ 3.000',
    ...fields,
  });
}
