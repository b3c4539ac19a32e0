import type { Command } from 'commander';

/** How often finished executions past the retention are deleted, ms (1 hour). */
/** Longest a graceful shutdown waits for requests and steps in flight, ms. */
const SHUTDOWN_GRACE_MS = 10_000;

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description("serve every flow's webhook on $PORT (default 3000) and run executions in this process")
    .option('--watch', 'reload flows when a file changes; an invalid edit is refused and the old flows keep serving')
    .option('--flows <dir>', 'flows directory (default: $LEADFLOW_FLOWS_DIR or ./flows)')
    .action(async (opts: { watch?: boolean; flows?: string }) => {
      // Loaded here, not at the top: `leadflow --help` and the other commands never load the server.
      const [
        { DbTickStore },
        { composeObservers },
        { ActivityRecorder },
        { createMetrics, embeddedQueueDepth },
        { buildWebhookApp },
        { webhookRoutes },
        { adminFromEnv },
        { FlowLoadReport },
        { createEngine, flowsDirectory, loadValidFlows },
        { createLogger },
        { leaseMsFromEnv, queueSchedulerFromEnv, SWEEP_EVERY_MS, webhooksQueuedFromEnv },
        { startPruning },
        { openRuntime },
        { watchFlows },
        { gatewayProviders },
        { gatewayVerificationRoutes },
        { hostAuthModes },
        { withConsoleUrl },
        { describeListen, listenAddressFromEnv, listenOn },
      ] = await Promise.all([
        import('../../adapters/db/tick-store.js'),
        import('../../engine/observer.js'),
        import('../../console/server/activity-recorder.js'),
        import('../../adapters/metrics/metrics.js'),
        import('../../engine/triggers/webhook-app.js'),
        import('../../engine/types.js'),
        import('../admin-host.js'),
        import('../flow-load-report.js'),
        import('../host.js'),
        import('../logger.js'),
        import('../queue-mode.js'),
        import('../pruning.js'),
        import('../runtime.js'),
        import('../watch-flows.js'),
        import('../../adapters/gateway/providers.js'),
        import('../gateway-routes.js'),
        import('../webhook-auth-modes.js'),
        import('../../console/server/console-url.js'),
        import('../listen-address.js'),
      ]);
      const logger = createLogger();
      // Settings checked before anything opens: a wrong value stops here with its message.
      const queueWebhooks = webhooksQueuedFromEnv(process.env);
      const listen = listenAddressFromEnv(process.env, { refuseExposedWithoutSecret: true });
      const dir = flowsDirectory(opts.flows);
      const loaded = loadValidFlows(dir);
      const metrics = createMetrics({
        onError: (err, where) => logger.warn({ metric: where, err: (err as Error).message }, 'metrics hook failed'),
      });
      // The console overview's figures, recorded where executions run (serve and worker).
      const activity = new ActivityRecorder({ logger });
      const runtime = await openRuntime({ logger, migrate: true, metrics, activity, durableKeyValue: true });
      // REDIS_URL: queue mode (this process serves and also works the shared queue); else embedded.
      const scheduler = await queueSchedulerFromEnv(process.env, logger);
      const ticks = new DbTickStore(runtime.db);
      const engine = createEngine(loaded.flows, logger, {
        env: withConsoleUrl(process.env),
        services: runtime.services,
        store: runtime.store,
        ticks,
        observer: composeObservers(metrics.observer, activity.observer),
        leaseMs: leaseMsFromEnv(process.env),
        ...(scheduler ? { scheduler, queueWebhooks } : {}),
      });
      metrics.setQueueDepth(scheduler ? () => scheduler.dueOrRunning() : embeddedQueueDepth(engine));
      await engine.startScheduler();
      logger.info(
        { mode: scheduler ? 'queue' : 'embedded', ...(scheduler ? { webhooks: queueWebhooks ? 'queue' : 'local' } : {}) },
        scheduler ? 'queue mode: waits and resumes go through the Redis queue' : 'embedded mode: executions run in this process',
      );
      const sweepTimer = setInterval(
        () => void engine.sweep().catch((err: Error) => logger.warn({ err: err.message }, 'sweeping waits failed')),
        SWEEP_EVERY_MS,
      ).unref();
      const stopPruning = await startPruning(runtime.store, logger, ticks, activity);
      const secret = process.env.LEADFLOW_WEBHOOK_SECRET || undefined;
      const flowLoads = new FlowLoadReport(loaded.problems);
      const admin = adminFromEnv({ env: process.env, engine, runtime, logger, flowLoads });
      if (admin)
        logger.info({}, 'admin HTTP surface on: /admin (bearer LEADFLOW_ADMIN_TOKEN or a console session) and the console at /console');
      const app = buildWebhookApp({
        engine,
        logger,
        secret,
        authModes: hostAuthModes(runtime.inboundInstances),
        extend: gatewayVerificationRoutes(gatewayProviders.inbound(), runtime.inboundInstances, logger),
        ...(admin ? { admin } : {}),
        metrics,
        ready: () => runtime.ready(),
      });
      const port = Number(process.env.PORT ?? 3000);
      const { server, port: bound } = await listenOn(app, port, listen.host);
      const routes = engine
        .listFlows()
        .flatMap((f) => (f.trigger.webhook ? webhookRoutes(f.trigger.webhook) : []))
        .map((r) => `${r.method} ${r.path}`);
      const where = describeListen(listen.host, bound);
      logger.info(
        { port: bound, host: listen.host ?? '*', flows: engine.listFlows().map((f) => f.name), routes },
        `listening on port ${bound} (${where}${listen.exposed ? '' : ', this machine only'})`,
      );
      if (!listen.authenticated && !listen.exposed)
        logger.warn(
          { host: listen.host },
          'LEADFLOW_WEBHOOK_SECRET is not set: webhooks accept unauthenticated requests, so they listen on this machine only; set the secret (and HOST to choose the interface) to accept them from elsewhere',
        );
      else if (!listen.authenticated)
        logger.warn(
          { host: listen.host },
          `LEADFLOW_ALLOW_UNAUTHENTICATED=1: webhooks on ${where} accept unauthenticated requests from any machine that reaches them`,
        );
      const stopWatching = opts.watch ? watchFlows(dir, engine, logger, flowLoads) : () => undefined;
      // Schedule triggers last: a tick's execution may start as soon as they run.
      await engine.startSchedules();

      let closing = false;
      const shutdown = async (signal: string) => {
        if (closing) return;
        closing = true;
        logger.info({ signal }, 'shutting down');
        stopWatching();
        const forced = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS).unref();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        stopPruning();
        clearInterval(sweepTimer);
        await engine.shutdown();
        await activity.idle();
        await scheduler?.close();
        await runtime.close();
        clearTimeout(forced);
        logger.info({}, 'stopped');
        process.exit(0);
      };
      process.once('SIGTERM', () => void shutdown('SIGTERM'));
      process.once('SIGINT', () => void shutdown('SIGINT'));
    });
}
