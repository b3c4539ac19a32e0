// The shape limits of inbound JSON (engine/triggers/json-limits.ts) over HTTP, with the whole service
// wired as `serve` wires it (test/e2e/stack.ts, embedded backend): a body nested deeper than
// MAX_JSON_DEPTH, or with too many keys, items or values, is refused 413 naming the limit before any
// execution exists, on each webhook (all auth modes), the admin API's bodies and the console's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_JSON_ARRAY_ITEMS,
  MAX_JSON_DEPTH,
  MAX_JSON_OBJECT_KEYS,
  MAX_JSON_VALUES,
  jsonLimitProblem,
} from '../../engine/triggers/json-limits.js';
import { startStack, type Stack } from './stack.js';

const SECRET = 'limits-webhook-secret-5e1c';
const ADMIN_TOKEN = 'limits-admin-token-8d2a';

/** JSON text of `levels` objects inside one another (`{"a":{"a":{}}}` for 3); the innermost is `{}`. */
function nestedText(levels: number): string {
  return `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
}

/** The `a.a.a…` path of the container at `level` inside `respostas` (level 2 of the body). */
const deepPath = (levels: number) => ['respostas', ...Array<string>(levels).fill('a')].join('.');

describe('json-limits: the walk', () => {
  it('counts the top level as level 1: 32 levels pass, 33 do not (objects and arrays alike)', () => {
    expect(jsonLimitProblem(JSON.parse(nestedText(MAX_JSON_DEPTH)))).toBeUndefined();
    expect(jsonLimitProblem(JSON.parse(nestedText(MAX_JSON_DEPTH + 1)))?.error).toBe('body nested deeper than 32 levels');
    expect(jsonLimitProblem(JSON.parse(`${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}`))).toBeUndefined();
    expect(jsonLimitProblem(JSON.parse(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`))).toEqual({
      error: 'body nested deeper than 32 levels',
      details: [{ path: `[0]${'[0]'.repeat(MAX_JSON_DEPTH - 1)}`, message: 'level 33: at most 32 levels of nesting' }],
    });
  });

  it('walks a million levels without recursion', () => {
    const deep = JSON.parse(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
    expect(jsonLimitProblem(deep)?.error).toBe('body nested deeper than 32 levels');
  });

  it('keys, items and values: at the limit pass, one more is refused naming the limit and where', () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect(jsonLimitProblem({ respostas: keys(MAX_JSON_OBJECT_KEYS) })).toBeUndefined();
    expect(jsonLimitProblem({ respostas: keys(MAX_JSON_OBJECT_KEYS + 1) })).toEqual({
      error: 'body has an object of more than 1000 keys',
      details: [{ path: 'respostas', message: '1001 keys: at most 1000' }],
    });
    expect(jsonLimitProblem({ list: Array(MAX_JSON_ARRAY_ITEMS).fill(0) })).toBeUndefined();
    expect(jsonLimitProblem({ list: Array(MAX_JSON_ARRAY_ITEMS + 1).fill(0) })?.error).toBe(
      `body has an array of more than ${MAX_JSON_ARRAY_ITEMS} items`,
    );
    const values = Array.from({ length: 20 }, () => Array(MAX_JSON_ARRAY_ITEMS / 2).fill(0));
    expect(jsonLimitProblem(values)?.error).toBe(`body holds more than ${MAX_JSON_VALUES} values`);
    expect(jsonLimitProblem(values.slice(0, 19))).toBeUndefined();
  });

  it('counts an own __proto__ key like any other and cuts long keys in the path', () => {
    const body = JSON.parse(`{"__proto__":${nestedText(MAX_JSON_DEPTH)}}`);
    expect(jsonLimitProblem(body)?.details[0]?.path).toBe(`__proto__${'.a'.repeat(MAX_JSON_DEPTH - 1)}`);
    const long = 'k'.repeat(100);
    expect(jsonLimitProblem(JSON.parse(`{"${long}":${nestedText(MAX_JSON_DEPTH)}}`))?.details[0]?.path).toMatch(/^k{40}…\.a/);
  });
});

describe('json-limits over HTTP [sqlite + in-process]', () => {
  let stack: Stack;
  const auth = { 'content-type': 'application/json', 'x-webhook-secret': SECRET };
  const admin = { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` };
  const send = (path: string, body: string, headers: Record<string, string> = auth) =>
    fetch(`${stack.url}${path}`, { method: 'POST', headers, body });
  const intake = (respostas: string) =>
    `{"nome":"Ana Souza","telefone":"11987654321","clinica_id":${stack.clinic.id},"respostas":${respostas}}`;
  const answer = async (res: Response) => ({ status: res.status, json: await res.json() });

  beforeAll(async () => {
    stack = await startStack({ env: { LEADFLOW_WEBHOOK_SECRET: SECRET, LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('a form whose respostas nests 5,000 deep (~40 KB): 413 naming the limit, no execution recorded', async () => {
    const body = intake(nestedText(5_000));
    expect(body.length).toBeLessThan(50_000);
    const before = (await stack.executions()).length;
    expect(await answer(await send('/form/intake', body))).toEqual({
      status: 413,
      json: {
        error: 'body nested deeper than 32 levels',
        details: [{ path: deepPath(MAX_JSON_DEPTH - 1), message: 'level 33: at most 32 levels of nesting' }],
      },
    });
    expect(await stack.executions()).toHaveLength(before);
    expect((await fetch(`${stack.url}/healthz`)).status).toBe(200);
  });

  it('the form: 32 levels in all are accepted (202), 33 refused (413), nothing recorded for it', async () => {
    const accepted = await send('/form/intake', intake(nestedText(MAX_JSON_DEPTH - 1)));
    expect(accepted.status).toBe(202);
    const { execution_id } = (await accepted.json()) as { execution_id: string };
    const ids = async () => (await stack.executions('intake')).map((r) => r.id);
    expect(await ids()).toContain(execution_id);
    const before = await ids();
    expect(await answer(await send('/form/intake', intake(nestedText(MAX_JSON_DEPTH))))).toMatchObject({
      status: 413,
      json: { error: 'body nested deeper than 32 levels', details: [{ path: deepPath(MAX_JSON_DEPTH - 1) }] },
    });
    expect(await ids()).toEqual(before);
    await stack.engine.waitForEnd(execution_id);
    // Whatever it started is recorded before the next test counts executions.
    await stack.idle();
  });

  it('too many keys in one object or items in one array: 413 naming the limit, no execution recorded', async () => {
    const before = (await stack.executions()).length;
    const keys = `{${Array.from({ length: MAX_JSON_OBJECT_KEYS + 1 }, (_, i) => `"q${i}":"r"`).join(',')}}`;
    expect(await answer(await send('/form/intake', intake(keys)))).toEqual({
      status: 413,
      json: { error: 'body has an object of more than 1000 keys', details: [{ path: 'respostas', message: '1001 keys: at most 1000' }] },
    });
    const items = `{"lista":[${Array(MAX_JSON_ARRAY_ITEMS + 1)
      .fill('1')
      .join(',')}]}`;
    expect(await answer(await send('/form/intake', intake(items)))).toEqual({
      status: 413,
      json: {
        error: `body has an array of more than ${MAX_JSON_ARRAY_ITEMS} items`,
        details: [{ path: 'respostas.lista', message: `${MAX_JSON_ARRAY_ITEMS + 1} items: at most ${MAX_JSON_ARRAY_ITEMS}` }],
      },
    });
    expect(await stack.executions()).toHaveLength(before);
  });

  it('the gateway webhook and the handoff webhook refuse too deep bodies the same way (before their auth on the body)', async () => {
    const before = (await stack.executions()).length;
    for (const [path, body] of [
      ['/leadagent', `{"token":"fake-token","EventType":"messages","message":${nestedText(5_000)}}`],
      ['/leadagent', `{"token":"unknown","message":${nestedText(MAX_JSON_DEPTH)}}`],
      ['/handoff-agenteia', `{"telefone":"5511987654321","motivo":${nestedText(MAX_JSON_DEPTH)}}`],
    ] as const) {
      expect(await answer(await send(path, body))).toMatchObject({
        status: 413,
        json: { error: 'body nested deeper than 32 levels', details: [{ message: 'level 33: at most 32 levels of nesting' }] },
      });
    }
    expect(await stack.executions()).toHaveLength(before);
  });

  it("the admin API's bodies (cancel, replay) and the console's (session, lead actions): 413 naming the limit", async () => {
    const deep = nestedText(200);
    const error = { error: 'body nested deeper than 32 levels' };
    expect(await answer(await send('/admin/executions/x/cancel', `{"reason":${deep}}`, admin))).toMatchObject({ status: 413, json: error });
    expect(await answer(await send('/admin/executions/x/replay', `{"dry_run":${deep}}`, admin))).toMatchObject({
      status: 413,
      json: error,
    });
    expect(await answer(await send('/admin/session', `{"token":${deep}}`, { 'content-type': 'application/json' }))).toMatchObject({
      status: 413,
      json: error,
    });
    expect(await answer(await send('/admin/leads/1/actions', `{"action":${deep}}`, admin))).toMatchObject({ status: 413, json: error });
    // Within the limits the same routes answer as before (404 unknown execution, 422 no such action).
    expect((await send('/admin/executions/x/cancel', '{"reason":"r"}', admin)).status).toBe(404);
    expect((await send('/admin/leads/1/actions', '{"action":"nope"}', admin)).status).toBe(422);
  });

  it('admin query strings: repeated, huge, __proto__ and more than 100 parameters answer 4xx or 2xx, never 5xx', async () => {
    const get = (query: string) => fetch(`${stack.url}/admin/executions?${query}`, { headers: admin });
    expect(await answer(await get('limit=1&limit=2'))).toEqual({
      status: 422,
      json: { error: 'invalid query', details: [{ path: 'limit', message: 'must be an integer from 1 to 1000' }] },
    });
    expect((await get(`containing=${'9'.repeat(8000)}`)).status).toBe(422);
    expect((await get('__proto__=x&constructor=y&prototype=z&__proto__[polluted]=1')).status).toBe(200);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    // Past MAX_QUERY_PARAMETERS the rest is ignored: a `limit` given twice after 100 others is not seen.
    const many = Array.from({ length: 100 }, (_, i) => `p${i}=1`).join('&');
    expect((await get(`${many}&limit=1&limit=2`)).status).toBe(200);
    expect((await get(`limit=1&limit=2&${many}`)).status).toBe(422);
  });
});
