// The HTTP surface built from the loaded flows' webhook triggers (express). Flows are looked up per
// request, so a reload (`serve --watch`) takes effect without rebuilding the app.
//
// Per request, in this order; a rejected request changes nothing:
//   route (404) -> auth (401) -> content type application/json (415) -> raw body, 1 MiB (413)
//   -> signature (401) -> JSON (400) -> input schema (422, each path) -> execution started
//   -> answer: `immediately` (status + body) or at the `respond` step (`step`, bounded by timeout_ms).
// Error bodies are `{"error", "details"?}` and never carry stacks, SQL or secrets.
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Engine } from '../engine.js';
import { InputValidationError } from '../errors/input-validation-error.js';
import type { Logger } from '../run/execution-run.js';
import type { JsonValue, LoadedFlow } from '../types.js';
import { authorizeBeforeBody, hasFormSignature } from './webhook-auth.js';

/** Largest accepted body, bytes (1 MiB). */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface WebhookAppOptions {
  engine: Engine;
  logger: Logger;
  /** LEADFLOW_WEBHOOK_SECRET; unset: webhooks with auth `secret` are open. */
  secret?: string;
  /** Extra routes mounted before the webhooks (health, metrics, admin). */
  extend?: (app: express.Express) => void;
}

function sendError(res: Response, status: number, error: string, details?: unknown[]): void {
  res.status(status).json(details && details.length ? { error, details } : { error });
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
  options.extend?.(app);

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
          return sendError(res, 400, 'invalid JSON', [(err as Error).message]);
        }
      }
      startExecution(flow, req, res, body).catch(next);
    };
    if (!hasBody) return proceed(undefined);
    readBody(req, res, (err?: unknown) => {
      if (err) return next(err);
      proceed(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    });
  });

  async function startExecution(flow: LoadedFlow, req: Request, res: Response, body: JsonValue): Promise<void> {
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]));
    const query = Object.fromEntries(Object.entries(req.query).map(([k, v]) => [k, String(v)]));
    let handle;
    try {
      handle = await engine.start(flow.name, { body, headers, query });
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

  // Body-parser errors carry a status (413 too large, 400 aborted); anything else is a 500 without internals.
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const e = err as { status?: number; type?: string; message?: string };
    if (e.type === 'entity.too.large') return sendError(res, 413, `body larger than ${BODY_LIMIT_BYTES} bytes`);
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return sendError(res, e.status, 'bad request');
    logger.error({ path: req.path, err: e.message }, 'webhook handler failed');
    sendError(res, 500, 'internal error');
  });
  return app;
}
