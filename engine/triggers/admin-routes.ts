// The admin HTTP surface: execution history and replay, behind a bearer token (LEADFLOW_ADMIN_TOKEN).
// Mounted by buildWebhookApp only when a token is configured; otherwise /admin/* is absent (404).
//
//   GET  /admin/executions?flow=&status=&version=&limit=   summaries, newest first (limit 1..1000,
//                                                 default 20; version: a prefix of the flow version)
//   GET  /admin/executions/:id                    the whole record: trigger, steps (params, output,
//                                                 error, timing), outbound calls, response, output
//   POST /admin/executions/:id/replay[?dry_run=true]
//        real:    a new execution with the recorded trigger, on this engine; 202 {execution_id, replay_of}
//        dry run: through the host's `dryRun` hook (nothing leaves, database changes rolled back, the
//                 record kept in memory only); 200 {replay_of, execution: <finished record>}
//   POST /admin/executions/:id/cancel  optional body {reason?: 1..200 characters}
//        a running or waiting execution cancelled (Engine.cancelExecution) in whatever process holds
//        it; 200 {id, status: 'cancelled'}; 404 unknown id; 409 in another status (named in the error)
// Bodies and answers are typed in admin-api-types.ts (shared with the console).
//
// Per request: the host's headers -> the host's routes before authentication (e.g. signing in) ->
// bearer (401, constant time; `WWW-Authenticate: Bearer`), or when there is none the host's
// `authorize` hook (e.g. a session cookie; it may refuse with 401/403) -> the host's routes -> route (404) -> for the
// replay and the cancel: content type JSON when a body is sent (415), 1 MiB (413), JSON (400), its shape
// within json-limits.ts (413, e.g. nested deeper than 32 levels), then `{dry_run?: boolean}` /
// `{reason?: string}` (422).
// Errors are `{"error", "details"}` like the webhooks'; the recorded trigger never held a credential
// (secret headers dropped, a credential in the body masked by its auth mode), so a replay runs on the recorded `trigger.auth`.
import express, { type Express, type Request, type RequestHandler, type Response, type Router } from 'express';
import { constantTimeEqual } from '../constant-time.js';
import type { Engine } from '../engine.js';
import type { TriggerInput } from '../engine-options.js';
import { InputValidationError } from '../errors/input-validation-error.js';
import type { Logger } from '../logger.js';
import { FLOW_VERSION_PREFIX } from '../store/execution-store.js';
import { type ExecutionSummary, listExecutionSummaries } from '../store/execution-summary.js';
import { schemaProblems } from '../run/param-validator.js';
import { EXECUTION_STATUSES, isExecutionStatus } from '../statuses.js';
import type { ExecutionRecord, ExecutionStatus } from '../types.js';
import type {
  CancelExecutionResponse,
  DryRunReplayResponse,
  ExecutionListItem,
  ExecutionListResponse,
  ReplayStartedResponse,
} from './admin-api-types.js';
import { refuseOverLimits } from './json-limits.js';
import { recordedTriggerInput } from './trigger-input.js';
import { parseJson } from './webhook-pipeline.js';

/**
 * What a host's `authorize` hook decides for a request without the bearer token: `allow` lets it
 * through; `{status, error}` refuses it with that answer (e.g. 403 for a missing anti-forgery
 * token); `undefined` means the hook does not recognise the request (answered 401 as without it).
 */
export type AdminAuthorization = 'allow' | { status: 401 | 403; error: string } | undefined;

/** The admin surface's settings, from the host (`serve`: LEADFLOW_ADMIN_TOKEN). */
export interface AdminOptions {
  /** LEADFLOW_ADMIN_TOKEN: every admin request must carry `Authorization: Bearer <token>`. */
  token: string;
  /**
   * Runs a recorded execution again as a dry run and resolves with the finished record (the host
   * owns the rollback scope). Unset: `?dry_run=true` answers 501.
   */
  dryRun?: (record: ExecutionRecord) => Promise<ExecutionRecord>;
  /** Another way in besides the bearer token (asked only when the bearer is absent or wrong). */
  authorize?: (req: Request) => Promise<AdminAuthorization>;
  /** Headers set on every admin answer (e.g. a Content-Security-Policy), errors included. */
  headers?: Record<string, string>;
  /** Routes the host adds before authentication (relative to /admin; they check what they need themselves). */
  publicRoutes?: (router: Router) => void;
  /** Routes the host adds behind authentication, before the executions routes (relative to /admin). */
  routes?: (router: Router) => void;
  /** Routes beside /admin that exist only while the admin surface is on (e.g. a web UI); mounted on the app before /admin. */
  beside?: (app: Express) => void;
}

/** What `adminRouter` works with: the engine, the log, the settings, and the server's error and JSON helpers. */
export interface AdminRouteContext {
  engine: Engine;
  logger: Logger;
  admin: AdminOptions;
  /** Largest accepted body, bytes. */
  bodyLimit: number;
  sendError(res: Response, status: number, error: string, details?: unknown[]): void;
  isJson(req: Request): boolean;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

/** Whether `Authorization` is `Bearer <token>`, compared in constant time. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? '');
  return constantTimeEqual(match?.[1] ?? '', token) && match !== null;
}

/** One line of the list: what `leadflow executions list` shows, as JSON (`duration_ms`: from `created_at` to `finished_at`, or to `updated_at` while unfinished). */
export function executionSummary(r: ExecutionSummary): ExecutionListItem {
  const end = r.finished_at ?? r.updated_at;
  return {
    id: r.id,
    flow: r.flow,
    status: r.status,
    created_at: r.created_at,
    updated_at: r.updated_at,
    finished_at: r.finished_at ?? null,
    duration_ms: Date.parse(end) - Date.parse(r.created_at),
    steps: r.step_count,
    dry_run: r.dry_run,
    ...(r.parent_id ? { parent_id: r.parent_id } : {}),
    ...(r.flow_version ? { flow_version: r.flow_version } : {}),
    ...(r.stop_reason !== undefined ? { stop_reason: r.stop_reason } : {}),
    ...(r.concurrency_key !== undefined ? { key: r.concurrency_key } : {}),
    ...(r.replaced_by ? { replaced_by: r.replaced_by } : {}),
    ...(r.error ? { error: { message: r.error.message, ...(r.error.step ? { step: r.error.step } : {}) } } : {}),
  };
}

/** One query parameter as a single string (a repeated parameter is a problem). */
function single(value: unknown): string | undefined | null {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : null;
}

function parseBoolean(text: string): boolean | undefined {
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0' || text === '') return false;
  return undefined;
}

interface ReplayRequest {
  dryRun: boolean;
  original: ExecutionRecord;
  input: TriggerInput;
}

const replayOf = (res: Response): ReplayRequest => res.locals.replay as ReplayRequest;

/**
 * Lets the request through with the admin bearer token, or when the host's `authorize` hook allows
 * it; the hook's refusal is answered as it says; otherwise 401 with `WWW-Authenticate: Bearer`.
 */
function requireAuthorization({ logger, admin, sendError }: AdminRouteContext): RequestHandler {
  return async (req, res, next) => {
    if (bearerMatches(req.header('authorization'), admin.token)) return next();
    const decision = admin.authorize ? await admin.authorize(req) : undefined;
    if (decision === 'allow') return next();
    if (decision) {
      logger.warn({ method: req.method, path: req.originalUrl.split('?')[0], ip: req.ip, reason: decision.error }, 'admin request refused');
      return sendError(res, decision.status, decision.error);
    }
    logger.warn({ method: req.method, path: req.originalUrl.split('?')[0], ip: req.ip }, 'admin request rejected: not authenticated');
    res.set('WWW-Authenticate', 'Bearer realm="leadflow-admin"');
    sendError(res, 401, 'unauthorized');
  };
}

/** Longest `containing` text of GET /executions, characters. */
const MAX_CONTAINING_LENGTH = 100;

/**
 * `GET /executions?flow=&status=&version=&containing=&limit=`: summaries, newest first; 422 on a
 * malformed query. `containing` keeps the executions whose trigger, vars or key hold that text
 * (e.g. a phone's digits), 1 to MAX_CONTAINING_LENGTH characters.
 */
function listExecutions({ engine, sendError }: AdminRouteContext): RequestHandler {
  return async (req, res) => {
    const problems: Array<{ path: string; message: string }> = [];
    const flow = single(req.query.flow);
    const status = single(req.query.status);
    const limitText = single(req.query.limit);
    const version = single(req.query.version);
    const containing = single(req.query.containing);
    if (containing === null || (containing !== undefined && (containing.length < 1 || containing.length > MAX_CONTAINING_LENGTH)))
      problems.push({ path: 'containing', message: `must be given once, 1 to ${MAX_CONTAINING_LENGTH} characters` });
    if (version === null || (version !== undefined && !FLOW_VERSION_PREFIX.test(version)))
      problems.push({ path: 'version', message: 'must be 1 to 64 lower-case hex digits (a prefix of the flow version)' });
    if (flow === null) problems.push({ path: 'flow', message: 'must be given once' });
    if (status === null || (status !== undefined && !isExecutionStatus(status)))
      problems.push({ path: 'status', message: `must be one of ${EXECUTION_STATUSES.join(', ')}` });
    const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
    if (limitText === null || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      problems.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` });
    if (problems.length > 0) return sendError(res, 422, 'invalid query', problems);
    const summaries = await listExecutionSummaries(engine.store, {
      limit,
      ...(flow ? { flow } : {}),
      ...(status ? { status: status as ExecutionStatus } : {}),
      ...(version ? { version } : {}),
      ...(containing ? { containing: [containing] } : {}),
    });
    res.json({ executions: summaries.map(executionSummary) } satisfies ExecutionListResponse);
  };
}

/** `GET /executions/:id`: the whole record, or 404. */
function getExecution({ engine, sendError }: AdminRouteContext): RequestHandler {
  return async (req, res) => {
    const record = await engine.store.get(String(req.params.id));
    if (!record) return sendError(res, 404, 'no such execution');
    res.json(record);
  };
}

/** An optional body (replay, cancel): 415 unless JSON when one is sent; 413 over the limit (error handler). */
function readOptionalBody(ctx: AdminRouteContext): RequestHandler {
  const read = express.raw({ type: () => true, limit: ctx.bodyLimit });
  return (req, res, next) => {
    const hasBody = Number(req.header('content-length') ?? 0) > 0 || req.header('transfer-encoding') !== undefined;
    if (hasBody && !ctx.isJson(req)) return ctx.sendError(res, 415, 'Content-Type must be application/json');
    read(req, res, next);
  };
}

/** `dry_run` from the body (`{dry_run?: boolean}`) or the query; 400 on bad JSON, 422 on a bad value. */
function parseReplayOptions({ sendError }: AdminRouteContext): RequestHandler {
  return (req, res, next) => {
    const parsed = parseJson(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    if ('problems' in parsed) return sendError(res, 400, 'invalid JSON', parsed.problems);
    if (refuseOverLimits(res, parsed.body, sendError)) return;
    const body = parsed.body;
    const problems: Array<{ path: string; message: string }> = [];
    if (!body || typeof body !== 'object' || Array.isArray(body)) problems.push({ path: '(body)', message: 'must be an object' });
    const bodyDryRun = body && typeof body === 'object' && !Array.isArray(body) ? body.dry_run : undefined;
    if (bodyDryRun !== undefined && typeof bodyDryRun !== 'boolean') problems.push({ path: 'dry_run', message: 'must be a boolean' });
    const queryText = single(req.query.dry_run);
    const queryDryRun = typeof queryText === 'string' ? parseBoolean(queryText) : undefined;
    if (queryText === null || (typeof queryText === 'string' && queryDryRun === undefined))
      problems.push({ path: 'dry_run', message: 'must be true or false' });
    if (problems.length > 0) return sendError(res, 422, 'invalid input', problems);
    res.locals.replay = { dryRun: queryDryRun === true || bodyDryRun === true };
    next();
  };
}

/** The recorded execution and its trigger: 404 unknown, 409 flow not served, 422 input no longer matches. */
function loadReplayable({ engine, sendError }: AdminRouteContext): RequestHandler {
  return async (req, res, next) => {
    const original = await engine.store.get(String(req.params.id));
    if (!original) return sendError(res, 404, 'no such execution');
    const flow = engine.getFlow(original.flow);
    if (!flow) return sendError(res, 409, 'flow not loaded', [{ path: 'flow', message: `flow "${original.flow}" is not served` }]);
    const input = recordedTriggerInput(original);
    const mismatch = flow.trigger.input ? schemaProblems(flow.trigger.input, input.body) : [];
    if (mismatch.length > 0) return sendError(res, 422, 'the recorded trigger no longer matches the flow input', mismatch);
    Object.assign(replayOf(res), { original, input });
    next();
  };
}

/** Dry run: 200 `{replay_of, execution}` through the host's hook (501 without one). */
function replayDryRun({ logger, admin, sendError }: AdminRouteContext): RequestHandler {
  return async (_req, res, next) => {
    const { dryRun, original } = replayOf(res);
    if (!dryRun) return next();
    if (!admin.dryRun) return sendError(res, 501, 'dry-run replay is not available');
    const record = await admin.dryRun(original);
    logger.info(
      { execution: record.id, flow: record.flow, replay_of: original.id, dry_run: true, status: record.status },
      'execution replayed (dry run)',
    );
    res.status(200).json({ replay_of: original.id, execution: record } satisfies DryRunReplayResponse);
  };
}

/** Real replay: a new execution with the recorded trigger; 202 `{execution_id, replay_of}`. */
function replayForReal({ engine, logger, sendError }: AdminRouteContext): RequestHandler {
  return async (_req, res) => {
    const { original, input } = replayOf(res);
    let handle;
    try {
      handle = await engine.start(original.flow, input);
    } catch (err) {
      if (err instanceof InputValidationError)
        return sendError(res, 422, 'the recorded trigger no longer matches the flow input', err.details);
      throw err;
    }
    logger.info({ execution: handle.id, flow: original.flow, replay_of: original.id, dry_run: false }, 'execution replayed');
    res.status(202).json({ execution_id: handle.id, replay_of: original.id } satisfies ReplayStartedResponse);
  };
}

/** Longest `reason` of a cancel, characters. */
const MAX_CANCEL_REASON_LENGTH = 200;
/** The stop reason of a cancel without one. */
const DEFAULT_CANCEL_REASON = 'cancelled by an operator';

/** The cancel's optional body `{reason?: string}` (1..MAX_CANCEL_REASON_LENGTH characters); 400 bad JSON, 422 anything else. */
function parseCancelBody({ sendError }: AdminRouteContext): RequestHandler {
  return (req, res, next) => {
    const parsed = parseJson(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    if ('problems' in parsed) return sendError(res, 400, 'invalid JSON', parsed.problems);
    if (refuseOverLimits(res, parsed.body, sendError)) return;
    const body = parsed.body;
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return sendError(res, 422, 'invalid input', [{ path: '(body)', message: 'must be an object' }]);
    const problems: Array<{ path: string; message: string }> = [];
    for (const name of Object.keys(body)) if (name !== 'reason') problems.push({ path: name, message: 'is not a known field' });
    const reason = body.reason;
    if (reason !== undefined && (typeof reason !== 'string' || reason.length < 1 || reason.length > MAX_CANCEL_REASON_LENGTH))
      problems.push({ path: 'reason', message: `must be a text of 1 to ${MAX_CANCEL_REASON_LENGTH} characters` });
    if (problems.length > 0) return sendError(res, 422, 'invalid input', problems);
    res.locals.cancelReason = typeof reason === 'string' ? reason : DEFAULT_CANCEL_REASON;
    next();
  };
}

/** Cancels a running or waiting execution: 200 `{id, status}`; 404 unknown id; 409 in another status. */
function cancelExecution({ engine, sendError }: AdminRouteContext): RequestHandler {
  return async (req, res) => {
    const id = String(req.params.id);
    const outcome = await engine.cancelExecution(id, res.locals.cancelReason as string);
    if (!outcome.record) return sendError(res, 404, 'no such execution');
    if (!outcome.cancelled) {
      const status = outcome.record.status;
      return sendError(res, 409, `execution is ${status}: only a running or waiting execution can be cancelled`, [
        { path: 'status', message: status },
      ]);
    }
    res.json({ id, status: 'cancelled' } satisfies CancelExecutionResponse);
  };
}

/**
 * The admin router; mount it at `/admin`. Its middlewares run in the order of this file's header:
 * headers, public routes, bearer or `authorize`, the host's routes, then the executions routes; every error answer goes through `ctx.sendError`.
 *
 * @example
 * app.use('/admin', adminRouter({ engine, logger, admin: { token }, bodyLimit: 1 << 20, sendError, isJson }));
 */
export function adminRouter(ctx: AdminRouteContext): Router {
  const router = express.Router();
  const headers = ctx.admin.headers;
  if (headers) {
    router.use((_req, res, next) => {
      res.set(headers);
      next();
    });
  }
  ctx.admin.publicRoutes?.(router);
  router.use(requireAuthorization(ctx));
  ctx.admin.routes?.(router);
  router.get('/executions', listExecutions(ctx));
  router.get('/executions/:id', getExecution(ctx));
  router.post(
    '/executions/:id/replay',
    readOptionalBody(ctx),
    parseReplayOptions(ctx),
    loadReplayable(ctx),
    replayDryRun(ctx),
    replayForReal(ctx),
  );
  router.post('/executions/:id/cancel', readOptionalBody(ctx), parseCancelBody(ctx), cancelExecution(ctx));
  router.use((req: Request, res: Response) => ctx.sendError(res, 404, `no admin route ${req.method} ${req.originalUrl.split('?')[0]}`));
  return router;
}
