// The HTTP surface built from the loaded flows' webhook triggers (express). Flows are looked up per
// request, so a reload (`serve --watch`) takes effect without rebuilding the app.
//
// Per request, in this order (the middlewares of webhook-pipeline.ts); a rejected request changes nothing:
//   route (404) -> auth before the body (401) -> content type application/json (415) -> raw body, 1 MiB (413)
//   -> raw-body auth, e.g. a signature (401) -> JSON (400) -> JSON shape limits, e.g. 32 levels (413,
//   json-limits.ts) -> auth on the parsed body, e.g. a token (401)
//   -> input schema (422, each path) -> execution started
//   -> answer: `immediately` (status + body) or at the `respond` step (`step`, bounded by timeout_ms).
// The auth steps are the flow's mode's hooks (webhook-auth-mode.ts). Error bodies are
// `{"error", "details": [...]}` and never carry stacks, SQL, paths or secrets; an unexpected exception
// answers 500 `internal error` and its details go to the log only; the database or Redis being
// unreachable answers 503 with Retry-After (nothing recorded).
// With an admin token, /admin/* (admin-routes.ts) and the host's routes beside it are mounted before
// the webhooks; without, they are absent. The host's `extend` routes (e.g. a webhook URL's
// verification GET) are mounted before both, whatever the admin token.
import { parse as parseQueryString } from 'node:querystring';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Engine } from '../engine.js';
import { isDependencyUnavailable } from '../errors/dependency-unavailable.js';
import type { Logger } from '../logger.js';
import { webhookRoutes } from '../types.js';
import { type AdminOptions, adminRouter } from './admin-routes.js';
import { WebhookAuthModes } from './auth-modes.js';
import { type MetricsEndpoint, opsRoutes, type ReadinessResult } from './ops-routes.js';
import {
  answerWebhook,
  authenticateBody,
  authenticateHeaders,
  checkJsonLimits,
  isJson,
  parseJsonBody,
  readRawBody,
  requireJsonContentType,
  routeToFlow,
  sendError,
  startExecution,
  verifyRawBody,
  type WebhookPipelineDeps,
} from './webhook-pipeline.js';

/** Largest accepted body, bytes (1 MiB). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Most query parameters read from one URL (webhooks and /admin alike); those past it are ignored.
 * The parser is node's querystring ('simple': flat, a repeated name gives an array, `__proto__` a
 * plain member of a null-prototype object); the URL itself is bounded by node's header limit (16 KB).
 */
export const MAX_QUERY_PARAMETERS = 100;

/** What `buildWebhookApp` serves and with what. */
export interface WebhookAppOptions {
  engine: Engine;
  logger: Logger;
  /** LEADFLOW_WEBHOOK_SECRET; unset: webhooks with auth `secret` are open. */
  secret?: string;
  /** The auth modes flows may name; default: the engine's `none` and `secret` only. */
  authModes?: WebhookAuthModes;
  /** The admin surface (LEADFLOW_ADMIN_TOKEN); unset: /admin/* is absent (404). */
  admin?: AdminOptions;
  /**
   * The host's own routes, mounted after /healthz, /readyz and /metrics and before /admin and the
   * webhooks: e.g. the GET a sender calls to verify a webhook URL before it posts events to it,
   * which starts no flow. Such a route answers for itself (its own checks, its own errors).
   */
  extend?: (app: express.Express) => void;
  /** `GET /metrics` (ops-routes.ts); unauthenticated like /healthz. */
  metrics?: MetricsEndpoint;
  /** `GET /readyz` checks (ops-routes.ts); without them /readyz answers ready. */
  ready?: () => Promise<ReadinessResult>;
}

/** Throws when a route of a loaded webhook flow names an auth mode `modes` does not hold. */
function assertAuthModesRegistered(engine: Engine, modes: WebhookAuthModes): void {
  for (const flow of engine.listFlows()) {
    for (const route of flow.trigger.webhook ? webhookRoutes(flow.trigger.webhook) : []) {
      const problem = modes.unknownModeMessage(flow.name, route.auth);
      if (problem) throw new Error(problem);
    }
  }
}

/** /healthz, /readyz, /metrics, the host's extra routes, then /admin when a token is configured. */
function mountSideRoutes(app: express.Express, options: WebhookAppOptions): void {
  const { engine, logger } = options;
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(
    opsRoutes({ logger, ...(options.metrics ? { metrics: options.metrics } : {}), ...(options.ready ? { ready: options.ready } : {}) }),
  );
  options.extend?.(app);
  if (options.admin?.token) {
    options.admin.beside?.(app);
    app.use('/admin', adminRouter({ engine, logger, admin: options.admin, bodyLimit: BODY_LIMIT_BYTES, sendError, isJson }));
  }
}

/**
 * Body-parser errors carry a status (413 too large, 400 aborted, 415 unsupported encoding); an
 * unreachable dependency answers 503 with Retry-After; anything else is a 500 without internals,
 * its details (message, stack) in the log line only.
 */
function webhookErrors(logger: Logger): express.ErrorRequestHandler {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = (err ?? {}) as { status?: number; type?: string; limit?: number; message?: string; name?: string; stack?: string };
    const details = { method: req.method, path: req.path, err: { name: e.name, message: e.message, stack: e.stack } };
    if (res.headersSent) return logger.error(details, 'request failed after its answer was sent');
    if (e.type === 'entity.too.large')
      return sendError(res, 413, `body larger than ${typeof e.limit === 'number' ? e.limit : BODY_LIMIT_BYTES} bytes`);
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return sendError(res, 415, 'unsupported content encoding');
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return sendError(res, e.status, 'bad request');
    if (isDependencyUnavailable(err)) {
      // Nothing was recorded (an auth lookup or the execution's record needs the database): the
      // sender may deliver again once it is back.
      logger.warn({ method: req.method, path: req.path, err: e.message }, 'request refused: a dependency is unreachable');
      res.set('Retry-After', '5');
      return sendError(res, 503, 'service unavailable, try again shortly');
    }
    logger.error(details, 'request failed');
    sendError(res, 500, 'internal error');
  };
}

/**
 * The express app serving every loaded flow's webhook (plus /healthz, /readyz, /metrics and, with
 * an admin token, /admin). Throws when a loaded flow names an auth mode not in `authModes`; a flow
 * reloaded later with such a mode answers 500 and logs which flow and mode.
 *
 * @example
 * const authModes = new WebhookAuthModes([signatureAuth]);
 * const app = buildWebhookApp({ engine, logger, secret: process.env.LEADFLOW_WEBHOOK_SECRET, authModes });
 * app.listen(3000);
 */
export function buildWebhookApp(options: WebhookAppOptions): express.Express {
  const deps: WebhookPipelineDeps = {
    engine: options.engine,
    logger: options.logger,
    secret: options.secret,
    authModes: options.authModes ?? new WebhookAuthModes(),
    bodyLimit: BODY_LIMIT_BYTES,
  };
  assertAuthModesRegistered(deps.engine, deps.authModes);
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', (text: string) => parseQueryString(text, '&', '=', { maxKeys: MAX_QUERY_PARAMETERS }));
  mountSideRoutes(app, options);
  app.use(
    inOrder([
      routeToFlow(deps),
      authenticateHeaders(deps),
      requireJsonContentType,
      readRawBody(deps),
      verifyRawBody(deps),
      parseJsonBody,
      checkJsonLimits,
      authenticateBody(deps),
      startExecution(deps),
      answerWebhook(deps),
    ]),
  );
  app.use(webhookErrors(options.logger));
  return app;
}

/**
 * The stages as one middleware: each runs when the previous one calls its `next()`; `next(err)`, a
 * throw or a rejected promise goes to the app's error handlers, and `next()` after the last stage to
 * the app's next route — as when each stage is mounted on its own, without the router's matching
 * work between every two stages (the stages never call `next('route')`).
 */
function inOrder(stages: RequestHandler[]): RequestHandler {
  return (req, res, done) => {
    let index = 0;
    const next = (err?: unknown): void => {
      const stage = err ? undefined : stages[index++];
      if (!stage) {
        done(err);
        return;
      }
      try {
        const ran = stage(req, res, next) as unknown;
        if (ran instanceof Promise) ran.catch((rejected: unknown) => done(rejected ?? new Error('Rejected promise')));
      } catch (thrown) {
        done(thrown);
      }
    };
    next();
  };
}
