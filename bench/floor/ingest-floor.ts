// The floor of the ingest benchmark (bench/ingest.ts): a hand-written express server doing, per
// `POST /leadagent` gateway event, the least work LeadFlow's agent flow must do before it answers
// 200 {"status":"queued"} — no less, and nothing more:
//   1. read the JSON body (express.json, the same 1 MiB limit as LeadFlow's webhook app);
//   2. check the instance token: one SELECT on instancias_whatsapp by its indexed `token` column,
//      per request, uncached (LeadFlow does not cache it either: adapters/gateway/inbound-instances.ts
//      reads the table on every request) — 401 when unknown;
//   3. validate the body with ajv against flows/agent.yaml `trigger.input` (read from the YAML at
//      start, compiled once) — 422 when invalid;
//   4. find the lead: `leads` by clinica_id and remotejid IN (the chat phone's Brazilian variants,
//      adapters/phones) — 200 {"status":"ignored"} when there is none;
//   5. durable floor only (FLOOR_DURABLE=1): one INSERT of the request's raw JSON body into a table
//      of its own, `bench_floor_events` (created at start when missing; bench/floor/floor-store.ts),
//      committed before going on — the cheapest way to have the message on record before answering;
//   6. push the message into the lead's buffer with the same key `<clinica_id>:<remotejid>` and TTL
//      as LeadFlow's debounce step: in Redis (adapters/kv RedisKeyValue.bufferPush, the Lua script
//      the debounce step runs), or, without REDIS_URL, in this process (MemoryKeyValue, the
//      embedded mode's store, kept in memory only);
//   7. answer 200 {"status":"queued"}.
// It records no execution, and runs no flow, no dedupe, no lead update and no queue job: that is
// LeadFlow's own cost, which the benchmark measures against this floor.
//
// The effects floor (FLOOR_EFFECTS=1) adds, by hand and in LeadFlow's order, the durable effects
// LeadFlow's agent flow has per message up to its `debounce` wait, each one statement or command as
// LeadFlow's are (5 statements: the same count LeadFlow sends), so what is left between it and
// LeadFlow is the engine's own cost:
//   a. INSERT of a `running` row holding the raw event into `bench_floor_executions` (LeadFlow's
//      execution insert), after the token and lead reads;
//   b. the message id's dedupe mark in the key-value store (KeyValue.dedupe, the row's id as owner);
//   c. UPDATE of the lead's `ultima_mensagem` / `ultima_mensagem_at` / `updated_at`;
//   d. UPDATE cancelling the lead's waiting follow-up rows (none here, as in the benchmark);
//   e. the buffer push (step 6);
//   f. UPDATE of the row to `waiting` with a small record (the lead, the message, the buffer's size)
//      and its wake time (now + LEADFLOW_DEBOUNCE_MAX_MS) — LeadFlow writes its whole execution
//      record here and also schedules the wake on its queue; the floor's wake is only the column;
//   then the answer. Implies FLOOR_DURABLE's durability (the row is the message on record), not its
//   table.
// The record floor (FLOOR_EFFECTS=1 with FLOOR_RECORD_FILE): the effects floor whose step f writes,
// besides its small record, the JSON in that file (what LeadFlow stored of one of its own agent
// executions: bench/ingest.ts writes it), stringified anew per message as LeadFlow's store must: the
// effects floor with LeadFlow's record bytes, so the share of the gap those bytes explain shows.
//
// Database and buffer as LeadFlow chooses them: PostgreSQL at DATABASE_URL, or, without it, the
// SQLite file `leadflow.sqlite` under LEADFLOW_DATA_DIR (it must exist, migrated: the one LeadFlow's
// embedded mode uses); Redis at REDIS_URL, or, without it, the in-process buffer.
//
// Run: `node --import tsx bench/floor/ingest-floor.ts` (bench/ingest.ts spawns it).
// Environment:
//   DATABASE_URL      postgres://… (bench/ingest.ts passes the services' URL, search_path included);
//                     unset or empty: SQLite under LEADFLOW_DATA_DIR (then required)
//   LEADFLOW_DATA_DIR directory of the SQLite file `leadflow.sqlite` (embedded mode)
//   REDIS_URL         redis://…; unset or empty: the in-process buffer
//   FLOOR_DURABLE     `1`: the durable floor (step 5); default off
//   FLOOR_EFFECTS     `1`: the effects floor (steps a–f); default off
//   FLOOR_RECORD_FILE with FLOOR_EFFECTS=1: a JSON file whose value step f writes with the record (the record floor)
//   PORT              port to listen on, 127.0.0.1 only; default 0 (any free port)
//   FLOOR_KV_PREFIX   namespace of the buffer keys; default `bench-floor:` (apart from LeadFlow's `leadflow:`)
//   FLOOR_POOL_MAX    most PostgreSQL connections; default 10 (LeadFlow's default pool)
//   LEADFLOW_DEBOUNCE_MAX_MS  sets the buffer's TTL as LeadFlow's debounce step does; default 600000
// Prints `floor listening on port N` once it listens; SIGTERM or SIGINT closes it and exits 0.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import AjvModule from 'ajv';
import express, { type NextFunction, type Request, type Response } from 'express';
import { parse as parseYaml } from 'yaml';
import { createKeyValue } from '../../adapters/kv/create-key-value.js';
import { brazilianVariants } from '../../adapters/phones/index.js';
import { BODY_LIMIT_BYTES } from '../../engine/triggers/webhook-app.js';
import { type FloorLead, openPostgresFloorStore, openSqliteFloorStore, sqliteFile, type FloorStore } from './floor-store.js';

const Ajv = AjvModule.default ?? AjvModule;
const ROOT = join(import.meta.dirname, '..', '..');

/** The buffer's TTL LeadFlow's debounce step sets: max(1 h, 10 × max hold), ms (nodes/data/debounce.ts). */
export function bufferTtlMs(maxHoldMs: number): number {
  return Math.max(3_600_000, 10 * maxHoldMs);
}

/** The database the environment selects, as LeadFlow selects it (DATABASE_URL, else SQLite under LEADFLOW_DATA_DIR). */
function openStore(env: NodeJS.ProcessEnv): FloorStore {
  if (env.DATABASE_URL) return openPostgresFloorStore(env.DATABASE_URL, Number(env.FLOOR_POOL_MAX ?? 10));
  if (!env.LEADFLOW_DATA_DIR) throw new Error('DATABASE_URL or LEADFLOW_DATA_DIR is required');
  return openSqliteFloorStore(sqliteFile(env.LEADFLOW_DATA_DIR));
}

/** How long a message id's dedupe mark is kept, ms (the agent flow's dedupe step: 24 h). */
const DEDUPE_TTL_MS = 24 * 3_600_000;

/** The raw body express.json read, kept by its `verify` hook (durable and effects floors). */
type WithRawBody = IncomingMessage & { rawBody?: Buffer };

/** Which floor runs and with what, from the environment (see the list above). */
interface FloorSettings {
  port: number;
  /** FLOOR_EFFECTS=1: the effects floor (steps a–f). */
  effects: boolean;
  /** FLOOR_DURABLE=1 (and not the effects floor): the durable floor (step 5). */
  durable: boolean;
  /** LEADFLOW_DEBOUNCE_MAX_MS: the effects floor's wake offset, ms. */
  holdMs: number;
  /** The buffer's TTL, ms (bufferTtlMs of holdMs). */
  ttlMs: number;
  /** FLOOR_RECORD_FILE's value, parsed once: written with step f's record (the record floor). */
  recorded?: unknown;
}

function settingsFromEnv(env: NodeJS.ProcessEnv): FloorSettings {
  const effects = env.FLOOR_EFFECTS === '1';
  const holdMs = Number(env.LEADFLOW_DEBOUNCE_MAX_MS ?? 600_000);
  // The benchmark runs LeadFlow with LEADFLOW_DEBOUNCE_MAX_MS=600000: the same TTL here.
  const recorded = effects && env.FLOOR_RECORD_FILE ? (JSON.parse(readFileSync(env.FLOOR_RECORD_FILE, 'utf8')) as unknown) : undefined;
  return {
    port: Number(env.PORT ?? 0),
    effects,
    durable: env.FLOOR_DURABLE === '1' && !effects,
    holdMs,
    ttlMs: bufferTtlMs(holdMs),
    recorded,
  };
}

/** The validator of flows/agent.yaml's `trigger.input`, compiled once with LeadFlow's options (engine/run/param-validator.ts). */
function agentInputValidator() {
  const flow = parseYaml(readFileSync(join(ROOT, 'flows', 'agent.yaml'), 'utf8')) as { trigger?: { input?: object } };
  if (!flow.trigger?.input) throw new Error('flows/agent.yaml has no trigger.input');
  return new Ajv({ allErrors: true, strict: false }).compile(flow.trigger.input);
}

/** The gateway message of an event, as the agent flow reads it. */
interface FloorMessage {
  messageid: string;
  chatid: string;
  text?: string | null;
}

/** What a request handler works with. */
interface FloorContext {
  settings: FloorSettings;
  store: FloorStore;
  kv: ReturnType<typeof createKeyValue>;
  validate: ReturnType<typeof agentInputValidator>;
}

/**
 * Steps 2 to 4: the instance token, the input and the lead. Answers 401, 422 or 200 `ignored` itself
 * and resolves undefined; else resolves with the lead and the message.
 */
async function acceptedMessage(
  ctx: FloorContext,
  req: Request,
  res: Response,
): Promise<{ lead: FloorLead; message: FloorMessage } | undefined> {
  const body = req.body as Record<string, unknown> | undefined;
  const token = body && typeof body === 'object' ? body.token : undefined;
  if (typeof token !== 'string' || token === '') {
    res.status(401).json({ error: 'unauthorized', details: [] });
    return undefined;
  }
  const clinicId = await ctx.store.clinicOfToken(token);
  if (clinicId === undefined) {
    res.status(401).json({ error: 'unauthorized', details: [] });
    return undefined;
  }
  if (!ctx.validate(body) || !body) {
    res.status(422).json({ error: 'invalid input', details: ctx.validate.errors ?? [] });
    return undefined;
  }
  const message = body.message as FloorMessage | undefined;
  if (!message) {
    res.status(200).json({ status: 'ignored', reason: 'not a message' });
    return undefined;
  }
  const variants = brazilianVariants(message.chatid.split('@')[0] ?? '');
  const lead = variants.length === 0 ? undefined : await ctx.store.findLead(clinicId, variants);
  if (!lead) {
    res.status(200).json({ status: 'ignored', reason: 'not a lead' });
    return undefined;
  }
  return { lead, message };
}

/** The effects floor's steps a–f for one accepted message, then the answer. */
async function ingestWithEffects(ctx: FloorContext, req: Request, res: Response, lead: FloorLead, message: FloorMessage): Promise<void> {
  const { store, kv, settings } = ctx;
  const key = `${lead.clinica_id}:${lead.remotejid}`;
  const id = randomUUID();
  await store.startExecution(id, key, (req as WithRawBody).rawBody!.toString('utf8'));
  if (!(await kv.dedupe(`dedupe:${message.messageid}`, DEDUPE_TTL_MS, id))) {
    res.status(200).json({ status: 'ignored', reason: 'duplicate' });
    return;
  }
  const now = new Date();
  const text = message.text ?? '';
  await store.touchLead(lead.id, text, now.toISOString());
  const cancelled = await store.cancelFollowups(key, now.toISOString());
  const buffer = await kv.bufferPush(
    key,
    message.messageid,
    { message_id: message.messageid, text: message.text ?? null },
    now.getTime(),
    settings.ttlMs,
  );
  const record = JSON.stringify({ lead, message: { id: message.messageid, text }, cancelled, buffer, recorded: settings.recorded });
  await store.suspendExecution(id, record, new Date(now.getTime() + settings.holdMs).toISOString());
  res.status(200).json({ status: 'queued' });
}

/** One `POST /leadagent`: steps 2 to 7 of the floor the settings choose. */
async function ingest(ctx: FloorContext, req: Request, res: Response): Promise<void> {
  const accepted = await acceptedMessage(ctx, req, res);
  if (!accepted) return;
  const { lead, message } = accepted;
  if (ctx.settings.durable) await ctx.store.recordEvent((req as WithRawBody).rawBody!.toString('utf8'));
  if (ctx.settings.effects) return ingestWithEffects(ctx, req, res, lead, message);
  const key = `${lead.clinica_id}:${lead.remotejid}`;
  await ctx.kv.bufferPush(
    key,
    message.messageid,
    { message_id: message.messageid, text: message.text ?? null },
    Date.now(),
    ctx.settings.ttlMs,
  );
  res.status(200).json({ status: 'queued' });
}

/** The express app: step 1 (the JSON body, its raw bytes kept for the durable and effects floors), the route, the error answers. */
function floorApp(ctx: FloorContext): express.Express {
  const parseJson = express.json({
    limit: BODY_LIMIT_BYTES,
    ...(ctx.settings.durable || ctx.settings.effects
      ? {
          verify: (req: WithRawBody, _res: unknown, buf: Buffer) => {
            req.rawBody = buf;
          },
        }
      : {}),
  });
  const app = express();
  app.disable('x-powered-by');
  app.post('/leadagent', parseJson, (req: Request, res: Response, next: NextFunction) => {
    ingest(ctx, req, res).catch(next);
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      res.status(status).json({ error: 'bad request', details: [] });
      return;
    }
    console.error('floor: request failed', err);
    res.status(500).json({ error: 'internal error', details: [] });
  });
  return app;
}

async function main(): Promise<void> {
  const settings = settingsFromEnv(process.env);
  const validate = agentInputValidator();
  const store = openStore(process.env);
  if (settings.durable) await store.createEventsTable();
  if (settings.effects) await store.createExecutionsTable();
  const kv = createKeyValue({ url: process.env.REDIS_URL || undefined, prefix: process.env.FLOOR_KV_PREFIX || 'bench-floor:' });

  const server = floorApp({ settings, store, kv, validate }).listen(settings.port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  console.log(
    `floor listening on port ${(server.address() as AddressInfo).port} (${store.dialect}, ${process.env.REDIS_URL ? 'redis' : 'in-process'} buffer${settings.durable ? ', durable' : ''}${settings.effects ? ', effects' : ''}${settings.recorded !== undefined ? ', record' : ''})`,
  );

  const stop = () => {
    server.close();
    server.closeAllConnections();
    void Promise.allSettled([store.close(), kv.close()]).then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
