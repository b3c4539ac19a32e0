// What `serve` adds to an executing process (cli/executing-process.ts): the HTTP app on $PORT with
// every flow's webhook, the gateway providers' verification GETs, the operations routes and, with
// LEADFLOW_ADMIN_TOKEN, the admin surface and the console (cli/admin-host.ts). Loaded inside serve's
// action (it imports express and the console).
import type { Server } from 'node:http';
import { gatewayProviders } from '../adapters/gateway/providers.js';
import { buildWebhookApp } from '../engine/triggers/webhook-app.js';
import { webhookRoutes } from '../engine/types.js';
import { adminFromEnv } from './admin-host.js';
import type { ExecutingProcess } from './executing-process.js';
import type { FlowLoadReport } from './flow-load-report.js';
import { gatewayVerificationRoutes } from './gateway-routes.js';
import { describeListen, type ListenAddress, listenOn } from './listen-address.js';
import { hostAuthModes } from './webhook-auth-modes.js';

/**
 * Builds the webhook app over the process's engine and listens on $PORT (default 3000; 0: any free
 * port) at `listen.host`. Logs whether the admin surface is on, the port bound with the flows and
 * their routes, and a warning when the webhooks accept unauthenticated requests
 * (LEADFLOW_WEBHOOK_SECRET unset). Resolves with the listening server.
 */
export async function listenForWebhooks(executing: ExecutingProcess, listen: ListenAddress, flowLoads: FlowLoadReport): Promise<Server> {
  const { engine, runtime, logger, metrics } = executing;
  const secret = process.env.LEADFLOW_WEBHOOK_SECRET || undefined;
  const admin = adminFromEnv({ env: process.env, engine, runtime, logger, flowLoads });
  if (admin)
    logger.info({}, 'admin HTTP surface on: /admin (bearer LEADFLOW_ADMIN_TOKEN or a console session) and the console at /console');
  const app = buildWebhookApp({
    engine,
    logger,
    secret,
    authModes: hostAuthModes(runtime.inboundInstances, { ...runtime.services, logger }),
    extend: gatewayVerificationRoutes(gatewayProviders.inbound(), runtime.inboundInstances, logger),
    ...(admin ? { admin } : {}),
    metrics,
    ready: () => runtime.ready(),
  });
  const port = Number(process.env.PORT ?? 3000);
  const { server, port: bound } = await listenOn(app, port, listen.host);
  logListening(executing, listen, bound);
  return server;
}

/** The `listening on port …` line (flows and routes), then the warning for unauthenticated webhooks, if any. */
function logListening({ engine, logger }: ExecutingProcess, listen: ListenAddress, bound: number): void {
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
}
