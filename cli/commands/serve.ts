import type { Command } from 'commander';

/**
 * `leadflow serve [--watch] [--flows DIR]`: serves every flow's webhook on $PORT (default 3000) and
 * runs executions in this process (with REDIS_URL, also those of the shared queue). The executing
 * part it shares with `worker` (cli/executing-process.ts); it adds the HTTP app (webhooks, admin,
 * console: cli/webhook-server.ts) and `--watch` (cli/watch-flows.ts). A wrong setting
 * (LEADFLOW_WEBHOOK_MODE, HOST without a secret) or an invalid flow stops it before anything opens.
 * SIGTERM or SIGINT: stops listening, lets what runs finish or hands it back, exits 0.
 */
export function registerServe(program: Command): void {
  program
    .command('serve')
    .description("serve every flow's webhook on $PORT (default 3000) and run executions in this process")
    .option('--watch', 'reload flows when a file changes; an invalid edit is refused and the old flows keep serving')
    .option('--flows <dir>', 'flows directory (default: $LEADFLOW_FLOWS_DIR or ./flows)')
    .action(async (opts: { watch?: boolean; flows?: string }) => {
      // Loaded here, not at the top: `leadflow --help` and the other commands never load the server.
      const [
        { openExecutingProcess },
        { FlowLoadReport },
        { flowsDirectory, loadValidFlows },
        { createLogger },
        { webhooksQueuedFromEnv },
        { watchFlows },
        { listenForWebhooks },
        { listenAddressFromEnv },
      ] = await Promise.all([
        import('../executing-process.js'),
        import('../flow-load-report.js'),
        import('../host.js'),
        import('../logger.js'),
        import('../queue-mode.js'),
        import('../watch-flows.js'),
        import('../webhook-server.js'),
        import('../listen-address.js'),
      ]);
      const logger = createLogger();
      // Settings checked before anything opens: a wrong value stops here with its message.
      const queueWebhooks = webhooksQueuedFromEnv(process.env);
      const listen = listenAddressFromEnv(process.env, { refuseExposedWithoutSecret: true });
      const dir = flowsDirectory(opts.flows);
      const loaded = loadValidFlows(dir);
      const executing = await openExecutingProcess({ logger, flows: loaded.flows, durableKeyValue: true, queueWebhooks });
      const { engine, scheduler } = executing;
      await executing.startScheduler();
      logger.info(
        { mode: scheduler ? 'queue' : 'embedded', ...(scheduler ? { webhooks: queueWebhooks ? 'queue' : 'local' } : {}) },
        scheduler ? 'queue mode: waits and resumes go through the Redis queue' : 'embedded mode: executions run in this process',
      );
      await executing.startUpkeep();
      const flowLoads = new FlowLoadReport(loaded.problems);
      const server = await listenForWebhooks(executing, listen, flowLoads);
      const stopWatching = opts.watch ? watchFlows(dir, engine, logger, flowLoads) : () => undefined;
      await executing.startSchedules();
      executing.stopOnSignals(async () => {
        stopWatching();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      });
    });
}
