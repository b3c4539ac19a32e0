// What `serve` and `worker` share: a process that runs executions. It builds the metrics, the
// console overview's recorder, the runtime (database, migrations, services), the queue scheduler
// (REDIS_URL) and the engine over them; it starts the scheduler, the sweep of stored waits, the
// take-over check (cli/take-over-check.ts), the retention pruning and the schedule triggers; and it
// stops all of it on SIGTERM or SIGINT in one order. The commands add only what differs: serve its
// HTTP app (webhooks, admin, console) and `--watch`, the worker its optional metrics port
// (cli/metrics-port.ts).
// Loaded inside the commands' actions (it imports the database, engine and metrics).
import { DbTickStore } from '../adapters/db/tick-store.js';
import type { BullMqScheduler } from '../adapters/queue/bullmq-scheduler.js';
import { createMetrics, embeddedQueueDepth, type Metrics } from '../adapters/metrics/metrics.js';
import type { Engine } from '../engine/engine.js';
import { composeObservers } from '../engine/observer.js';
import type { Logger } from '../engine/logger.js';
import type { LoadedFlow } from '../engine/types.js';
import { ActivityRecorder } from '../console/server/activity-recorder.js';
import { withConsoleUrl } from '../console/server/console-url.js';
import { createEngine } from './host.js';
import { startPruning } from './pruning.js';
import { leaseMsFromEnv, queueSchedulerFromEnv, SWEEP_EVERY_MS } from './queue-mode.js';
import { openRuntime, type Runtime } from './runtime.js';
import { startTakeOverCheck, takeOverCheckMsFromEnv } from './take-over-check.js';
import { withModelDefaults } from '../adapters/ai/model-config.js';
import { appointmentCounts } from '../adapters/calendar/appointment-counts.js';

/** Longest a graceful shutdown waits for requests and steps in flight before exiting with 1, ms. */
const SHUTDOWN_GRACE_MS = 10_000;

/** How the process is opened: what differs between `serve` and `worker`. */
export interface ExecutingProcessOptions {
  logger: Logger;
  /** The flows the engine runs (already loaded and valid). */
  flows: Map<string, LoadedFlow>;
  /** Without REDIS_URL, keep the key-value data in the database too (serve); default in memory only. */
  durableKeyValue?: boolean;
  /** Queue mode only: triggered executions are recorded and enqueued, not run here first (LEADFLOW_WEBHOOK_MODE=queue). */
  queueWebhooks?: boolean;
}

/** A process that runs executions, opened but not started (see openExecutingProcess). */
export interface ExecutingProcess {
  logger: Logger;
  metrics: Metrics;
  runtime: Runtime;
  engine: Engine;
  /** The shared Redis queue (queue mode), or undefined: the embedded mode, timers in this process. */
  scheduler: BullMqScheduler | undefined;
  /** Starts the engine's scheduler: stored waits are handed to it and, in queue mode, jobs are taken. */
  startScheduler(): Promise<void>;
  /**
   * Starts the upkeep every executing process does: the sweep of stored waits every SWEEP_EVERY_MS,
   * the take-over check of executions held by a dead process of this machine every
   * LEADFLOW_TAKE_OVER_CHECK_MS (cli/take-over-check.ts), and the retention pruning (awaited once
   * now, then hourly; cli/pruning.ts), so a deployment of workers behind a receiver that does not
   * prune still prunes.
   */
  startUpkeep(): Promise<void>;
  /** Starts the schedule triggers. Last: a tick's execution may start as soon as they run. */
  startSchedules(): Promise<void>;
  /**
   * On the first SIGTERM or SIGINT: logs `shutting down`, runs `stopIntake` (what the command takes
   * work in by: serve's HTTP server, the worker's metrics port), stops the upkeep, shuts the engine
   * down (steps in flight finish or are handed back), waits for the overview's writes, closes the
   * queue and the runtime, logs `stopped` and exits 0. Past SHUTDOWN_GRACE_MS it exits 1.
   */
  stopOnSignals(stopIntake: () => void | Promise<void>): void;
}

/**
 * Opens the metrics, runtime (migrations applied), queue scheduler and engine of a process that runs
 * executions. Nothing runs yet: the caller starts the scheduler, the upkeep and the schedules.
 */
export async function openExecutingProcess(options: ExecutingProcessOptions): Promise<ExecutingProcess> {
  const { logger } = options;
  const metrics = createMetrics({
    onError: (err, where) => logger.warn({ metric: where, err: (err as Error).message }, 'metrics hook failed'),
  });
  // The console overview's figures, recorded where executions run (serve and worker).
  const activity = new ActivityRecorder({ logger });
  const runtime = await openRuntime({
    logger,
    migrate: true,
    // On SQLite, a commit no longer waits for the log's copy into the file (adapters/db/wal-checkpointer.ts).
    checkpointOffThread: true,
    metrics,
    activity,
    ...(options.durableKeyValue ? { durableKeyValue: true } : {}),
  });
  // REDIS_URL: queue mode (executions go through the shared queue); else embedded.
  const scheduler = await queueSchedulerFromEnv(process.env, logger);
  const ticks = new DbTickStore(runtime.db);
  const engine = createEngine(options.flows, logger, {
    env: withModelDefaults(withConsoleUrl(process.env)),
    services: runtime.services,
    store: runtime.store,
    ticks,
    observer: composeObservers(metrics.observer, activity.observer),
    leaseMs: leaseMsFromEnv(process.env),
    ...(scheduler ? { scheduler, queueWebhooks: options.queueWebhooks === true } : {}),
  });
  metrics.setQueueDepth(scheduler ? () => scheduler.dueOrRunning() : embeddedQueueDepth(engine));
  metrics.setAppointmentCounts(() => appointmentCounts(runtime.db));

  let sweepTimer: NodeJS.Timeout | undefined;
  let stopPruning: () => void = () => undefined;
  let stopTakeOverCheck: () => void = () => undefined;
  return {
    logger,
    metrics,
    runtime,
    engine,
    scheduler,
    startScheduler: () => engine.startScheduler(),
    async startUpkeep() {
      sweepTimer = setInterval(
        () => void engine.sweep().catch((err: Error) => logger.warn({ err: err.message }, 'sweeping waits failed')),
        SWEEP_EVERY_MS,
      ).unref();
      stopTakeOverCheck = startTakeOverCheck(engine, logger, takeOverCheckMsFromEnv(process.env));
      stopPruning = await startPruning(runtime.store, logger, ticks, activity);
    },
    startSchedules: () => engine.startSchedules(),
    stopOnSignals(stopIntake) {
      // Closing order: no new work in, the upkeep, the engine (steps finish or are handed back), the
      // overview's pending writes, the queue, then the key-value store and the database.
      onFirstSignal(logger, async () => {
        await stopIntake();
        stopPruning();
        clearInterval(sweepTimer);
        stopTakeOverCheck();
        await engine.shutdown();
        await activity.idle();
        await scheduler?.close();
        await runtime.close();
      });
    },
  };
}

/**
 * Runs `stop` once, on the first SIGTERM or SIGINT, between the `shutting down` and `stopped` logs,
 * then exits 0; exits 1 when it takes longer than SHUTDOWN_GRACE_MS.
 */
function onFirstSignal(logger: Logger, stop: () => Promise<void>): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    const forced = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
    await stop();
    clearTimeout(forced);
    logger.info({}, 'stopped');
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
