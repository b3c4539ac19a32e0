// The composition root: the adapters a command's engine gets, built from the environment
// (CONTRACT.md §2). Nodes reach them as `ctx.services.<key>` (see adapters/README.md).
import { databaseFromEnv, type Database } from '../adapters/db/database.js';
import { DbExecutionStore } from '../adapters/db/execution-store.js';
import { createAiService } from '../adapters/ai/ai-service.js';
import { MediaCache } from '../adapters/gateway/media-cache.js';
import { uazapiClientFactory } from '../adapters/gateway/uazapi-client.js';
import { createKeyValue } from '../adapters/kv/create-key-value.js';
import type { Logger } from '../engine/run/execution-run.js';

export interface Runtime {
  db: Database;
  /** Services for nodes; `db` may be a rollback scope in dry runs. */
  services: Record<string, unknown>;
  /** The execution store on the database. */
  store: DbExecutionStore;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  logger: Logger;
  /** Apply pending migrations first (serve and worker do). */
  migrate?: boolean;
  env?: Record<string, string | undefined>;
  /** Namespace of every key-value key (e.g. one per test stack sharing a Redis); default `leadflow:`. */
  kvPrefix?: string;
}

/** Opens the database and builds the services for nodes. */
export async function openRuntime(options: RuntimeOptions): Promise<Runtime> {
  const env = options.env ?? process.env;
  const db = databaseFromEnv(env);
  try {
    if (options.migrate) {
      const applied = await db.migrate();
      for (const name of applied) options.logger.info({ migration: name }, 'applied migration');
    }
  } catch (err) {
    await db.close();
    throw err;
  }
  let ai;
  try {
    ai = createAiService(env);
  } catch (err) {
    await db.close();
    throw err;
  }
  const kv = createKeyValue({
    url: env.REDIS_URL || undefined,
    prefix: options.kvPrefix,
    onError: (err: Error) => options.logger.warn({ err: err.message }, 'key-value store error'),
  });
  const services: Record<string, unknown> = {
    db,
    instances: { get: (id: number) => db.instanceById(id) },
    gateway: uazapiClientFactory({ logger: options.logger }),
    media: new MediaCache(),
    // Built at start so a malformed LEADFLOW_MODEL_* fails before the first lead, not during it.
    ai,
    kv,
  };
  return {
    db,
    services,
    store: new DbExecutionStore(db),
    async close() {
      await kv.close();
      await db.close();
    },
  };
}

/** Days finished executions are kept (LEADFLOW_EXECUTIONS_RETAIN_DAYS, default 30). */
export function retentionDays(env: Record<string, string | undefined> = process.env): number {
  const days = Number(env.LEADFLOW_EXECUTIONS_RETAIN_DAYS ?? 30);
  return Number.isFinite(days) && days >= 0 ? days : 30;
}
