// The floor of the ingest benchmark (bench/ingest.ts): a hand-written express server doing, per
// `POST /leadagent` gateway event, the least work LeadFlow's agent flow must do before it answers
// 200 {"status":"queued"} — no less, and nothing more:
//   1. read the JSON body (express.json, the same 1 MiB limit as LeadFlow's webhook app);
//   2. check the instance token: one SELECT on instancias_whatsapp by its indexed `token` column,
//      per request, uncached (LeadFlow does not cache it either: adapters/gateway/instance-token-lookup.ts
//      reads the table on every request) — 401 when unknown;
//   3. validate the body with ajv against flows/agent.yaml `trigger.input` (read from the YAML at
//      start, compiled once) — 422 when invalid;
//   4. find the lead: `leads` by clinica_id and remotejid IN (the chat phone's Brazilian variants,
//      adapters/phones) — 200 {"status":"ignored"} when there is none;
//   5. push the message into the lead's Redis buffer (adapters/kv RedisKeyValue.bufferPush, the
//      Lua script LeadFlow's debounce step runs, with the same key `<clinica_id>:<remotejid>` and TTL);
//   6. answer 200 {"status":"queued"}.
// It records no execution, and runs no flow, no dedupe, no lead update and no queue job: that is
// LeadFlow's own cost, which the benchmark measures against this floor.
//
// Run: `node --import tsx bench/floor/ingest-floor.ts` (bench/ingest.ts spawns it).
// Environment:
//   DATABASE_URL     postgres://… (required; bench/ingest.ts passes the services' URL, search_path included)
//   REDIS_URL        redis://… (required)
//   PORT             port to listen on, 127.0.0.1 only; default 0 (any free port)
//   FLOOR_KV_PREFIX  namespace of the Redis keys; default `bench-floor:` (apart from LeadFlow's `leadflow:`)
//   FLOOR_POOL_MAX   most PostgreSQL connections; default 10 (LeadFlow's default pool)
// Prints `floor listening on port N` once it listens; SIGTERM or SIGINT closes it and exits 0.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import AjvModule from 'ajv';
import express, { type NextFunction, type Request, type Response } from 'express';
import { parse as parseYaml } from 'yaml';
import { RedisKeyValue } from '../../adapters/kv/redis-key-value.js';
import { brazilianVariants } from '../../adapters/phones/index.js';
import { BODY_LIMIT_BYTES } from '../../engine/triggers/webhook-app.js';

const Ajv = AjvModule.default ?? AjvModule;

// node-postgres ships no type declarations: the part of its Pool used here.
interface PgPool {
  query<R>(text: string, values: unknown[]): Promise<{ rows: R[] }>;
  end(): Promise<void>;
}
const pg = createRequire(import.meta.url)('pg') as { Pool: new (config: { connectionString: string; max: number }) => PgPool };
const ROOT = join(import.meta.dirname, '..', '..');

/** The buffer's TTL LeadFlow's debounce step sets: max(1 h, 10 × max hold), ms (nodes/data/debounce.ts). */
export function bufferTtlMs(maxHoldMs: number): number {
  return Math.max(3_600_000, 10 * maxHoldMs);
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

async function main(): Promise<void> {
  const databaseUrl = required('DATABASE_URL');
  const redisUrl = required('REDIS_URL');
  const port = Number(process.env.PORT ?? 0);
  // The benchmark runs LeadFlow with LEADFLOW_DEBOUNCE_MAX_MS=600000: the same TTL here.
  const ttlMs = bufferTtlMs(Number(process.env.LEADFLOW_DEBOUNCE_MAX_MS ?? 600_000));

  const flow = parseYaml(readFileSync(join(ROOT, 'flows', 'agent.yaml'), 'utf8')) as { trigger?: { input?: object } };
  if (!flow.trigger?.input) throw new Error('flows/agent.yaml has no trigger.input');
  // The options LeadFlow validates trigger inputs with (engine/run/param-validator.ts).
  const validate = new Ajv({ allErrors: true, strict: false }).compile(flow.trigger.input);

  const pool = new pg.Pool({ connectionString: databaseUrl, max: Math.max(2, Number(process.env.FLOOR_POOL_MAX ?? 10)) });
  const kv = new RedisKeyValue({ url: redisUrl, prefix: process.env.FLOOR_KV_PREFIX || 'bench-floor:' });

  async function ingest(req: Request, res: Response): Promise<void> {
    const body = req.body as Record<string, unknown> | undefined;
    const token = body && typeof body === 'object' ? body.token : undefined;
    if (typeof token !== 'string' || token === '') {
      res.status(401).json({ error: 'unauthorized', details: [] });
      return;
    }
    const instance = await pool.query<{ id: number; clinica_id: number }>(
      'select id, clinica_id from instancias_whatsapp where token = $1 limit 1',
      [token],
    );
    const clinicId = instance.rows[0]?.clinica_id;
    if (clinicId === undefined) {
      res.status(401).json({ error: 'unauthorized', details: [] });
      return;
    }
    if (!validate(body) || !body) {
      res.status(422).json({ error: 'invalid input', details: validate.errors ?? [] });
      return;
    }
    const message = body.message as { messageid: string; chatid: string; text?: string | null } | undefined;
    if (!message) {
      res.status(200).json({ status: 'ignored', reason: 'not a message' });
      return;
    }
    const variants = brazilianVariants(message.chatid.split('@')[0] ?? '');
    const lead =
      variants.length === 0
        ? undefined
        : (
            await pool.query<{ clinica_id: number; remotejid: string }>(
              `select * from leads where clinica_id = $1 and remotejid in (${variants.map((_, i) => `$${i + 2}`).join(', ')}) limit 1`,
              [clinicId, ...variants],
            )
          ).rows[0];
    if (!lead) {
      res.status(200).json({ status: 'ignored', reason: 'not a lead' });
      return;
    }
    await kv.bufferPush(
      `${lead.clinica_id}:${lead.remotejid}`,
      message.messageid,
      { message_id: message.messageid, text: message.text ?? null },
      Date.now(),
      ttlMs,
    );
    res.status(200).json({ status: 'queued' });
  }

  const app = express();
  app.disable('x-powered-by');
  app.post('/leadagent', express.json({ limit: BODY_LIMIT_BYTES }), (req: Request, res: Response, next: NextFunction) => {
    ingest(req, res).catch(next);
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

  const server = app.listen(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  console.log(`floor listening on port ${(server.address() as AddressInfo).port}`);

  const stop = () => {
    server.close();
    server.closeAllConnections();
    void Promise.allSettled([pool.end(), kv.close()]).then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
