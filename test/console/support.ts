// Helpers of the console API tests: a stack with the admin token, signing in, requests with the
// session cookie (and its CSRF token) or the bearer.
import { expect } from 'vitest';
import type { Stack } from '../e2e/stack.js';

export const ADMIN_TOKEN = 'console-test-admin-token';

export interface SignedIn {
  /** `lf_session=<value>`, ready for a Cookie header. */
  cookie: string;
  csrf: string;
  setCookie: string;
}

export async function signIn(stack: Stack, headers: Record<string, string> = {}, token = ADMIN_TOKEN): Promise<SignedIn> {
  const res = await stack.post('/admin/session', { token }, headers);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { csrf: string };
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0]!, csrf: body.csrf, setCookie };
}

/** A request with the session cookie; non-GET ones carry its CSRF token unless `csrf: false`. */
export function withSession(
  stack: Stack,
  session: SignedIn,
  path: string,
  init: { method?: string; body?: unknown; csrf?: boolean; headers?: Record<string, string> } = {},
): Promise<Response> {
  const method = init.method ?? 'GET';
  const headers: Record<string, string> = { cookie: session.cookie, ...init.headers };
  if (method !== 'GET' && init.csrf !== false) headers['x-csrf-token'] = session.csrf;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${stack.url}${path}`, { method, headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) });
}

export function withBearer(stack: Stack, path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${ADMIN_TOKEN}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${stack.url}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
}
