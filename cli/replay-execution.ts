// Replaying a recorded execution: its flow started again with the trigger it recorded (body,
// headers, query, auth), for `leadflow executions replay ID [--dry-run]` (cli/commands/executions.ts)
// and the admin surface's dry run (POST /admin/executions/:id/replay, cli/admin-host.ts).
//
// Contract:
// - The flow is the one loaded now under the recorded name (not the recorded version); a flow that is
//   not loaded, or a recorded payload the flow's input no longer accepts, is a UsageError (exit 2).
// - A real replay (`dryRun: false`) is a new execution recorded in the database, on its own engine
//   that resumes only its own waits (never the server's); if it parks, the service resumes it later.
// - A dry run records outbound calls instead of making them, runs in a rollback scope (every
//   database change undone at the end, lookups read through the same transaction) with a scratch
//   key-value store, and its record is kept in memory only.
// - Resolves with the replay's record once it ended (success, failure, stop or a wait it parks in).
// Loaded only where a replay runs (it imports the engine and the node types).
import { withModelDefaults } from '../adapters/ai/model-config.js';
import type { Database } from '../adapters/db/database.js';
import { DbExecutionStore } from '../adapters/db/execution-store/index.js';
import { MemoryKeyValue } from '../adapters/kv/memory-key-value.js';
import { Engine } from '../engine/engine.js';
import { InputValidationError } from '../engine/errors/input-validation-error.js';
import type { NodeRegistry } from '../engine/registry.js';
import type { Logger } from '../engine/logger.js';
import { DelegatingExecutionStore } from '../engine/store/delegating-store.js';
import type { RunningExecution } from '../engine/store/execution-store.js';
import { MemoryExecutionStore } from '../engine/store/memory-store.js';
import { recordedTriggerInput } from '../engine/triggers/trigger-input.js';
import type { ExecutionRecord, LoadedFlow } from '../engine/types.js';
import { defaultRegistry } from '../nodes/index.js';
import type { NodeServices } from '../nodes/services.js';
import { UsageError } from './usage-error.js';

/** What replayExecution replays, and with what. */
export interface ReplayOptions {
  /** The recorded execution: its flow name and trigger are replayed. */
  record: ExecutionRecord;
  /** The flows loaded now, by name; the record's flow must be among them. */
  flows: Map<string, LoadedFlow>;
  /** The database a real replay is recorded in, and a dry run's rollback scope is opened on. */
  db: Database;
  dryRun: boolean;
  logger: Logger;
  /** The node types; default the full registry (nodes/index.ts). */
  registry?: NodeRegistry;
  /** Services besides `db` and `instances` (gateway, AI ...): every other one the registry's node types declare. */
  services?: Partial<NodeServices>;
}

/**
 * The database store without `listWaiting` and `listRunning`: a replay resumes its own execution
 * only, never the server's waits or running executions; and it neither replaces nor cancels
 * executions by key or id. A replay that parks is resumed by the service, on the version it recorded.
 */
class OwnWaitsOnly extends DelegatingExecutionStore {
  override async listWaiting(): Promise<Array<{ id: string; wake_at: number | null }>> {
    return [];
  }
  override async listRunning(): Promise<RunningExecution[]> {
    return [];
  }
  override insertReplacing(): Promise<string[]> {
    throw new Error('this execution store cannot keep executions by key');
  }
  override cancelByKey(): Promise<string[]> {
    throw new Error('this execution store cannot keep executions by key');
  }
  override cancelById(): Promise<undefined> {
    throw new Error('this execution store cannot cancel an execution by id');
  }
}

/**
 * Starts the recorded execution's flow again with its trigger and waits for the end (see the
 * contract above). A dry run's database changes are rolled back even when the replay fails.
 */
export async function replayExecution(options: ReplayOptions): Promise<ExecutionRecord> {
  const { record, flows, dryRun } = options;
  if (!flows.has(record.flow))
    throw new UsageError(
      `flow "${record.flow}" of execution ${record.id} is not loaded (flows: ${[...flows.keys()].join(', ') || 'none'})`,
    );
  const registry = options.registry ?? defaultRegistry();
  const scope = dryRun ? await options.db.rollbackScope() : undefined;
  // Lookups go through the same transaction as the writes (on SQLite it holds the only connection).
  const services: Partial<NodeServices> = {
    ...options.services,
    db: scope ? scope.db : options.db,
    instances: { get: (id: number) => (scope ? scope.db : options.db).instanceById(id) },
    // A dry run's buffers, dedupe marks, locks and erasures stay in a scratch store of its own.
    ...(dryRun ? { kv: new MemoryKeyValue() } : {}),
  };
  try {
    registry.requireServices(services);
  } catch (err) {
    await scope?.rollback();
    throw err;
  }
  const engine = new Engine({
    registry,
    flows,
    logger: options.logger,
    store: dryRun ? new MemoryExecutionStore() : new OwnWaitsOnly(new DbExecutionStore(options.db)),
    services,
    env: withModelDefaults(process.env),
  });
  try {
    await engine.startScheduler();
    const handle = await startRecorded(engine, record, dryRun);
    return await engine.waitForEnd(handle.id);
  } finally {
    await engine.shutdown();
    await scope?.rollback();
  }
}

/** Starts the record's flow with its recorded trigger; a payload the flow's input now refuses is a UsageError. */
async function startRecorded(engine: Engine, record: ExecutionRecord, dryRun: boolean): Promise<{ id: string }> {
  try {
    return await engine.start(record.flow, recordedTriggerInput(record), { dryRun });
  } catch (err) {
    if (err instanceof InputValidationError) {
      throw new UsageError(
        `the recorded payload no longer matches the input of flow "${record.flow}":\n${err.details.map((d) => `  ${d.path}: ${d.message}`).join('\n')}`,
      );
    }
    throw err;
  }
}
