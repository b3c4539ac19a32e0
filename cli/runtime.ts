// The composition root: the adapters a command's engine gets, built from the environment
// (CONTRACT.md §2). Nodes reach them as `ctx.services.<key>`, typed by NodeServices
// (nodes/services.ts; see adapters/README.md).
import { bookingService } from '../adapters/calendar/booking-service.js';
import { databaseFromEnv, type Database } from '../adapters/db/database.js';
import { DbExecutionStore } from '../adapters/db/execution-store/index.js';
import { withErasure, type ExecutionEraser } from '../engine/store/erasing-store.js';
import { type AiCallEvent, createAiService } from '../adapters/ai/ai-service.js';
import { systemClock, type Clock } from '../adapters/clock.js';
import { DbInboundInstances } from '../adapters/gateway/inbound-instances.js';
import type { InboundInstanceLookup } from '../adapters/gateway/provider-inbound.js';
import { gatewayProviders } from '../adapters/gateway/providers.js';
import { DurableKeyValueStorage } from '../adapters/kv/durable-storage.js';
import type { KeyValue } from '../adapters/kv/key-value.js';
import { MemoryKeyValue } from '../adapters/kv/memory-key-value.js';
import type { Metrics } from '../adapters/metrics/metrics.js';
import type { Logger } from '../engine/logger.js';
import type { NodeServices } from '../nodes/services.js';
import type { ActivityRecorder } from '../console/server/activity-recorder.js';
import { sharedMediaStore } from './media-service.js';

/** What a command runs executions on: the database, the services for nodes and the store (openRuntime). */
export interface Runtime {
  db: Database;
  /** Services for nodes, every one the node types declare (a dry run swaps `db`, `instances` and `kv`). */
  services: NodeServices;
  /**
   * The execution store on the database, with erasure (engine/store/erasing-store.ts): the store to
   * hand the engine, so what an `excluir` execution writes after erasing a lead is scrubbed too, and
   * the lead's executions that end later, in any process (the erasure ledger, `execution_erasures`).
   */
  store: DbExecutionStore & ExecutionEraser;
  /** What the gateway providers' inbound checks look instances up with (cli/webhook-auth-modes.ts). */
  inboundInstances: InboundInstanceLookup;
  /** Readiness (`GET /readyz`): the database answers `select 1`, and Redis PING when REDIS_URL is set. */
  ready(): Promise<Readiness>;
  /** Closes the key-value store, then the database. */
  close(): Promise<void>;
}

/** The verdict of `Runtime.ready()`: `GET /readyz` answers 200 when `ok`, else 503. */
export interface Readiness {
  ok: boolean;
  /** Per dependency: `ok`, `not configured`, or why it failed (`failed`, `timeout`); never a stack or a URL. */
  checks: Record<string, string>;
}

/** Longest a readiness check waits for one dependency, ms. */
const READY_CHECK_TIMEOUT_MS = 2_000;

/** What openRuntime opens and wires (migrations, key-value store, figures, clock). */
export interface RuntimeOptions {
  logger: Logger;
  /** Apply pending migrations first (serve and worker do). */
  migrate?: boolean;
  /** Where DATABASE_URL, REDIS_URL, LEADFLOW_MODEL_* and the rest are read; default process.env. */
  env?: Record<string, string | undefined>;
  /** Namespace of every key-value key (e.g. one per test stack sharing a Redis); default `leadflow:`. */
  kvPrefix?: string;
  /**
   * SQLite: the write-ahead log checkpointed on a worker thread, off the event loop
   * (Database.checkpointOffThread); for the processes that run executions. Default off.
   */
  checkpointOffThread?: boolean;
  /** Without REDIS_URL, keep the key-value data in the database too (`serve`); default in memory only. */
  durableKeyValue?: boolean;
  /** Figures fed by the AI service and the gateway client (adapters/metrics/metrics.ts). */
  metrics?: Metrics;
  /** What "now" is for nodes that read the time of day (`services.clock`); default the system clock. */
  clock?: Clock;
  /**
   * The console overview's recorder (serve, worker): opened on the database and told of every AI
   * call beside metrics. Its engine observer is the host's to compose (console/server/activity-recorder.ts).
   */
  activity?: ActivityRecorder;
}

/**
 * Opens the database (migrated first with `migrate`), the AI service and the key-value store, and
 * builds the services for nodes over them. A failure after the database opened closes it before
 * the error is thrown. Close the runtime with `close()` (key-value store, then database).
 */
export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  const env = options.env ?? process.env;
  const db = databaseFromEnv(env);
  const ai = await closingOnError(db, async () => {
    if (options.migrate) {
      const applied = await db.migrate();
      for (const name of applied) options.logger.info({ migration: name }, 'applied migration');
    }
    if (options.checkpointOffThread) await db.checkpointOffThread({ onFailure: checkpointWarning(options.logger) });
    return aiServiceFor(env, options);
  });
  const kv = await keyValueFor(env, db, options);
  options.activity?.open(db);
  const store = withErasure(new DbExecutionStore(db));
  const clock = options.clock ?? systemClock;
  const instances = { get: (id: number) => db.instanceById(id) };
  // Each instance's client by its provider (adapters/gateway/providers.ts).
  const gateway = gatewayProviders.clientFactory({
    logger: options.logger,
    kv,
    // The 24-hour rule of the Cloud API is read against the same "now" as the clinic's hours.
    now: () => clock.now(),
    ...(options.metrics ? { onCall: options.metrics.gatewayCall } : {}),
  });
  const services: NodeServices = {
    db,
    instances,
    gateway,
    gatewayProviders,
    ...(options.metrics ? { sendRecoveries: options.metrics.sendRecovery } : {}),
    // Bytes in this process, their sources on the key-value store: a take-over downloads again.
    media: sharedMediaStore({ gateway, instances }, kv),
    // Built at start so a malformed LEADFLOW_MODEL_* fails before the first lead, not during it.
    ai,
    kv,
    // Appointments and each clinic's calendar (interno, Google, Cal.com), read against the same clock.
    booking: bookingService(db, { clock }),
    // `executions.erase` (excluir): the same store the engine writes through.
    executions: store,
    clock,
  };
  return {
    db,
    services,
    store,
    inboundInstances: new DbInboundInstances(db),
    ready: () => readiness(env, db, kv, options.logger),
    async close() {
      await kv.close();
      await db.close();
    },
  };
}

/** How often a failing checkpoint is logged at most, ms (the thread tries again every 100 ms). */
const CHECKPOINT_WARNING_EVERY_MS = 60_000;

/** Logs a failed checkpoint of the SQLite log as a warning, at most once per CHECKPOINT_WARNING_EVERY_MS. */
function checkpointWarning(logger: Logger): (message: string) => void {
  let last = Number.NEGATIVE_INFINITY;
  return (message) => {
    const now = Date.now();
    if (now - last < CHECKPOINT_WARNING_EVERY_MS) return;
    last = now;
    logger.warn({ err: message }, 'SQLite checkpoint failed; the log is copied back by the next commit past its bound');
  };
}

/** `work()`'s result; when it throws, the database is closed and the error rethrown. */
async function closingOnError<T>(db: Database, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** The AI service from the environment, its calls reported to the metrics and the overview's recorder (either or both). */
function aiServiceFor(env: Record<string, string | undefined>, options: RuntimeOptions): ReturnType<typeof createAiService> {
  const { metrics, activity } = options;
  const onCall =
    metrics && activity
      ? (event: AiCallEvent) => {
          metrics.aiCall(event);
          activity.aiCall(event);
        }
      : (metrics?.aiCall ?? activity?.aiCall);
  return createAiService(env, {
    ...(onCall ? { onCall } : {}),
    ...(metrics ? { onAgentAttempt: metrics.agentAttempt } : {}),
  });
}

/**
 * The key-value store: Redis with REDIS_URL; else in memory, written through to the database with
 * `durableKeyValue`. A durable store that cannot load closes the database.
 */
async function keyValueFor(env: Record<string, string | undefined>, db: Database, options: RuntimeOptions): Promise<KeyValue> {
  // Embedded mode in the service process (`serve`): the in-process store written through to the
  // database, so a crash loses no buffered message or lock. One-shot commands keep it in memory (a
  // dry run's rollback transaction holds SQLite's only connection; nothing else may write there).
  if (!env.REDIS_URL && options.durableKeyValue) {
    const storage = new DurableKeyValueStorage(db.knex);
    await closingOnError(db, () => storage.load());
    return new MemoryKeyValue({ prefix: options.kvPrefix, storage });
  }
  if (env.REDIS_URL) {
    // Loaded only here: a process without REDIS_URL never loads the Redis client.
    const { createKeyValue } = await import('../adapters/kv/create-key-value.js');
    return createKeyValue({
      url: env.REDIS_URL,
      prefix: options.kvPrefix,
      onError: (err: Error) => options.logger.warn({ err: err.message }, 'key-value store error'),
    });
  }
  return new MemoryKeyValue({ prefix: options.kvPrefix });
}

/** Readiness: the database answers, and Redis PING when REDIS_URL is set (each check bounded by READY_CHECK_TIMEOUT_MS). */
async function readiness(env: Record<string, string | undefined>, db: Database, kv: KeyValue, logger: Logger): Promise<Readiness> {
  const redisConfigured = Boolean(env.REDIS_URL);
  const [database, redis] = await Promise.all([
    check('database', () => db.ping(READY_CHECK_TIMEOUT_MS + 500), logger),
    redisConfigured ? check('redis', () => kv.ping(), logger) : Promise.resolve('not configured'),
  ]);
  return { ok: database === 'ok' && (redis === 'ok' || redis === 'not configured'), checks: { database, redis } };
}

/** `ok`, or `timeout` / `failed` (the reason is logged, not returned). */
async function check(name: string, probe: () => Promise<void>, logger: Logger): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), READY_CHECK_TIMEOUT_MS);
  });
  try {
    const outcome = await Promise.race([probe().then(() => 'ok' as const), timeout]);
    if (outcome === 'timeout') logger.warn({ check: name, timeout_ms: READY_CHECK_TIMEOUT_MS }, 'readiness check timed out');
    return outcome;
  } catch (err) {
    logger.warn({ check: name, err: err instanceof Error ? err.message : String(err) }, 'readiness check failed');
    return 'failed';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Days finished executions are kept (LEADFLOW_EXECUTIONS_RETAIN_DAYS, default 30). Unset, blank or
 * not a number >= 0: the default (a blank value must not read as 0, which would prune everything).
 */
export function retentionDays(env: Record<string, string | undefined> = process.env): number {
  const text = env.LEADFLOW_EXECUTIONS_RETAIN_DAYS?.trim();
  const days = text ? Number(text) : 30;
  return Number.isFinite(days) && days >= 0 ? days : 30;
}
