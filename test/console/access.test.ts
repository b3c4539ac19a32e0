// Console access (issue 14) on the in-process stack: sign-in, the cookie's attributes, sign-out
// revoking, the bearer still accepted, CSRF and Origin checks for cookie requests, the security
// headers, /console, and everything absent without LEADFLOW_ADMIN_TOKEN.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachBackend, type Stack, startStack } from '../e2e/stack.js';
import { ADMIN_TOKEN, signIn, withBearer, withSession } from './support.js';

const CSP = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

forEachBackend('console access', (backend) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
  });
  afterAll(() => stack?.close());

  it('signs in with the token: a csrf token and an HttpOnly, SameSite=Strict, 12-hour cookie, not Secure over plain http', async () => {
    const session = await signIn(stack);
    expect(session.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.setCookie).toMatch(
      /^lf_session=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/,
    );
    const status = await withSession(stack, session, '/admin/session');
    expect(status.status).toBe(200);
    expect(await status.json()).toEqual({ signed_in: true, csrf: session.csrf, user: null });
    // Another session, another csrf token.
    expect((await signIn(stack)).csrf).not.toBe(session.csrf);
  });

  it('marks the cookie Secure when a proxy on this host says the request came over https', async () => {
    const session = await signIn(stack, { 'x-forwarded-proto': 'https' });
    expect(session.setCookie).toMatch(/; Secure$/);
  });

  it('refuses a wrong token (401) and a body without one (422, naming token), setting no cookie', async () => {
    const wrong = await stack.post('/admin/session', { token: `${ADMIN_TOKEN}x` });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'invalid token', details: [] });
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const without = await stack.post('/admin/session', { nope: 1 });
    expect(without.status).toBe(422);
    expect(((await without.json()) as { details: Array<{ path: string }> }).details.map((d) => d.path)).toEqual(['token']);
    expect(without.headers.get('set-cookie')).toBeNull();
  });

  it('answers 401 without a session, with a forged cookie, and to the admin API without credentials', async () => {
    expect((await fetch(`${stack.url}/admin/session`)).status).toBe(401);
    const forged = { cookie: `lf_session=${'a'.repeat(43)}.${'b'.repeat(43)}`, csrf: 'x', setCookie: '' };
    expect((await withSession(stack, forged, '/admin/session')).status).toBe(401);
    expect((await withSession(stack, forged, '/admin/leads')).status).toBe(401);
    expect((await fetch(`${stack.url}/admin/leads`)).status).toBe(401);
  });

  it('lets the cookie into every /admin endpoint, old and new', async () => {
    const session = await signIn(stack);
    expect((await withSession(stack, session, '/admin/executions')).status).toBe(200);
    expect((await withSession(stack, session, '/admin/clinics')).status).toBe(200);
    expect((await withSession(stack, session, '/admin/leads')).status).toBe(200);
  });

  it('refuses a cookie request that changes something without the csrf token or from another origin (403); the bearer needs neither', async () => {
    const session = await signIn(stack);
    const replay = '/admin/executions/no-such-id/replay';
    const noCsrf = await withSession(stack, session, replay, { method: 'POST', csrf: false });
    expect(noCsrf.status).toBe(403);
    expect(((await noCsrf.json()) as { error: string }).error).toMatch(/CSRF/);
    expect((await withSession(stack, session, replay, { method: 'POST', headers: { 'x-csrf-token': 'wrong' }, csrf: false })).status).toBe(
      403,
    );
    const foreign = await withSession(stack, session, replay, { method: 'POST', headers: { origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    // Passing both checks, the request reaches its route: an unknown execution.
    expect((await withSession(stack, session, replay, { method: 'POST', headers: { origin: stack.url } })).status).toBe(404);
    expect((await withSession(stack, session, replay, { method: 'POST' })).status).toBe(404);
    expect((await withBearer(stack, replay, { method: 'POST' })).status).toBe(404);
    expect((await withBearer(stack, '/admin/leads/999999/actions', { method: 'POST', body: { action: 'pause' } })).status).toBe(404);
  });

  it('signs out: 204, the cookie cleared, and the old cookie refused afterwards', async () => {
    const session = await signIn(stack);
    expect((await withSession(stack, session, '/admin/session', { method: 'DELETE', csrf: false })).status).toBe(403);
    const out = await withSession(stack, session, '/admin/session', { method: 'DELETE' });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^lf_session=; HttpOnly; SameSite=Strict; Path=\/; Max-Age=0$/);
    expect((await withSession(stack, session, '/admin/session')).status).toBe(401);
    expect((await withSession(stack, session, '/admin/executions')).status).toBe(401);
  });

  it('sends the Content-Security-Policy and nosniff on /admin (errors too) and /console', async () => {
    for (const res of [
      await withBearer(stack, '/admin/executions'),
      await fetch(`${stack.url}/admin/leads`),
      await stack.post('/admin/session', { token: 'wrong' }),
      await fetch(`${stack.url}/console`),
      await fetch(`${stack.url}/console/leads/5`),
      await fetch(`${stack.url}/console/assets/missing.js`),
    ]) {
      expect(res.headers.get('content-security-policy'), res.url).toBe(CSP);
      expect(res.headers.get('x-content-type-options'), res.url).toBe('nosniff');
    }
  });

  it('serves the console page at /console and its client routes, and 404 for a missing asset', async () => {
    for (const path of ['/console', '/console/', '/console/leads/12']) {
      const page = await fetch(`${stack.url}${path}`);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(await page.text(), path).toMatch(/<html/i);
    }
    expect((await fetch(`${stack.url}/console/assets/missing.js`)).status).toBe(404);
  });
});

forEachBackend('console access without LEADFLOW_ADMIN_TOKEN', (backend) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ backend });
  });
  afterAll(() => stack?.close());

  it('answers 404 to the session, the console API and /console', async () => {
    expect((await stack.post('/admin/session', { token: '' })).status).toBe(404);
    for (const path of ['/admin/session', '/admin/leads', '/admin/clinics', '/admin/leads/1', '/console', '/console/leads/1'])
      expect((await fetch(`${stack.url}${path}`)).status, path).toBe(404);
  });
});
