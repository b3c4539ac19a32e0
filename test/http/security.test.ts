// The HTTP surface's security, on the webhook app itself (engine/triggers): the instance-token
// check, the admin surface behind LEADFLOW_ADMIN_TOKEN, and error hygiene on every route. The
// instance lookup here is an in-memory table; test/e2e/security.test.ts runs the same paths against
// the real database lookup as `serve` wires it.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type InboundInstanceLookup, providerAuthMode } from '../../adapters/gateway/provider-inbound.js';
import { uazapiInbound } from '../../adapters/gateway/uazapi/auth.js';
import { Engine } from '../../engine/engine.js';
import { loadFlowDirectory } from '../../engine/load/loader.js';
import type { Logger } from '../../engine/logger.js';
import type { AdminOptions } from '../../engine/triggers/admin-routes.js';
import { recordedTriggerInput } from '../../engine/triggers/trigger-input.js';
import { WebhookAuthModes } from '../../engine/triggers/auth-modes.js';
import { buildWebhookApp } from '../../engine/triggers/webhook-app.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { defaultRegistry } from '../../nodes/index.js';

const FLOWS = join(import.meta.dirname, '../fixtures/security-flows');
const TOKEN = 'instance-token-7f3a9c';
const ADMIN = 'admin-bearer-51d2e8';
const SECRET = 'webhook-secret-c0ffee';

/** What a log line must never hold, and what an error body must never hold besides. */
const CREDENTIALS = [TOKEN, ADMIN, SECRET];
const INTERNALS = /\bat .*\.(ts|js):\d+|\/work\/|node_modules|\bselect\b|\binsert into\b|SQLITE|stack/i;

interface Line {
  level: string;
  fields: Record<string, unknown>;
  message: string;
}

function captureLogger(): Logger & { lines: Line[]; text(): string } {
  const lines: Line[] = [];
  const at = (level: string) => (fields: object, message: string) =>
    lines.push({ level, fields: fields as Record<string, unknown>, message });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), text: () => JSON.stringify(lines) };
}

interface Running {
  engine: Engine;
  server: Server;
  url: string;
  logger: ReturnType<typeof captureLogger>;
}

let running: Running | undefined;

interface ServeOptions {
  secret?: string;
  lookup?: TokenTable | null;
  admin?: Partial<AdminOptions> | null;
}

/** The instance a registered token names (`{instance_id, clinica_id}`), or undefined; rejects when the table is down. */
type TokenTable = (token: string) => Promise<{ instance_id: number; clinica_id: number } | undefined>;

/** uazapi's `instance-token` check over `table`, without uazapi's event schema (the fixture flow declares its own input). */
function instanceTokenMode(table: TokenTable) {
  const lookup: InboundInstanceLookup = {
    async byToken(provider, token) {
      const found = provider === 'uazapi' ? await table(token) : undefined;
      if (!found) return undefined;
      const { instance_id: id, clinica_id } = found;
      return { id, clinica_id, provider, nome: 'test', external_id: null, token, app_secret: null, verify_token: null };
    },
    byExternalId: async () => undefined,
    byVerifyToken: async () => undefined,
  };
  const { eventSchema: _schema, ...inbound } = uazapiInbound;
  return providerAuthMode(inbound, lookup);
}

const tableLookup: TokenTable = async (token) => (token === TOKEN ? { instance_id: 7, clinica_id: 3 } : undefined);

async function serve(options: ServeOptions = {}): Promise<Running> {
  const registry = defaultRegistry();
  const { flows, problems } = loadFlowDirectory(FLOWS, registry);
  expect(problems).toEqual([]);
  const logger = captureLogger();
  const engine = new Engine({ registry, flows, logger });
  await engine.startScheduler();
  const dryRun = async (record: ExecutionRecord) =>
    engine.waitForEnd((await engine.start(record.flow, recordedTriggerInput(record), { dryRun: true })).id);
  const admin = options.admin === null ? undefined : { token: ADMIN, dryRun, ...options.admin };
  const lookup = options.lookup === null ? undefined : (options.lookup ?? tableLookup);
  const app = buildWebhookApp({
    engine,
    logger,
    secret: options.secret,
    authModes: new WebhookAuthModes(lookup ? [instanceTokenMode(lookup)] : []),
    ...(admin ? { admin } : {}),
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  running = { engine, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, logger };
  return running;
}

afterEach(async () => {
  if (!running) return;
  await running.engine.shutdown();
  await new Promise((resolve) => running!.server.close(resolve));
  running = undefined;
});

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const bearer = (token = ADMIN) => ({ authorization: `Bearer ${token}` });
const count = async (engine: Engine) => (await engine.store.list({ limit: 1000 })).length;

/** An error answer: exactly `{error, details[]}`, and nothing internal or secret in it. */
async function expectCleanError(res: Response, status: number): Promise<{ error: string; details: unknown[] }> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const text = await res.text();
  const body = JSON.parse(text) as { error: string; details: unknown[] };
  expect(Object.keys(body).sort()).toEqual(['details', 'error']);
  expect(typeof body.error).toBe('string');
  expect(Array.isArray(body.details)).toBe(true);
  expect(text).not.toMatch(INTERNALS);
  for (const secret of CREDENTIALS) expect(text).not.toContain(secret);
  return body;
}

describe('auth: instance-token', () => {
  const event = (token?: unknown) => ({ EventType: 'messages', ...(token === undefined ? {} : { token }) });

  it('an unknown token answers 401 before any execution; the log line holds no token', async () => {
    const { url, engine, logger } = await serve();
    const res = await post(`${url}/inbound`, event('not-the-token-123'));
    expect(await expectCleanError(res, 401)).toEqual({ error: 'unauthorized', details: [] });
    expect(await count(engine)).toBe(0);
    expect(logger.lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual([
      'webhook rejected: missing or unknown instance token',
    ]);
    expect(logger.text()).not.toContain('not-the-token-123');
  });

  it('a missing, empty or non-string token, or a body that is not an object, answers 401', async () => {
    const { url, engine } = await serve();
    for (const body of [event(), event(''), event(123), event({ value: TOKEN }), [event(TOKEN)], 'null']) {
      await expectCleanError(await post(`${url}/inbound`, body), 401);
    }
    expect(await count(engine)).toBe(0);
  });

  it('a registered token runs the flow with the instance as trigger.auth; the record keeps the token as "***"', async () => {
    const { url, engine, logger } = await serve();
    const res = await post(`${url}/inbound`, event(TOKEN));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ instance_id: 7, seen_token: '***' });
    const [record] = await engine.store.list({ limit: 10 });
    const done = await engine.waitForEnd(record!.id);
    expect(done.trigger).toMatchObject({ body: { EventType: 'messages', token: '***' }, auth: { instance_id: 7, clinica_id: 3 } });
    expect(JSON.stringify(done)).not.toContain(TOKEN);
    expect(logger.text()).not.toContain(TOKEN);
  });

  it('the token is checked before the input schema (401 for an invalid body with a bad token, 422 with a good one)', async () => {
    const { url, engine } = await serve();
    await expectCleanError(await post(`${url}/inbound`, { token: 'nope' }), 401);
    const invalid = await expectCleanError(await post(`${url}/inbound`, { token: TOKEN }), 422);
    expect(invalid).toEqual({ error: 'invalid input', details: [{ path: 'EventType', message: 'is required' }] });
    expect(await count(engine)).toBe(0);
  });

  it('with LEADFLOW_WEBHOOK_SECRET set, both are needed: the secret (header or query) and the token', async () => {
    const { url, engine } = await serve({ secret: SECRET });
    await expectCleanError(await post(`${url}/inbound`, event(TOKEN)), 401);
    await expectCleanError(await post(`${url}/inbound`, event('wrong'), { 'x-webhook-secret': SECRET }), 401);
    expect(await count(engine)).toBe(0);
    expect((await post(`${url}/inbound`, event(TOKEN), { 'x-webhook-secret': SECRET })).status).toBe(200);
    expect((await post(`${url}/inbound?secret=${SECRET}`, event(TOKEN))).status).toBe(200);
    const records = await engine.store.list({ limit: 10 });
    for (const r of records) expect(JSON.stringify(await engine.waitForEnd(r.id))).not.toMatch(new RegExp(`${TOKEN}|${SECRET}`));
  });

  it('without the instance-token mode registered the host is misconfigured: the app is not built, the error names flow and mode', () => {
    const registry = defaultRegistry();
    const { flows } = loadFlowDirectory(FLOWS, registry);
    const engine = new Engine({ registry, flows });
    expect(() => buildWebhookApp({ engine, logger: captureLogger() })).toThrow(
      /flow "inbound": webhook auth "instance-token" is not a registered mode \(registered: none, secret\)/,
    );
  });
});

describe('an unexpected exception', () => {
  it('answers 500 {"error":"internal error"} while the log line has the details', async () => {
    const leaky = `select * from instancias_whatsapp where token = '${TOKEN}' - SQLITE_BUSY at /work/main/adapters/db/table-ops.ts:42`;
    const { url, engine, logger } = await serve({
      lookup: async () => {
        throw new Error(leaky);
      },
    });
    const res = await post(`${url}/inbound`, { EventType: 'messages', token: TOKEN });
    expect(await expectCleanError(res, 500)).toEqual({ error: 'internal error', details: [] });
    expect(await count(engine)).toBe(0);
    const line = logger.lines.find((l) => l.level === 'error');
    expect(line?.message).toBe('request failed');
    expect(line?.fields).toMatchObject({ method: 'POST', path: '/inbound', err: { name: 'Error', message: leaky } });
    expect((line!.fields.err as { stack?: string }).stack).toMatch(/security\.test\.ts/);
  });
});

describe('admin HTTP surface', () => {
  it('is absent (404, as for any unknown route) when LEADFLOW_ADMIN_TOKEN is unset', async () => {
    const { url } = await serve({ admin: null });
    for (const res of [
      await fetch(`${url}/admin/executions`, { headers: bearer() }),
      await fetch(`${url}/admin/executions/abc`, { headers: bearer() }),
      await post(`${url}/admin/executions/abc/replay`, {}, bearer()),
    ]) {
      const body = await expectCleanError(res, 404);
      expect(body.error).toMatch(/^no flow serves /);
    }
  });

  it('answers 401 with WWW-Authenticate for a missing, wrong or non-bearer credential', async () => {
    const { url, logger } = await serve();
    const attempts: Array<Record<string, string>> = [
      {},
      bearer('wrong'),
      bearer(`${ADMIN}x`),
      bearer(ADMIN.slice(0, -1)),
      { authorization: `Basic ${ADMIN}` },
      { authorization: ADMIN },
    ];
    for (const headers of attempts) {
      const res = await fetch(`${url}/admin/executions`, { headers });
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(await expectCleanError(res, 401)).toEqual({ error: 'unauthorized', details: [] });
    }
    await expectCleanError(await post(`${url}/admin/executions/x/replay`, {}, bearer('wrong')), 401);
    expect(logger.text()).not.toContain(ADMIN);
  });

  it('lists summaries newest first with flow, status and limit filters; rejects a bad query with 422', async () => {
    const { url, engine } = await serve();
    const ids: string[] = [];
    for (const nome of ['A', 'B', 'C']) {
      const res = await post(`${url}/lead`, { nome, telefone: '5511987654321' });
      ids.push(((await res.json()) as { execution_id: string }).execution_id);
      await engine.waitForEnd(ids.at(-1)!);
      await new Promise((r) => setTimeout(r, 5));
    }
    await post(`${url}/inbound`, { EventType: 'messages', token: TOKEN });
    const all = (await (await fetch(`${url}/admin/executions`, { headers: bearer() })).json()) as {
      executions: Array<Record<string, unknown>>;
    };
    expect(all.executions).toHaveLength(4);
    const leads = (await (await fetch(`${url}/admin/executions?flow=lead&status=success&limit=2`, { headers: bearer() })).json()) as {
      executions: Array<Record<string, unknown>>;
    };
    expect(leads.executions.map((e) => e.id)).toEqual([ids[2], ids[1]]);
    expect(leads.executions[0]).toMatchObject({ flow: 'lead', status: 'success', steps: 1, dry_run: false });
    expect(leads.executions[0]).toHaveProperty('duration_ms');
    expect(leads.executions[0]).not.toHaveProperty('trigger');
    const bad = await expectCleanError(await fetch(`${url}/admin/executions?limit=0&status=done`, { headers: bearer() }), 422);
    expect(bad.details).toEqual([
      { path: 'status', message: 'must be one of running, waiting, success, failed, stopped, cancelled' },
      { path: 'limit', message: 'must be an integer from 1 to 1000' },
    ]);
  });

  it('shows the flow version of each execution and filters by it (?version=, a prefix); a malformed one is a 422', async () => {
    const { url, engine } = await serve();
    const id = ((await (await post(`${url}/lead`, { nome: 'Ana', telefone: '5511987654321' })).json()) as { execution_id: string })
      .execution_id;
    await engine.waitForEnd(id);
    const version = engine.getFlow('lead')!.sourceHash;
    const list = async (query: string) =>
      (
        (await (await fetch(`${url}/admin/executions${query}`, { headers: bearer() })).json()) as {
          executions: Array<Record<string, unknown>>;
        }
      ).executions;
    expect(await list(`?version=${version.slice(0, 8)}`)).toEqual([expect.objectContaining({ id, flow_version: version })]);
    expect(await list(`?version=${version}`)).toHaveLength(1);
    expect(await list(`?version=${version.startsWith('0') ? '1' : '0'}`)).toEqual([]);
    const record = (await (await fetch(`${url}/admin/executions/${id}`, { headers: bearer() })).json()) as Record<string, unknown>;
    expect(record.flow_version).toBe(version);
    const bad = await expectCleanError(await fetch(`${url}/admin/executions?version=XYZ`, { headers: bearer() }), 422);
    expect(bad.details).toEqual([{ path: 'version', message: 'must be 1 to 64 lower-case hex digits (a prefix of the flow version)' }]);
  });

  it("filters by a text the trigger, vars or key contain (?containing=, e.g. a lead's phone); a too long one is a 422", async () => {
    const { url, engine } = await serve();
    const ids: string[] = [];
    for (const telefone of ['5511987654321', '5511911112222']) {
      const res = await post(`${url}/lead`, { nome: 'Ana', telefone });
      ids.push(((await res.json()) as { execution_id: string }).execution_id);
      await engine.waitForEnd(ids.at(-1)!);
    }
    const list = async (query: string) =>
      ((await (await fetch(`${url}/admin/executions${query}`, { headers: bearer() })).json()) as { executions: Array<{ id: string }> })
        .executions;
    expect((await list('?containing=11911112222')).map((e) => e.id)).toEqual([ids[1]]);
    expect((await list('?containing=987654321&flow=lead')).map((e) => e.id)).toEqual([ids[0]]);
    expect(await list('?containing=5599')).toEqual([]);
    const bad = await expectCleanError(await fetch(`${url}/admin/executions?containing=${'9'.repeat(101)}`, { headers: bearer() }), 422);
    expect(bad.details).toEqual([{ path: 'containing', message: 'must be given once, 1 to 100 characters' }]);
  });

  it('shows one whole record (steps with input, output and timing) and answers 404 for an unknown id', async () => {
    const { url, engine } = await serve();
    const id = ((await (await post(`${url}/lead`, { nome: 'Ana', telefone: '5511987654321' })).json()) as { execution_id: string })
      .execution_id;
    await engine.waitForEnd(id);
    const res = await fetch(`${url}/admin/executions/${id}`, { headers: bearer() });
    expect(res.status).toBe(200);
    const record = (await res.json()) as ExecutionRecord;
    expect(record).toMatchObject({ id, flow: 'lead', status: 'success', trigger: { body: { nome: 'Ana' } } });
    expect(record.steps[0]).toMatchObject({
      id: 'greet',
      type: 'set',
      status: 'success',
      params: { values: { text: 'Olá, Ana' } },
      output: { text: 'Olá, Ana' },
    });
    expect(typeof record.steps[0]!.ms).toBe('number');
    expect(await expectCleanError(await fetch(`${url}/admin/executions/nope`, { headers: bearer() }), 404)).toEqual({
      error: 'no such execution',
      details: [],
    });
    await expectCleanError(await fetch(`${url}/admin/nothing-here`, { headers: bearer() }), 404);
  });

  it('replays as a new execution with the recorded trigger (auth included), and as a dry run', async () => {
    const { url, engine } = await serve();
    const first = await post(`${url}/inbound`, { EventType: 'messages', token: TOKEN });
    expect(first.status).toBe(200);
    const [original] = await engine.store.list({ limit: 1 });
    await engine.waitForEnd(original!.id);

    const res = await post(`${url}/admin/executions/${original!.id}/replay`, '', bearer());
    expect(res.status).toBe(202);
    const { execution_id, replay_of } = (await res.json()) as { execution_id: string; replay_of: string };
    expect(replay_of).toBe(original!.id);
    expect(execution_id).not.toBe(original!.id);
    const replayed = await engine.waitForEnd(execution_id);
    expect(replayed).toMatchObject({
      status: 'success',
      dry_run: false,
      trigger: { body: { token: '***' }, auth: { instance_id: 7, clinica_id: 3 } },
    });
    expect(replayed.response).toEqual({ status: 200, body: { instance_id: 7, seen_token: '***' } });

    const dry = await post(`${url}/admin/executions/${original!.id}/replay?dry_run=true`, {}, bearer());
    expect(dry.status).toBe(200);
    const answer = (await dry.json()) as { replay_of: string; execution: ExecutionRecord };
    expect(answer.replay_of).toBe(original!.id);
    expect(answer.execution).toMatchObject({ status: 'success', dry_run: true });
    const viaBody = await post(`${url}/admin/executions/${original!.id}/replay`, { dry_run: true }, bearer());
    expect(((await viaBody.json()) as { execution: ExecutionRecord }).execution.dry_run).toBe(true);

    expect(await expectCleanError(await post(`${url}/admin/executions/nope/replay`, {}, bearer()), 404)).toEqual({
      error: 'no such execution',
      details: [],
    });
    await expectCleanError(await post(`${url}/admin/executions/${original!.id}/replay?dry_run=maybe`, {}, bearer()), 422);
    await expectCleanError(await post(`${url}/admin/executions/${original!.id}/replay`, { dry_run: 'yes' }, bearer()), 422);
  });

  it('without a dry-run hook, ?dry_run=true answers 501', async () => {
    const { url, engine } = await serve({ admin: { dryRun: undefined } });
    const id = ((await (await post(`${url}/lead`, { nome: 'Ana', telefone: '1' })).json()) as { execution_id: string }).execution_id;
    await engine.waitForEnd(id);
    await expectCleanError(await post(`${url}/admin/executions/${id}/replay?dry_run=1`, {}, bearer()), 501);
  });
});

describe('error hygiene on every route', () => {
  const big = JSON.stringify({ nome: 'x'.repeat(1024 * 1024), telefone: '1', token: TOKEN });
  const routes: Array<{ name: string; path: string; headers: Record<string, string> }> = [
    { name: 'a secret webhook', path: '/lead', headers: { 'x-webhook-secret': SECRET } },
    { name: 'the instance-token webhook', path: '/inbound', headers: { 'x-webhook-secret': SECRET } },
    { name: 'the admin replay', path: '/admin/executions/some-id/replay', headers: bearer() },
  ];

  it.each(routes)(
    '$name: 415 for a non-JSON type, 413 over 1 MiB, 400 for invalid JSON, without echoing the body',
    async ({ path, headers }) => {
      const { url, engine } = await serve({ secret: SECRET });
      const plain = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain', ...headers },
        body: `token=${TOKEN}`,
      });
      expect((await expectCleanError(plain, 415)).error).toMatch(/application\/json/);
      const form = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: `token=${TOKEN}`,
      });
      await expectCleanError(form, 415);
      await expectCleanError(await post(`${url}${path}`, big, headers), 413);
      const broken = await expectCleanError(await post(`${url}${path}`, `{"token": "${TOKEN}", "nome": `, headers), 400);
      expect(broken.error).toBe('invalid JSON');
      expect(broken.details).toEqual([{ path: '(body)', message: expect.stringMatching(/^not valid JSON/) }]);
      expect(await count(engine)).toBe(0);
    },
  );

  it('422 names each path without echoing the values', async () => {
    const { url } = await serve();
    const res = await post(`${url}/lead`, { nome: '', telefone: `+55 ${TOKEN}` });
    const body = await expectCleanError(res, 422);
    expect(body.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'nome' }), expect.objectContaining({ path: 'telefone' })]),
    );
  });

  it('404 and 401 are clean too (unknown route; missing webhook secret)', async () => {
    const { url } = await serve({ secret: SECRET });
    await expectCleanError(await post(`${url}/nope?secret=${SECRET}x`, {}), 404);
    await expectCleanError(await post(`${url}/lead`, { nome: 'A', telefone: '1' }, { 'x-webhook-secret': `${SECRET}x` }), 401);
  });
});
