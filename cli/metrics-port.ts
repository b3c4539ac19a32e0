// A worker's metrics port (`worker --metrics-port`, LEADFLOW_METRICS_PORT): GET /healthz, /readyz
// and /metrics of that process, nothing else (every other path answers 404). serve needs none: it
// serves the same routes beside its webhooks. Loaded inside the worker's action (it imports express).
import type { Server } from 'node:http';
import express from 'express';
import { opsRoutes } from '../engine/triggers/ops-routes.js';
import type { ExecutingProcess } from './executing-process.js';
import { describeListen, type ListenAddress, listenOn } from './listen-address.js';
import { UsageError } from './usage-error.js';

/**
 * The metrics port from `--metrics-port` or else LEADFLOW_METRICS_PORT: undefined when neither is
 * set (or the one read is empty): no metrics port. An integer from 0 (any free port) to 65535;
 * anything else is a UsageError (exit 2).
 */
export function metricsPortFrom(option: string | undefined, env: Record<string, string | undefined>): number | undefined {
  const text = option ?? env.LEADFLOW_METRICS_PORT;
  const port = text === undefined || text === '' ? undefined : Number(text);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
    throw new UsageError(`--metrics-port expects a port number, got "${text}"`);
  return port;
}

/**
 * Listens on `port` at `listen.host` with the process's health, readiness and metrics routes and
 * logs where (`worker metrics on ...`, with the port bound). Resolves with the listening server.
 */
export async function serveMetricsPort(executing: ExecutingProcess, port: number, listen: ListenAddress): Promise<Server> {
  const { logger, metrics, runtime } = executing;
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.use(opsRoutes({ logger, metrics, ready: () => runtime.ready() }));
  app.use((_req, res) => void res.status(404).json({ error: 'not found', details: [] }));
  const { server, port: bound } = await listenOn(app, port, listen.host);
  logger.info(
    { port: bound, host: listen.host ?? '*' },
    `worker metrics on /metrics, /readyz, /healthz at ${describeListen(listen.host, bound)}${listen.exposed ? '' : ' (this machine only; HOST exposes them)'}`,
  );
  return server;
}
