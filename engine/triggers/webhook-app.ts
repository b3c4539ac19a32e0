// The HTTP surface built from the loaded flows' webhook triggers (express). Flows are looked up per
// request, so a reload (`serve --watch`) takes effect without rebuilding the app.
//
// Per request, in this order; a rejected request changes nothing:
//   route (404) -> auth (401) -> content type application/json (415) -> raw body, 1 MiB (413)
//   -> signature (401) -> JSON (400) -> instance token (401) -> input schema (422, each path)
//   -> execution started
//   -> answer: `immediately` (status + body) or at the `respond` step (`step`, bounded by timeout_ms).
// Error bodies are `{"error", "details": [...]}` and never carry stacks, SQL, paths or secrets; an
// unexpected exception answers 500 `internal error` and its details go to the log only; the database
// or Redis being unreachable answers 503 with Retry-After (nothing recorded).
// With an admin token, /admin/* (admin-routes.ts) is mounted before the webhooks; without, it is absent.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Engine } from '../engine.js';
import { InputValidationError } from '../errors/input-validation-error.js';
import { isDependencyUnavailable } from '../errors/dependency-unavailable.js';
import type { Logger } from '../run/execution-run.js';
import type { JsonObject, JsonValue, LoadedFlow } from '../types.js';
import { adminRouter, type AdminOptions } from './admin-routes.js';
import { opsRoutes, type MetricsEndpoint, type ReadinessResult } from './ops-routes.js';
import { authorizeBeforeBody, authorizeInstanceToken, hasFormSignature, type InstanceTokenLookup } from './webhook-auth.js';

/** Largest accepted body, bytes (1 MiB). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface WebhookAppOptions {
  engine: Engine;
  logger: Logger;
  /** LEADFLOW_WEBHOOK_SECRET; unset: webhooks with auth `secret` are open. */
  secret?: string;
  /** Resolves the body's `token` of `auth: instance-token` webhooks; unset: those webhooks answer 500 (misconfigured host). */
  instanceTokens?: InstanceTokenLookup;
  /** The admin surface (LEADFLOW_ADMIN_TOKEN); unset: /admin/* is absent (404). */
  admin?: AdminOptions;
  /** Extra routes mounted before the webhooks (health, metrics, admin). */
  extend?: (app: express.Express) => void;
  /** `GET /metrics` (ops-routes.ts); unauthenticated like /healthz. */
  metrics?: MetricsEndpoint;
  /** `GET /readyz` checks (ops-routes.ts); without them /readyz answers ready. */
  ready?: () => Promise<ReadinessResult>;
}

/** Every error answer: `{"error", "details"}` (details empty when there is nothing to point at). */
function sendError(res: Response, status: number, error: string, details: unknown[] = []): void {
  res.status(status).json({ error, details });
}

/** The position of a JSON syntax error, never the offending text (it may hold a credential). */
function jsonErrorDetails(err: unknown): Array<{ path: string; message: string }> {
  const at = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
  return [{ path: '(body)', message: at ? `not valid JSON at position ${at}` : 'not valid JSON' }];
}

function findFlow(engine: Engine, method: string, path: string): LoadedFlow | undefined {
  const normalized = path.length > 1 ? path.replace(/\/+$/, '') : path;
  return engine.listFlows().find((f) => f.trigger.webhook && f.trigger.webhook.method === method && f.trigger.webhook.path === normalized);
}

function isJson(req: Request): boolean {
  const type = (req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export function buildWebhookApp(options: WebhookAppOptions): express.Express {
  const { engine, logger, secret } = options;
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use(
    opsRoutes({ logger, ...(options.metrics ? { metrics: options.metrics } : {}), ...(options.ready ? { ready: options.ready } : {}) }),
  );
  options.extend?.(app);
  if (options.admin?.token) {
    app.use('/admin', adminRouter({ engine, logger, admin: options.admin, bodyLimit: BODY_LIMIT_BYTES, sendError, isJson }));
  }

  const readBody = express.raw({ type: () => true, limit: BODY_LIMIT_BYTES });

  app.use((req: Request, res: Response, next: NextFunction) => {
    const flow = findFlow(engine, req.method, req.path);
    if (!flow) return sendError(res, 404, `no flow serves ${req.method} ${req.path}`);
    const webhook = flow.trigger.webhook!;
    const decision = authorizeBeforeBody(webhook.auth, req, secret);
    if (decision === 'denied') {
      logger.warn({ flow: flow.name, path: req.path, ip: req.ip }, 'webhook rejected: not authenticated');
      return sendError(res, 401, 'unauthorized');
    }
    const hasBody = req.method !== 'GET' && req.method !== 'DELETE';
    if (hasBody && !isJson(req)) return sendError(res, 415, 'Content-Type must be application/json');
    const proceed = (raw: Buffer | undefined) => {
      if (decision === 'need-body' && !(raw && secret && hasFormSignature(req, raw, secret))) {
        logger.warn({ flow: flow.name, path: req.path, ip: req.ip }, 'webhook rejected: bad signature');
        return sendError(res, 401, 'unauthorized');
      }
      let body: JsonValue = {};
      if (raw && raw.length > 0) {
        try {
          body = JSON.parse(raw.toString('utf8')) as JsonValue;
        } catch (err) {
          return sendError(res, 400, 'invalid JSON', jsonErrorDetails(err));
        }
      }
      if (webhook.auth === 'instance-token') {
        authenticateInstance(flow, req, res, body)
          .then((grant) => (grant ? startExecution(flow, req, res, grant.body, grant.auth) : undefined))
          .catch(next);
        return;
      }
      startExecution(flow, req, res, body).catch(next);
    };
    if (!hasBody) return proceed(undefined);
    readBody(req, res, (err?: unknown) => {
      if (err) return next(err);
      proceed(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    });
  });

  /** `instance-token`: 401 (and a log line without the token) unless the body's token is a registered instance's. */
  async function authenticateInstance(
    flow: LoadedFlow,
    req: Request,
    res: Response,
    body: JsonValue,
  ): Promise<{ body: JsonValue; auth: JsonObject } | undefined> {
    if (!options.instanceTokens) {
      logger.error(
        { flow: flow.name, path: req.path },
        'webhook rejected: auth instance-token needs an instance lookup, and none is configured',
      );
      sendError(res, 500, 'internal error');
      return undefined;
    }
    const grant = await authorizeInstanceToken(body, options.instanceTokens);
    if (!grant) {
      logger.warn({ flow: flow.name, path: req.path, ip: req.ip }, 'webhook rejected: missing or unknown instance token');
      sendError(res, 401, 'unauthorized');
      return undefined;
    }
    return grant;
  }

  async function startExecution(flow: LoadedFlow, req: Request, res: Response, body: JsonValue, auth?: JsonObject): Promise<void> {
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]));
    const query = Object.fromEntries(Object.entries(req.query).map(([k, v]) => [k, String(v)]));
    let handle;
    try {
      handle = await engine.start(flow.name, { body, headers, query, ...(auth ? { auth } : {}) });
    } catch (err) {
      if (err instanceof InputValidationError) return sendError(res, 422, 'invalid input', err.details);
      throw err;
    }
    const respond = flow.trigger.webhook!.respond;
    if (respond.mode === 'immediately') {
      res.status(respond.status).json(await engine.immediateBody(flow, handle.record));
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), respond.timeout_ms)));
    const answer = await Promise.race([handle.responded, timeout]);
    clearTimeout(timer);
    if (answer === 'timeout') {
      res.status(202).json({ execution_id: handle.id, status: 'running' });
    } else if (answer) {
      if (answer.headers) res.set(answer.headers);
      res.status(answer.status).json(answer.body);
    } else {
      const record = await engine.store.get(handle.id);
      if (record?.status === 'failed') sendError(res, 500, 'execution failed', [{ execution_id: handle.id }]);
      else res.status(200).json({ execution_id: handle.id, status: record?.status ?? 'unknown' });
    }
  }

  // Body-parser errors carry a status (413 too large, 400 aborted, 415 unsupported encoding); anything
  // else is a 500 without internals, its details (message, stack) in the log line only.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = (err ?? {}) as { status?: number; type?: string; message?: string; name?: string; stack?: string };
    const details = { method: req.method, path: req.path, err: { name: e.name, message: e.message, stack: e.stack } };
    if (res.headersSent) return logger.error(details, 'request failed after its answer was sent');
    if (e.type === 'entity.too.large') return sendError(res, 413, `body larger than ${BODY_LIMIT_BYTES} bytes`);
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return sendError(res, 415, 'unsupported content encoding');
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return sendError(res, e.status, 'bad request');
    if (isDependencyUnavailable(err)) {
      // Nothing was recorded (the token check or the execution's record needs the database): the
      // sender may deliver again once it is back.
      logger.warn({ method: req.method, path: req.path, err: e.message }, 'request refused: a dependency is unreachable');
      res.set('Retry-After', '5');
      return sendError(res, 503, 'service unavailable, try again shortly');
    }
    logger.error(details, 'request failed');
    sendError(res, 500, 'internal error');
  });
  return app;
}
