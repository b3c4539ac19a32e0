import type { Server } from 'node:http';
import type { Command } from 'commander';
import { UsageError } from '../usage-error.js';

/** Longest a graceful shutdown waits for the executions in flight, ms. */
const SHUTDOWN_GRACE_MS = 10_000;

export function registerWorker(program: Command): void {
  program
    .command('worker')
    .description('take executions from the shared Redis queue (needs REDIS_URL); run any number of these beside any number of `serve`')
    .option('--flows <dir>', 'flows directory (default: $LEADFLOW_FLOWS_DIR or ./flows)')
    .option(
      '--metrics-port <port>',
      'serve GET /healthz, /readyz and /metrics of this worker on this port (default: $LEADFLOW_METRICS_PORT; unset: none)',
    )
    .addHelpText(
      'after',
      '\nSIGTERM or SIGINT: stops taking jobs, hands what runs back to the queue as due waits, exits.\nLEADFLOW_WORKER_CONCURRENCY: executions driven at once (default 16).',
    )
    .action(async (opts: { flows?: string; metricsPort?: string }) => {
      // Loaded here, not at the top: `leadflow --help` and the other commands never load the worker.
      const [
        { default: express },
        { DbTickStore },
        { composeObservers },
        { ActivityRecorder },
        { createMetrics },
        { opsRoutes },
        { createEngine, flowsDirectory, loadValidFlows },
        { createLogger },
        { startPruning },
        { leaseMsFromEnv, queueSchedulerFromEnv, SWEEP_EVERY_MS },
        { openRuntime },
        { withConsoleUrl },
        { describeListen, listenAddressFromEnv, listenOn },
      ] = await Promise.all([
        import('express'),
        import('../../adapters/db/tick-store.js'),
        import('../../engine/observer.js'),
        import('../../console/server/activity-recorder.js'),
        import('../../adapters/metrics/metrics.js'),
        import('../../engine/triggers/ops-routes.js'),
        import('../host.js'),
        import('../logger.js'),
        import('../pruning.js'),
        import('../queue-mode.js'),
        import('../runtime.js'),
        import('../../console/server/console-url.js'),
        import('../listen-address.js'),
      ]);
      const logger = createLogger();
      if (!process.env.REDIS_URL?.trim())
        throw new UsageError('worker needs REDIS_URL (the queue lives in Redis); without it, `leadflow serve` runs executions itself');
      const loaded = loadValidFlows(flowsDirectory(opts.flows));
      const metricsPortText = opts.metricsPort ?? process.env.LEADFLOW_METRICS_PORT;
      const metricsPort = metricsPortText === undefined || metricsPortText === '' ? undefined : Number(metricsPortText);
      if (metricsPort !== undefined && (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535))
        throw new UsageError(`--metrics-port expects a port number, got "${metricsPortText}"`);
      // The metrics port carries no webhooks: it follows serve's default address, never refuses.
      const listen = listenAddressFromEnv(process.env, { refuseExposedWithoutSecret: false });
      const metrics = createMetrics({
        onError: (err, where) => logger.warn({ metric: where, err: (err as Error).message }, 'metrics hook failed'),
      });
      // The console overview's figures, recorded where executions run (serve and worker).
      const activity = new ActivityRecorder({ logger });
      const runtime = await openRuntime({ logger, migrate: true, metrics, activity });
      const scheduler = (await queueSchedulerFromEnv(process.env, logger))!;
      const ticks = new DbTickStore(runtime.db);
      const engine = createEngine(loaded.flows, logger, {
        env: withConsoleUrl(process.env),
        services: runtime.services,
        store: runtime.store,
        ticks,
        scheduler,
        leaseMs: leaseMsFromEnv(process.env),
        observer: composeObservers(metrics.observer, activity.observer),
      });
      metrics.setQueueDepth(() => scheduler.dueOrRunning());
      let opsServer: Server | undefined;
      if (metricsPort !== undefined) {
        const app = express();
        app.disable('x-powered-by');
        app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
        app.use(opsRoutes({ logger, metrics, ready: () => runtime.ready() }));
        app.use((_req, res) => void res.status(404).json({ error: 'not found', details: [] }));
        const listening = await listenOn(app, metricsPort, listen.host);
        opsServer = listening.server;
        const bound = listening.port;
        logger.info(
          { port: bound, host: listen.host ?? '*' },
          `worker metrics on /metrics, /readyz, /healthz at ${describeListen(listen.host, bound)}${listen.exposed ? '' : ' (this machine only; HOST exposes them)'}`,
        );
      }
      await engine.startScheduler();
      // Retention and the erasure ledger are kept by every process, so a deployment of workers
      // behind a receiver that does not prune still prunes.
      const stopPruning = await startPruning(runtime.store, logger, ticks, activity);
      const sweepTimer = setInterval(
        () => void engine.sweep().catch((err: Error) => logger.warn({ err: err.message }, 'sweeping waits failed')),
        SWEEP_EVERY_MS,
      ).unref();
      await engine.startSchedules();
      logger.info({ flows: engine.listFlows().map((f) => f.name), owner: engine.owner }, 'worker started');

      let closing = false;
      const shutdown = async (signal: string) => {
        if (closing) return;
        closing = true;
        logger.info({ signal }, 'shutting down');
        const forced = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
        clearInterval(sweepTimer);
        stopPruning();
        opsServer?.close();
        await engine.shutdown();
        await activity.idle();
        await scheduler.close();
        await runtime.close();
        clearTimeout(forced);
        logger.info({}, 'stopped');
        process.exit(0);
      };
      process.once('SIGTERM', () => void shutdown('SIGTERM'));
      process.once('SIGINT', () => void shutdown('SIGINT'));
    });
}
