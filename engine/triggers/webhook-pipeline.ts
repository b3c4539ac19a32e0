// The webhook request pipeline: one named express middleware per check, mounted by buildWebhookApp
// in this order (each answers its status and stops, or passes the request on):
//   routeToFlow (404) -> authenticateHeaders (401) -> requireJsonContentType (415) -> readRawBody (413)
//   -> verifyRawBody (401) -> parseJsonBody (400) -> checkJsonLimits (413: json-limits.ts, e.g. nested
//   deeper than 32 levels) -> authenticateBody (401) -> startExecution (422) -> answerWebhook
// What one stage establishes for the next travels in `res.locals.webhook` (WebhookCall). Nothing is
// recorded before startExecution, so a request rejected earlier changes nothing.
// A flow serves its webhook's main route and its `routes`, each checked by its own auth mode. A
// mode may split one request into several events (AuthEvents): every one is validated first (422;
// with several, each path names its event), then each starts its own execution, in order; the
// answer is then 200 `{status: "accepted", executions: n}`, unless there was exactly one (the flow
// answers it).
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Engine } from '../engine.js';
import type { ExecutionHandle } from '../engine-options.js';
import { InputValidationError } from '../errors/input-validation-error.js';
import type { Logger } from '../logger.js';
import { schemaProblems } from '../run/param-validator.js';
import { type JsonValue, type LoadedFlow, type WebhookRoute, webhookRoutes } from '../types.js';
import type { WebhookAuthModes } from './auth-modes.js';
import { refuseOverLimits } from './json-limits.js';
import type { AuthGrant, BeforeBodyDecision, WebhookAuthContext, WebhookAuthMode } from './webhook-auth-mode.js';

/** What every stage of the pipeline needs; built once per app. */
export interface WebhookPipelineDeps {
  engine: Engine;
  logger: Logger;
  /** LEADFLOW_WEBHOOK_SECRET; undefined when unset. */
  secret: string | undefined;
  authModes: WebhookAuthModes;
  /** Largest accepted body, bytes. */
  bodyLimit: number;
}

/** One request's progress through the pipeline, kept in `res.locals.webhook`. */
interface WebhookCall {
  flow: LoadedFlow;
  /** The route of the flow's webhook the request came to (the main one or one of `routes`). */
  route: WebhookRoute;
  mode: WebhookAuthMode;
  auth: WebhookAuthContext;
  decision: BeforeBodyDecision;
  /** The body as received; undefined for methods without a body (GET, DELETE). */
  raw?: Buffer;
  body: JsonValue;
  /** What authentication accepted: one grant, or each event of a request that held several. */
  grants?: AuthGrant[];
  handles?: ExecutionHandle[];
}

const callOf = (res: Response): WebhookCall => res.locals.webhook as WebhookCall;

/** Every error answer: `{"error", "details"}` (details empty when there is nothing to point at). */
export function sendError(res: Response, status: number, error: string, details: unknown[] = []): void {
  res.status(status).json({ error, details });
}

/** True when the request's Content-Type is `application/json` or `application/<anything>+json`. */
export function isJson(req: Request): boolean {
  const type = (req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * The body parsed as JSON (`{}` when empty), or the 400 details of a syntax error: its position,
 * never the offending text (it may hold a credential).
 */
export function parseJson(raw: Buffer): { body: JsonValue } | { problems: Array<{ path: string; message: string }> } {
  if (raw.length === 0) return { body: {} };
  try {
    return { body: JSON.parse(raw.toString('utf8')) as JsonValue };
  } catch (err) {
    const at = /position (\d+)/.exec(err instanceof Error ? err.message : '')?.[1];
    return { problems: [{ path: '(body)', message: at ? `not valid JSON at position ${at}` : 'not valid JSON' }] };
  }
}

const carriesBody = (req: Request): boolean => req.method !== 'GET' && req.method !== 'DELETE';

function rejectUnauthenticated(deps: WebhookPipelineDeps, req: Request, res: Response, reason: string): void {
  deps.logger.warn({ flow: callOf(res).flow.name, path: req.path, ip: req.ip }, `webhook rejected: ${reason}`);
  sendError(res, 401, 'unauthorized');
}

/** Each loaded webhook's routes (webhookRoutes), listed once per loaded flow: a reload loads new flow objects. */
const routesOfWebhook = new WeakMap<NonNullable<LoadedFlow['trigger']['webhook']>, WebhookRoute[]>();

function routesOf(webhook: NonNullable<LoadedFlow['trigger']['webhook']>): WebhookRoute[] {
  let routes = routesOfWebhook.get(webhook);
  if (!routes) {
    routes = webhookRoutes(webhook);
    routesOfWebhook.set(webhook, routes);
  }
  return routes;
}

/** The loaded flow and route serving `method` and `path` (any route of a webhook), or undefined. */
function servingRoute(engine: Engine, method: string, path: string): { flow: LoadedFlow; route: WebhookRoute } | undefined {
  for (const flow of engine.listFlows()) {
    if (!flow.trigger.webhook) continue;
    const route = routesOf(flow.trigger.webhook).find((r) => r.method === method && r.path === path);
    if (route) return { flow, route };
  }
  return undefined;
}

/** 404 unless a loaded flow serves the method and path (looked up per request: reloads apply). */
export function routeToFlow(deps: WebhookPipelineDeps): RequestHandler {
  return (req, res, next) => {
    const path = req.path.length > 1 ? req.path.replace(/\/+$/, '') : req.path;
    const served = servingRoute(deps.engine, req.method, path);
    if (!served) return sendError(res, 404, `no flow serves ${req.method} ${req.path}`);
    res.locals.webhook = { ...served, body: {} } as Partial<WebhookCall>;
    next();
  };
}

/** The mode's `beforeBody`: 401 when denied; 500 when the flow names a mode the host did not register. */
export function authenticateHeaders(deps: WebhookPipelineDeps): RequestHandler {
  return (req, res, next) => {
    const call = callOf(res);
    const name = call.route.auth;
    const mode = deps.authModes.get(name);
    if (!mode) {
      deps.logger.error({ flow: call.flow.name, path: req.path, auth: name }, deps.authModes.unknownModeMessage(call.flow.name, name)!);
      return sendError(res, 500, 'internal error');
    }
    call.mode = mode;
    call.auth = { flow: call.flow.name, secret: deps.secret };
    call.decision = mode.beforeBody?.(req, call.auth) ?? 'ok';
    if (call.decision === 'denied') return rejectUnauthenticated(deps, req, res, 'not authenticated');
    next();
  };
}

/** 415 unless a request that carries a body declares it JSON. */
export const requireJsonContentType: RequestHandler = (req, res, next) => {
  if (carriesBody(req) && !isJson(req)) return sendError(res, 415, 'Content-Type must be application/json');
  next();
};

/**
 * Reads the raw body into the call, bounded by the route's auth mode's `maxBodyBytes` or else the
 * app's limit (over it the error handler answers 413, naming the limit).
 */
export function readRawBody(deps: WebhookPipelineDeps): RequestHandler {
  const readers = new Map<number, RequestHandler>();
  const readerFor = (limit: number): RequestHandler => {
    const known = readers.get(limit);
    if (known) return known;
    const read = express.raw({ type: () => true, limit });
    readers.set(limit, read);
    return read;
  };
  return (req, res, next) => {
    if (!carriesBody(req)) return next();
    const read = readerFor(callOf(res).mode?.maxBodyBytes ?? deps.bodyLimit);
    read(req, res, (err?: unknown) => {
      if (err) return next(err);
      callOf(res).raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      next();
    });
  };
}

/** After `need-body`: the mode's `verifyRawBody` (401 when false, or when no body was sent). */
export function verifyRawBody(deps: WebhookPipelineDeps): RequestHandler {
  return (req, res, next) => {
    const call = callOf(res);
    if (call.decision !== 'need-body') return next();
    if (!(call.raw && call.mode.verifyRawBody?.(req, call.raw, call.auth))) return rejectUnauthenticated(deps, req, res, 'bad signature');
    next();
  };
}

/** 400 unless the body is JSON (an empty or absent body is `{}`). */
export const parseJsonBody: RequestHandler = (_req, res, next) => {
  const call = callOf(res);
  const parsed = parseJson(call.raw ?? Buffer.alloc(0));
  if ('problems' in parsed) return sendError(res, 400, 'invalid JSON', parsed.problems);
  call.body = parsed.body;
  next();
};

/**
 * 413 when the parsed body passes a limit of json-limits.ts (depth, keys of one object, items of
 * one array, values in all), naming it: before any auth mode, schema or record walks the body.
 */
export const checkJsonLimits: RequestHandler = (_req, res, next) => {
  if (!refuseOverLimits(res, callOf(res).body, sendError)) next();
};

/** The mode's `withBody`: 401 when it denies; else its grant or events (without one, the body as sent). */
export function authenticateBody(deps: WebhookPipelineDeps): RequestHandler {
  return async (req, res, next) => {
    const call = callOf(res);
    if (!call.mode.withBody) {
      call.grants = [{ body: call.body }];
      return next();
    }
    const result = await call.mode.withBody(req, call.body, call.auth, call.raw ?? Buffer.alloc(0));
    if ('denied' in result) return rejectUnauthenticated(deps, req, res, result.denied);
    call.grants = 'events' in result ? result.events : [result];
    next();
  };
}

/**
 * Each problem of each grant's body against its own `input` and the flow's `trigger.input`; paths
 * are prefixed `[i].` when the request holds several events.
 */
function inputProblems(call: WebhookCall): Array<{ path: string; message: string }> {
  const flowInput = call.flow.trigger.input;
  const several = call.grants!.length > 1;
  return call.grants!.flatMap((grant, i) => {
    const problems = [grant.input, flowInput].flatMap((schema) => (schema ? schemaProblems(schema, grant.body) : []));
    return several ? problems.map((p) => ({ ...p, path: `[${i}].${p.path}` })) : problems;
  });
}

/**
 * Records and starts one execution per grant, in order (422 when a body does not match its grant's
 * `input` or the flow's input schema: checked for every grant before the first is recorded).
 */
export function startExecution(deps: WebhookPipelineDeps): RequestHandler {
  const neverRecorded = deps.authModes.headersNeverRecorded();
  return async (req, res, next) => {
    const call = callOf(res);
    const problems = inputProblems(call);
    if (problems.length > 0) return sendError(res, 422, 'invalid input', problems);
    const headers = Object.fromEntries(
      Object.entries(req.headers)
        .filter(([name]) => !neverRecorded.has(name.toLowerCase()))
        .map(([name, v]) => [name, Array.isArray(v) ? v.join(', ') : String(v ?? '')]),
    );
    const query = Object.fromEntries(Object.entries(req.query).map(([k, v]) => [k, String(v)]));
    call.handles = [];
    // One execution answered by its respond step: no one learns its id before the answer, which waits
    // for its record (StartOptions.deferInsert), so the record is written with the drive's first write.
    const deferInsert = call.grants!.length === 1 && call.flow.trigger.webhook!.respond.mode !== 'immediately';
    try {
      for (const { body, auth } of call.grants!)
        call.handles.push(await deps.engine.start(call.flow.name, { body, headers, query, ...(auth ? { auth } : {}) }, { deferInsert }));
    } catch (err) {
      // Only before the first start (a reload changed the input schema meanwhile): nothing recorded.
      if (err instanceof InputValidationError && call.handles.length === 0) return sendError(res, 422, 'invalid input', err.details);
      throw err;
    }
    next();
  };
}

/**
 * The answer: `immediately` (the flow's status and body), or at the `respond` step; past its
 * `timeout_ms`, the trigger's `late` answer, or without one 202 `{execution_id, status: "running"}`; a finished execution without a respond
 * step answers 200 with its status, or 500 `execution failed` when it failed. A request split into
 * any number of events but one: 200 `{status: "accepted", executions: n}`.
 */
export function answerWebhook(deps: WebhookPipelineDeps): RequestHandler {
  return async (_req: Request, res: Response, _next: NextFunction) => {
    const { flow, handles } = callOf(res);
    if (handles!.length !== 1) {
      res.status(200).json({ status: 'accepted', executions: handles!.length });
      return;
    }
    const handle = handles![0];
    const respond = flow.trigger.webhook!.respond;
    if (respond.mode === 'immediately') {
      res.status(respond.status).json(await deps.engine.immediateBody(flow, handle!.record));
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), respond.timeout_ms);
    });
    const answer = await Promise.race([handle!.responded, timeout]);
    clearTimeout(timer);
    if (answer === 'timeout') {
      // Either answer tells the caller the execution is under way: it is on record first.
      await handle!.stored?.();
      if (respond.late) res.status(respond.late.status).json(respond.late.body);
      else res.status(202).json({ execution_id: handle!.id, status: 'running' });
    } else if (answer) {
      if (answer.headers) res.set(answer.headers);
      res.status(answer.status).json(answer.body);
    } else {
      const record = await deps.engine.store.get(handle!.id);
      if (record?.status === 'failed') sendError(res, 500, 'execution failed', [{ execution_id: handle!.id }]);
      else res.status(200).json({ execution_id: handle!.id, status: record?.status ?? 'unknown' });
    }
  };
}
