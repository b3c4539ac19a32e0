// One answer to bad input across the console's endpoints, old and new: 422 `{error, details}` (the
// admin API's shape), `details` naming each query or path parameter at fault, whether the request
// comes with the bearer token or the session cookie.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachBackend, type Stack, startStack } from '../e2e/stack.js';
import { ADMIN_TOKEN, type SignedIn, signIn, withBearer, withSession } from './support.js';

interface Case {
  method?: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** The parameters the answer's details must name (in any order). */
  params: string[];
}

/** Every console endpoint that reads a query or path parameter, with bad values of each. */
const CASES: Case[] = [
  { path: '/admin/leads?limit=0', params: ['limit'] },
  { path: '/admin/leads?limit=201', params: ['limit'] },
  { path: '/admin/leads?offset=-1', params: ['offset'] },
  { path: '/admin/leads?clinica_id=abc', params: ['clinica_id'] },
  { path: '/admin/leads?q=a&q=b', params: ['q'] },
  { path: `/admin/leads?q=${'a'.repeat(201)}`, params: ['q'] },
  { path: '/admin/leads?limit=x&offset=1.5&clinica_id=0', params: ['clinica_id', 'limit', 'offset'] },
  { path: '/admin/overview?days=0', params: ['days'] },
  { path: '/admin/overview?days=7&days=8', params: ['days'] },
  { path: '/admin/overview?tz=Mars/Olympus', params: ['tz'] },
  { path: '/admin/overview?tz=a&tz=b', params: ['tz'] },
  { path: '/admin/overview?days=99&tz=..', params: ['days', 'tz'] },
  { path: '/admin/executions?limit=0', params: ['limit'] },
  { path: '/admin/executions?status=lost', params: ['status'] },
  { path: '/admin/executions?version=XYZ', params: ['version'] },
  { path: '/admin/executions?containing=', params: ['containing'] },
  { path: '/admin/executions?flow=a&flow=b', params: ['flow'] },
  { method: 'POST', path: '/admin/executions/no-such-id/replay?dry_run=maybe', params: ['dry_run'] },
  { path: '/admin/leads/abc', params: ['id'] },
  { path: '/admin/leads/0', params: ['id'] },
  { method: 'POST', path: '/admin/leads/abc/actions', body: { action: 'pause' }, params: ['id'] },
  { path: '/admin/flows/Not_A_Flow', params: ['name'] },
];

forEachBackend('console bad input', (backend) => {
  let stack: Stack;
  let session: SignedIn;
  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    session = await signIn(stack);
  });
  afterAll(() => stack?.close());

  const check = async (label: string, res: Response, params: string[]) => {
    expect(res.status, label).toBe(422);
    const body = (await res.json()) as { error: unknown; details: Array<{ path: unknown; message: unknown }> };
    expect(typeof body.error, label).toBe('string');
    for (const detail of body.details) expect(typeof detail.message, label).toBe('string');
    expect(body.details.map((d) => d.path).sort(), label).toEqual([...params].sort());
  };

  it.each(CASES.map((c) => [`${c.method ?? 'GET'} ${c.path.slice(0, 80)}`, c] as const))(
    '%s: 422 naming the parameter',
    async (label, c) => {
      const init = { method: c.method ?? 'GET', ...(c.body !== undefined ? { body: c.body } : {}) };
      await check(`${label} (bearer)`, await withBearer(stack, c.path, init), c.params);
      await check(`${label} (session)`, await withSession(stack, session, c.path, init), c.params);
    },
  );
});
