// The inbound side of gateway providers (adapters/gateway/provider-inbound.ts), on SQLite and
// PostgreSQL: the database lookup (inbound-instances.ts: by token and verify token of one provider
// only, by external id), and over HTTP the auth modes providerAuthMode builds — uazapi's
// `instance-token` on the main route and a stand-in provider's mode on an extra route that splits a
// request into events — plus the verification GET the host mounts (cli/gateway-routes.ts). The
// stand-in is a test double of the InboundProvider interface, not an implementation of any vendor.
import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { DbInboundInstances } from '../../adapters/gateway/inbound-instances.js';
import { type InboundProvider, providerAuthMode } from '../../adapters/gateway/provider-inbound.js';
import { uazapiInbound } from '../../adapters/gateway/uazapi/auth.js';
import { gatewayVerificationRoutes } from '../../cli/gateway-routes.js';
import { loadFlowText } from '../../engine/load/loader.js';
import { Engine } from '../../engine/engine.js';
import { WebhookAuthModes } from '../../engine/triggers/auth-modes.js';
import { buildWebhookApp } from '../../engine/triggers/webhook-app.js';
import type { ExecutionRecord, JsonObject, LoadedFlow } from '../../engine/types.js';
import { defaultRegistry } from '../../nodes/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { uazapiFixture } from './helpers/fixtures.js';

const UAZAPI_TOKEN = 'uazapi-token-7f3a';
const CLOUDISH_TOKEN = 'access-token-19b2';
const APP_SECRET = 'app-secret-40cc';
const VERIFY = 'verify-token-5d1e';

/**
 * A stand-in batching provider (named `cloud` because the registry's names are the contract's, but
 * nothing here is the Cloud API's logic): `X-Test-Signature` is the hex HMAC of the raw body with
 * the app secret of the instance whose external id the body's `to` names; one event per item of
 * `items` (0 for none); the GET answers `challenge` when `verify` is an instance's verify token.
 */
const standIn: InboundProvider = {
  provider: 'cloud',
  authMode: 'stand-in-signature',
  description: 'test double',
  path: '/inbound/stand-in',
  headersNeverRecorded: ['x-test-signature'],
  eventSchema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
  async accept(request, instances) {
    const body = request.body as { to?: string; items?: JsonObject[] };
    const instance = typeof body.to === 'string' ? await instances.byExternalId('cloud', body.to) : undefined;
    if (!instance?.app_secret) return { denied: 'unknown instance' };
    const expected = createHmac('sha256', instance.app_secret).update(request.raw).digest('hex');
    if (request.header('x-test-signature') !== expected) return { denied: 'bad signature' };
    return { events: (body.items ?? []).map((item) => ({ body: item, instance })) };
  },
  verification: {
    path: '/inbound/stand-in',
    async answer(query, instances) {
      const token = typeof query.verify === 'string' ? query.verify : '';
      const found = await instances.byVerifyToken('cloud', token);
      return found
        ? { status: 200, contentType: 'text/plain', body: String(query.challenge ?? '') }
        : { status: 403, contentType: 'application/json', body: JSON.stringify({ error: 'forbidden', details: [] }) };
    },
  },
};

const FLOW = `name: inbound
trigger:
  webhook:
    path: /inbound
    auth: instance-token
    respond: { mode: step, timeout_ms: 5000 }
    routes:
      - { path: /inbound/stand-in, auth: stand-in-signature }
  input: { type: object }
steps:
  - id: answer
    type: respond
    params: { status: 200, body: { auth: "{{ trigger.auth }}", token: "{{ trigger.body.token }}" } }
`;

let running: { engine: Engine; server: Server } | undefined;

afterEach(async () => {
  if (!running) return;
  await running.engine.shutdown();
  await new Promise((resolve) => running!.server.close(resolve));
  running = undefined;
});

forEachDatabase('gateway inbound', (open) => {
  const t = useFreshDatabase(open);

  async function seed() {
    const { db } = t.current;
    const clinic = await db.insert('clinicas_com_atendentes', { nome: 'Clínica', hunter_telefone: '5511900000001' });
    const row = (nome: string, extra: Record<string, unknown>) =>
      db.insert('instancias_whatsapp', { clinica_id: clinic.id, nome, server_url: 'http://127.0.0.1:9', ...extra });
    const uazapi = await row('uazapi', { token: UAZAPI_TOKEN });
    const evolution = await row('evolution', { provider: 'evolution', token: 'evo-key', external_id: 'clinica-evo' });
    const cloud = await row('cloud', {
      provider: 'cloud',
      token: CLOUDISH_TOKEN,
      external_id: '1065',
      app_secret: APP_SECRET,
      verify_token: VERIFY,
    });
    return { clinicaId: Number(clinic.id), uazapi: Number(uazapi.id), evolution: Number(evolution.id), cloud: Number(cloud.id) };
  }

  async function serve(secret?: string) {
    const logger = captureLogger();
    const instances = new DbInboundInstances(t.current.db);
    const { flow, problems } = loadFlowText('inbound.yaml', FLOW, defaultRegistry());
    expect(problems).toEqual([]);
    const engine = new Engine({ registry: defaultRegistry(), flows: new Map<string, LoadedFlow>([[flow!.name, flow!]]) });
    await engine.startScheduler();
    const app = buildWebhookApp({
      engine,
      logger: logger.logger,
      secret,
      authModes: new WebhookAuthModes([uazapiInbound, standIn].map((p) => providerAuthMode(p, instances))),
      extend: gatewayVerificationRoutes([uazapiInbound, standIn], instances, logger.logger),
    });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    running = { engine, server };
    return { engine, logger, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  const post = (url: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
    const raw = JSON.stringify(body);
    return fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
  };
  const signed = (url: string, body: unknown, secret = APP_SECRET, query = '') => {
    const raw = JSON.stringify(body);
    const signature = createHmac('sha256', secret).update(raw).digest('hex');
    return fetch(`${url}/inbound/stand-in${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-test-signature': signature },
      body: raw,
    });
  };
  const records = async (engine: Engine): Promise<ExecutionRecord[]> => (await engine.store.list({ limit: 100 })).reverse();

  it("looks instances up by one provider's token or verify token (constant time), and by external id", async () => {
    const ids = await seed();
    const lookup = new DbInboundInstances(t.current.db);
    expect(await lookup.byToken('uazapi', UAZAPI_TOKEN)).toMatchObject({ id: ids.uazapi, clinica_id: ids.clinicaId, provider: 'uazapi' });
    // Another provider's credential never authenticates as uazapi, nor the other way round.
    expect(await lookup.byToken('uazapi', 'evo-key')).toBeUndefined();
    expect(await lookup.byToken('uazapi', CLOUDISH_TOKEN)).toBeUndefined();
    expect(await lookup.byToken('evolution', UAZAPI_TOKEN)).toBeUndefined();
    expect(await lookup.byToken('evolution', 'evo-key')).toMatchObject({ id: ids.evolution, external_id: 'clinica-evo' });
    expect(await lookup.byToken('uazapi', '')).toBeUndefined();
    expect(await lookup.byExternalId('cloud', '1065')).toMatchObject({ id: ids.cloud, app_secret: APP_SECRET, verify_token: VERIFY });
    expect(await lookup.byExternalId('evolution', '1065')).toBeUndefined();
    expect(await lookup.byExternalId('cloud', '')).toBeUndefined();
    expect(await lookup.byVerifyToken('cloud', VERIFY)).toMatchObject({ id: ids.cloud });
    expect(await lookup.byVerifyToken('evolution', VERIFY)).toBeUndefined();
    expect(await lookup.byVerifyToken('cloud', '')).toBeUndefined();
  });

  it('the uazapi route: trigger.auth names the instance and its provider; the token is recorded as "***"; 401 / 422 as before', async () => {
    const ids = await seed();
    const { url, engine, logger } = await serve();
    const event = { ...uazapiFixture('text-conversation'), token: UAZAPI_TOKEN };
    const res = await post(url, '/inbound', event);
    expect([res.status, await res.json()]).toEqual([
      200,
      { auth: { instance_id: ids.uazapi, clinica_id: ids.clinicaId, provider: 'uazapi' }, token: '***' },
    ]);
    expect((await post(url, '/inbound', { ...event, token: 'evo-key' })).status).toBe(401);
    expect((await post(url, '/inbound', { ...event, token: undefined })).status).toBe(401);
    // A malformed uazapi event with a good token: the provider's event schema, each path.
    const bad = await post(url, '/inbound', { EventType: 'messages', token: UAZAPI_TOKEN, message: { chatid: '' } });
    expect([bad.status, await bad.json()]).toEqual([
      422,
      {
        error: 'invalid input',
        details: [
          { path: 'message.messageid', message: 'is required' },
          { path: 'message.chatid', message: 'must NOT have fewer than 1 characters' },
        ],
      },
    ]);
    expect(await records(engine)).toHaveLength(1);
    expect(JSON.stringify(await records(engine))).not.toContain(UAZAPI_TOKEN);
    expect(logger.text()).not.toContain(UAZAPI_TOKEN);
    expect(
      logger
        .lines()
        .filter((l) => l.level === 40)
        .map((l) => l.msg),
    ).toEqual(['webhook rejected: missing or unknown instance token', 'webhook rejected: missing or unknown instance token']);
  });

  it("an extra route's provider mode: signed over the raw bytes, split into events (0, 1, 3), each with its instance as trigger.auth", async () => {
    const ids = await seed();
    const { url, engine } = await serve();
    const auth = { instance_id: ids.cloud, clinica_id: ids.clinicaId, provider: 'cloud' };
    const none = await signed(url, { to: '1065', items: [] });
    expect([none.status, await none.json()]).toEqual([200, { status: 'accepted', executions: 0 }]);
    const one = await signed(url, { to: '1065', items: [{ text: 'um' }] });
    expect([one.status, await one.json()]).toEqual([200, { auth }]);
    const three = await signed(url, { to: '1065', items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
    expect([three.status, await three.json()]).toEqual([200, { status: 'accepted', executions: 3 }]);
    const all = await records(engine);
    expect(all.map((r) => [(r.trigger.body as JsonObject).text, r.trigger.auth])).toEqual([
      ['um', auth],
      ['a', auth],
      ['b', auth],
      ['c', auth],
    ]);
    expect(all.every((r) => !('x-test-signature' in (r.trigger as { headers: JsonObject }).headers))).toBe(true);
    // Another instance's secret, or an event breaking the provider's event schema: nothing recorded.
    expect((await signed(url, { to: '1065', items: [{ text: 'x' }] }, 'other-secret')).status).toBe(401);
    const bad = await signed(url, { to: '1065', items: [{ text: 'ok' }, { text: 1 }] });
    expect([bad.status, await bad.json()]).toEqual([
      422,
      { error: 'invalid input', details: [{ path: '[1].text', message: 'must be string' }] },
    ]);
    expect(await records(engine)).toHaveLength(4);
  });

  it('with LEADFLOW_WEBHOOK_SECRET set, every provider route needs it too', async () => {
    await seed();
    const { url, engine } = await serve('shared-secret');
    const body = { to: '1065', items: [{ text: 'x' }] };
    expect((await signed(url, body)).status).toBe(401);
    expect((await signed(url, body, APP_SECRET, '?secret=shared-secret')).status).toBe(200);
    expect((await post(url, '/inbound', { ...uazapiFixture('text-conversation'), token: UAZAPI_TOKEN })).status).toBe(401);
    expect(await records(engine)).toHaveLength(1);
  });

  it('the verification GET: answered by the provider (200 challenge as text, 403), never logging the query', async () => {
    await seed();
    const { url, engine, logger } = await serve();
    const ok = await fetch(`${url}/inbound/stand-in?verify=${VERIFY}&challenge=1158201444`);
    expect([ok.status, ok.headers.get('content-type'), await ok.text()]).toEqual([200, 'text/plain; charset=utf-8', '1158201444']);
    const refused = await fetch(`${url}/inbound/stand-in?verify=wrong-token&challenge=1`);
    expect([refused.status, await refused.json()]).toEqual([403, { error: 'forbidden', details: [] }]);
    expect(await records(engine)).toEqual([]);
    expect(
      logger
        .lines()
        .filter((l) => l.level === 40)
        .map((l) => l.msg),
    ).toEqual(['webhook verification refused']);
    expect(logger.text()).not.toContain('wrong-token');
    expect(logger.text()).not.toContain(VERIFY);
  });
});
