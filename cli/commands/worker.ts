import type { Command } from 'commander';
import { UsageError } from '../usage-error.js';

/**
 * `leadflow worker [--flows DIR] [--metrics-port PORT]`: a process that only takes executions from
 * the shared Redis queue (REDIS_URL required, else a UsageError, exit 2), beside any number of
 * `serve`. Everything else it shares with serve (cli/executing-process.ts); what it adds is the
 * optional metrics port (cli/metrics-port.ts). SIGTERM or SIGINT: stops taking jobs, hands what runs
 * back to the queue as due waits, exits 0.
 */
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
        { openExecutingProcess },
        { flowsDirectory, loadValidFlows },
        { createLogger },
        { metricsPortFrom, serveMetricsPort },
        { listenAddressFromEnv },
      ] = await Promise.all([
        import('../executing-process.js'),
        import('../host.js'),
        import('../logger.js'),
        import('../metrics-port.js'),
        import('../listen-address.js'),
      ]);
      const logger = createLogger();
      if (!process.env.REDIS_URL?.trim())
        throw new UsageError('worker needs REDIS_URL (the queue lives in Redis); without it, `leadflow serve` runs executions itself');
      const loaded = loadValidFlows(flowsDirectory(opts.flows));
      const metricsPort = metricsPortFrom(opts.metricsPort, process.env);
      // The metrics port carries no webhooks: it follows serve's default address, never refuses.
      const listen = listenAddressFromEnv(process.env, { refuseExposedWithoutSecret: false });
      const executing = await openExecutingProcess({ logger, flows: loaded.flows });
      const metricsServer = metricsPort === undefined ? undefined : await serveMetricsPort(executing, metricsPort, listen);
      await executing.startScheduler();
      await executing.startUpkeep();
      await executing.startSchedules();
      logger.info({ flows: executing.engine.listFlows().map((f) => f.name), owner: executing.engine.owner }, 'worker started');
      executing.stopOnSignals(() => void metricsServer?.close());
    });
}
