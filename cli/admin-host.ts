// What `serve` hands the webhook app for the admin HTTP surface (engine/triggers/admin-routes.ts):
// the bearer token from LEADFLOW_ADMIN_TOKEN and the dry-run replay, done as `leadflow executions
// replay --dry-run` does it (a rollback scope on the database, the record kept in memory).
import type { Engine } from '../engine/engine.js';
import type { Logger } from '../engine/run/execution-run.js';
import type { AdminOptions } from '../engine/triggers/admin-routes.js';
import type { ExecutionRecord, LoadedFlow } from '../engine/types.js';
import { replayExecution } from './commands/executions.js';
import type { Runtime } from './runtime.js';

export interface AdminHostOptions {
  env: Record<string, string | undefined>;
  engine: Engine;
  runtime: Runtime;
  logger: Logger;
}

/**
 * The admin options, or undefined when LEADFLOW_ADMIN_TOKEN is unset or empty (the surface is off).
 * Dry runs run one at a time: each holds a database transaction until it ends (on SQLite the only
 * connection, so other requests wait for it).
 */
export function adminFromEnv(options: AdminHostOptions): AdminOptions | undefined {
  const token = options.env.LEADFLOW_ADMIN_TOKEN;
  if (!token) return undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const dryRun = (record: ExecutionRecord): Promise<ExecutionRecord> => {
    const flows = new Map<string, LoadedFlow>(options.engine.listFlows().map((f) => [f.name, f]));
    const run = queue.then(() =>
      replayExecution({ record, flows, db: options.runtime.db, dryRun: true, logger: options.logger, services: options.runtime.services }),
    );
    queue = run.catch(() => undefined);
    return run;
  };
  return { token, dryRun };
}
