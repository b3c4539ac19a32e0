// What `serve` hands the webhook app for the admin HTTP surface (engine/triggers/admin-routes.ts):
// the bearer token from LEADFLOW_ADMIN_TOKEN, the dry-run replay, done as `leadflow executions
// replay --dry-run` does it (a rollback scope on the database, the record kept in memory), and the
// console (issue 14): its session sign-in and cookie check (console/server/access.ts), its security
// headers on /admin, its JSON routes (console/server/routes.ts) and its pages at /console (spa.ts).
import type { Engine } from '../engine/engine.js';
import type { Logger } from '../engine/logger.js';
import type { AdminOptions } from '../engine/triggers/admin-routes.js';
import type { ExecutionRecord, LoadedFlow } from '../engine/types.js';
import { replayExecution } from './replay-execution.js';
import { FlowLoadReport } from './flow-load-report.js';
import { authorizeSession, SECURITY_HEADERS, sessionRoutes } from '../console/server/access.js';
import { consoleRoutes } from '../console/server/routes.js';
import { ConsoleSessions } from '../console/server/session-store.js';
import { SignInLimit } from '../console/server/sign-in-limit.js';
import { systemClock } from '../adapters/clock.js';
import { mountConsole } from '../console/server/spa.js';
import type { Runtime } from './runtime.js';

/** What adminFromEnv builds the admin surface and the console from. */
export interface AdminHostOptions {
  /** Where LEADFLOW_ADMIN_TOKEN and PUBLIC_BASE_URL are read. */
  env: Record<string, string | undefined>;
  /** The serving engine: its flows are what a dry run replays on and what the console lists. */
  engine: Engine;
  /** The database, store and services the console reads and a dry run runs with. */
  runtime: Runtime;
  logger: Logger;
  /** Where the built console is (default: the package's dist/console). */
  consoleDir?: string;
  /** The latest load of the flows directory, for the console's Flows page (default: none with no problem). */
  flowLoads?: FlowLoadReport;
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
  const { kv, clock } = options.runtime.services;
  const access = {
    sessions: new ConsoleSessions(kv, token, clock),
    token,
    publicBaseUrl: () => options.env.PUBLIC_BASE_URL || undefined,
    accounts: { db: options.runtime.db, limit: new SignInLimit(kv, clock ?? systemClock) },
  };
  return {
    token,
    dryRun,
    authorize: authorizeSession(access),
    headers: SECURITY_HEADERS,
    publicRoutes: sessionRoutes(access),
    routes: consoleRoutes({
      db: options.runtime.db,
      store: options.runtime.store,
      engine: options.engine,
      flowLoads: options.flowLoads ?? new FlowLoadReport(),
      booking: options.runtime.services.booking,
      kv: options.runtime.services.kv,
      now: () => options.runtime.services.clock?.now() ?? Date.now(),
      media: { gateway: options.runtime.services.gateway, instances: options.runtime.services.instances },
    }),
    beside: (app) => mountConsole(app, options.consoleDir),
  };
}
