// POST /leadagent/evolution with the whole service wired as `serve` wires it (test/e2e/stack.ts),
// on both backends: the `evolution-instance` check (CONTRACT §11) against the seeded
// `instancias_whatsapp`. The stack's Evolution instance has an app_secret (its webhook's jwt_key),
// so only Evolution's JWT authenticates it; a second instance without app_secret is authenticated by
// the body's apikey. Every refusal answers 401 and records nothing; an accepted event is recorded
// with its apikey masked and without the Authorization header, and its reply leaves through the
// instance the event came to.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { FakeEvolution } from '../fakes/evolution-server.js';
import { evolutionEvent, signEvolutionJwt } from '../fakes/evolution-server.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { EVOLUTION_CASE } from './providers.js';
import { forEachBackend, startStack, type Stack } from './stack.js';

const ROUTE = '/leadagent/evolution';
const UNAUTHORIZED = { status: 401, json: { error: 'unauthorized', details: [] } };
/** The second instance: no jwt_key, so its apikey (exposed by the server in each body) authenticates it. */
const APIKEY_INSTANCE = 'clinica-sem-jwt';
const APIKEY_TOKEN = 'evo-key-no-jwt-5521';

let stack: Stack;
let seq = 0;
const nextPhone = () => `55119${String(62000000 + ++seq * 1717).padStart(8, '0')}`;
const nextId = () => `3A5FSEC${process.pid}${String(++seq).padStart(8, '0')}`;
const bearer = (key: string, options: Parameters<typeof signEvolutionJwt>[1] = {}) => ({
  authorization: `Bearer ${signEvolutionJwt(key, options)}`,
});

async function postRaw(body: unknown, headers: Record<string, string> = {}, query = '') {
  const res = await fetch(`${stack.url}${ROUTE}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
}

/** `call` answers 401 and no execution is recorded. */
async function refused(body: unknown, headers: Record<string, string> = {}) {
  const before = (await stack.executions()).length;
  expect(await postRaw(body, headers)).toEqual(UNAUTHORIZED);
  await stack.idle();
  expect(await stack.executions()).toHaveLength(before);
}

async function createLead(phone: string) {
  await stack.runtime.db.insert('leads', {
    remotejid: phone,
    clinica_id: stack.clinic.id,
    instancia_id: stack.clinic.instanceId,
    nome: 'Maria Souza',
    telefone: phone,
  });
}

const jwtKey = () => stack.instance.app_secret!;
const text = (phone: string, extra: Record<string, unknown> = {}) =>
  evolutionEvent('text', {
    instance: stack.instance.external_id!,
    apikey: stack.instance.token,
    id: nextId(),
    phone,
    text: 'Oi',
    ...extra,
  });

forEachBackend('evolution webhook', (backend) => {
  let apikeyInstanceId = 0;
  const log = captureLogger();
  beforeAll(async () => {
    stack = await startStack({ backend, provider: EVOLUTION_CASE, env: { LEADFLOW_DEBOUNCE_MS: '100' }, logger: log.logger });
    const row = await stack.runtime.db.insert('instancias_whatsapp', {
      clinica_id: stack.clinic.id,
      nome: 'Sem JWT',
      provider: 'evolution',
      server_url: stack.fake.url,
      token: APIKEY_TOKEN,
      external_id: APIKEY_INSTANCE,
    });
    apikeyInstanceId = Number(row.id);
    (stack.fake as FakeEvolution).addInstance(APIKEY_INSTANCE, APIKEY_TOKEN);
  });
  afterAll(async () => {
    await stack?.close();
  });
  beforeEach(async () => {
    await stack.idle();
    stack.openai.reset();
    stack.provider.reset(stack.fake);
  });

  it('a JWT signed with the instance app_secret is accepted: recorded with apikey masked, no Authorization header, trigger.auth the instance', async () => {
    const phone = nextPhone();
    expect(await postRaw(text(phone), bearer(jwtKey()))).toEqual({ status: 200, json: { status: 'ignored', reason: 'not a lead' } });
    const [record] = await stack.executions('agent');
    expect(record!.trigger.auth).toEqual({ instance_id: stack.instance.id, clinica_id: stack.clinic.id, provider: 'evolution' });
    expect((record!.trigger.body as Record<string, unknown>).apikey).toBe('***');
    expect(JSON.stringify(record)).not.toContain(stack.instance.token);
    expect(JSON.stringify(record)).not.toContain('Bearer');
    expect(Object.keys(record!.trigger.headers as object)).not.toContain('authorization');
  });

  it('a JWT signed with another key, expired, unsigned (alg none) or missing is refused: 401, nothing recorded', async () => {
    const phone = nextPhone();
    await createLead(phone);
    await refused(text(phone), bearer('not-the-jwt-key'));
    await refused(text(phone), bearer(jwtKey(), { iat: Math.floor(Date.now() / 1000) - 3600 }));
    await refused(text(phone), bearer(jwtKey(), { alg: 'none' }));
    await refused(text(phone), bearer(jwtKey(), { claims: { app: 'other', action: 'webhook' } }));
    // The body's right apikey does not stand in for the JWT of an instance that has a jwt_key.
    await refused(text(phone));
    await refused(text(phone), { authorization: 'Basic abc' });
    expect(stack.provider.sent(stack.fake, stack.instance)).toEqual([]);
    expect(stack.openai.chatRequests()).toHaveLength(0);
  });

  it('an unknown instance, or a body without one, is refused: 401, nothing recorded', async () => {
    const phone = nextPhone();
    await createLead(phone);
    await refused(text(phone, { instance: 'outra-clinica' }), bearer(jwtKey()));
    const nameless = text(phone);
    delete nameless.instance;
    await refused(nameless, bearer(jwtKey()));
    await refused([text(phone)], bearer(jwtKey()));
  });

  it('without app_secret the body apikey authenticates: the right one is answered through that instance; a wrong, empty or another instance key is 401', async () => {
    const phone = nextPhone();
    await createLead(phone);
    const own = (apikey: string | null) =>
      evolutionEvent('text', { instance: APIKEY_INSTANCE, apikey, id: nextId(), phone, text: 'Quanto custa?' });
    await refused(own('evo-key-wrong'));
    await refused(own(null));
    await refused(own(''));
    await refused(own(stack.instance.token));
    // a JWT does not replace the apikey for an instance without a jwt_key
    await refused(own(null), bearer(jwtKey()));
    expect(await postRaw(own(APIKEY_TOKEN))).toEqual({ status: 200, json: { status: 'queued' } });
    await stack.idle();
    const sends = (stack.fake as FakeEvolution).requestsTo('/message/sendText/');
    expect(sends.map((r) => [r.instance, r.headers.apikey, r.body.number, r.status])).toEqual([
      [APIKEY_INSTANCE, APIKEY_TOKEN, phone, 201],
    ]);
    const [record] = (await stack.executions('agent')).filter(
      (e) => e.trigger.auth && (e.trigger.auth as any).instance_id === apikeyInstanceId,
    );
    expect((record!.trigger.body as Record<string, unknown>).apikey).toBe('***');
    expect(JSON.stringify(await stack.executions())).not.toContain(APIKEY_TOKEN);
  });

  it('status events and the API echo (send.message) answer 200 and start nothing; a malformed message answers 422, nothing recorded', async () => {
    const phone = nextPhone();
    await createLead(phone);
    for (const kind of ['messages-update', 'from-me-api', 'connection-update'] as const) {
      const body = evolutionEvent(kind, { instance: stack.instance.external_id!, apikey: null, phone });
      expect(await postRaw(body, bearer(jwtKey()))).toEqual({ status: 200, json: { status: 'ignored', reason: expect.any(String) } });
    }
    await stack.idle();
    expect(stack.openai.chatRequests()).toHaveLength(0);
    expect(stack.provider.sent(stack.fake, stack.instance)).toEqual([]);
    const before = (await stack.executions()).length;
    const broken = text(phone);
    delete broken.data.key;
    const answer = await postRaw(broken, bearer(jwtKey()));
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.json.details)).toContain('data.key');
    expect(await stack.executions()).toHaveLength(before);
    // a malformed body is judged only after the check: unauthenticated, it is a 401
    await refused(broken, bearer('not-the-jwt-key'));
  });

  it('a sender known only by a LID is kept as unmatched: answered 200, recorded with the LID, no lead reached', async () => {
    const body = evolutionEvent('lid-only', { instance: stack.instance.external_id!, apikey: null, id: nextId(), lid: '99887766554433' });
    expect(await postRaw(body, bearer(jwtKey()))).toEqual({
      status: 200,
      json: { status: 'ignored', reason: expect.stringMatching(/^unmatched/) },
    });
    const [record] = await stack.executions('agent');
    expect(JSON.stringify(record!.trigger.body)).toContain('99887766554433@lid');
    expect(stack.openai.chatRequests()).toHaveLength(0);
    expect(log.lines().filter((line) => /sender without a phone/.test(String(line.msg)))).toEqual([
      expect.objectContaining({ level: 40, provider: 'evolution' }),
    ]);
  });
});

forEachBackend('evolution webhook with LEADFLOW_WEBHOOK_SECRET', (backend) => {
  const SECRET = 'evo-e2e-webhook-secret-77c1';
  beforeAll(async () => {
    stack = await startStack({ backend, provider: EVOLUTION_CASE, env: { LEADFLOW_WEBHOOK_SECRET: SECRET } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("needs the secret besides Evolution's JWT (header or ?secret=)", async () => {
    const phone = nextPhone();
    await refused(text(phone), bearer(jwtKey()));
    await refused(text(phone), { ...bearer('not-the-jwt-key'), 'x-webhook-secret': SECRET });
    expect(await postRaw(text(phone), { ...bearer(jwtKey()), 'x-webhook-secret': SECRET })).toEqual({
      status: 200,
      json: { status: 'ignored', reason: 'not a lead' },
    });
    expect(await postRaw(text(phone), bearer(jwtKey()), `?secret=${SECRET}`)).toEqual({
      status: 200,
      json: { status: 'ignored', reason: 'not a lead' },
    });
  });
});
