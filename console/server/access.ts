// Console access (issue 14): the session endpoints, the cookie's attributes, and the check the admin
// router runs for a request without the bearer token (engine/triggers/admin-routes.ts `authorize`).
//
//   POST   /admin/session {email, password}  the account's sign-in: account-session.ts (§13)
//   POST   /admin/session {token}  200 {csrf, user: null} + Set-Cookie lf_session (HttpOnly; SameSite=Strict;
//                                  Path=/; Max-Age=43200; Secure over HTTPS); 401 {error} on a wrong
//                                  token (constant time), 422 {error, details: [{path: "token"}]} without
//                                  a JSON {token: string} (400 for a JSON syntax error), 413 over
//                                  4 KB or past a shape limit of engine/triggers/json-limits.ts
//   GET    /admin/session          200 {signed_in: true, csrf, user} with a live session (`user`: the
//                                  account as it is now, null for the token); 401 {error, details,
//                                  contas: whether any account exists, so the sign-in page offers
//                                  the token first on a server without accounts}
//   DELETE /admin/session          204, cookie cleared (Max-Age=0), session revoked
//
// With the cookie, every request but GET/HEAD must carry `X-CSRF-Token` equal to the session's and,
// when it has an `Origin`, that origin must be this server's (403 otherwise). The bearer needs neither.
// A session of an account re-reads the account on every request: a disabled (or deleted) account's
// sessions answer 401 at once, in every process; an active one's request gets its principal
// (principal.ts) on `res.locals.principal`, with the account's role and clinics as they are now.
//
// HTTPS: a request came over HTTPS when its own connection is TLS, or when it came from a proxy on
// this host (a loopback address) with `X-Forwarded-Proto: https`. Other proxies are not trusted: put
// the TLS-terminating proxy on the same host, or the cookie goes without `Secure`.
import { isIP } from 'node:net';
import express, { type Request, type Router } from 'express';
import type { AdminAuthorization } from '../../engine/triggers/admin-routes.js';
import { constantTimeEqual } from '../../engine/constant-time.js';
import { enforceJsonLimits } from '../../engine/triggers/json-limits.js';
import { sendError } from '../../engine/triggers/webhook-pipeline.js';
import type { Database } from '../../adapters/db/database.js';
import { checkAccountSignIn } from './account-session.js';
import { verifyNothing } from './passwords.js';
import type { SessionResponse } from './api-types.js';
import { recordAudit } from './audit.js';
import { sendApiError, sendInvalid } from './lead-rows.js';
import type { SessionUser } from './people-api-types.js';
import { type Principal, TOKEN_PRINCIPAL } from './principal.js';
import { type ConsoleSessions, readCookie, type Session, SESSION_COOKIE, SESSION_TTL_MS } from './session-store.js';
import type { SignInLimit } from './sign-in-limit.js';
import { accountById, toPrincipal } from './users.js';

/** Headers of every /console and /admin answer. */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
};

/** Largest body of POST /admin/session. */
const SESSION_BODY_LIMIT = '4kb';
/** 413 when the parsed body passes a shape limit of json-limits.ts (e.g. nested deeper than 32 levels). */
const withinJsonLimits = enforceJsonLimits(sendError, (req) => req.body);

/** What the console's sign-in and session check need: the session store, the admin token and the public origin. */
export interface ConsoleAccessOptions {
  sessions: ConsoleSessions;
  /** LEADFLOW_ADMIN_TOKEN. */
  token: string;
  /** PUBLIC_BASE_URL (read per request), when set: its origin is accepted as this server's too. */
  publicBaseUrl?: () => string | undefined;
  /** The accounts' database and sign-in lockout; without them only the token signs in. */
  accounts?: { db: Database; limit: SignInLimit };
}

/** Who a live session is now: the token's principal, an active account's, or undefined (the account is disabled or gone). */
async function sessionPrincipal(session: Session, db: Database | undefined): Promise<Principal | undefined> {
  if (session.userId === null) return TOKEN_PRINCIPAL;
  const account = db ? await accountById(db, session.userId) : undefined;
  return account && account.desativado_at === null ? toPrincipal(account) : undefined;
}

/** What GET /session says of who is signed in (null: the admin token). */
function sessionUserOf(principal: Principal): SessionUser | null {
  if (principal.kind !== 'user') return null;
  const { id, email, nome, papel, clinica_ids } = principal;
  return { id, email, nome, papel, clinica_ids };
}

function isLoopback(address: string | undefined): boolean {
  const a = (address ?? '').replace(/^::ffff:/, '');
  return a === '::1' || (isIP(a) === 4 && a.startsWith('127.'));
}

/**
 * Whether a request came over HTTPS, from what its connection says: TLS on the connection itself, or
 * a peer on this host (a loopback `peer` address) whose `X-Forwarded-Proto` (first value) is `https`.
 * A forwarded `https` from any other peer counts for nothing.
 */
export function isHttpsRequest(connection: { encrypted: boolean; peer: string | undefined; forwardedProto: string | undefined }): boolean {
  if (connection.encrypted) return true;
  const forwarded = connection.forwardedProto?.split(',')[0]?.trim().toLowerCase();
  return forwarded === 'https' && isLoopback(connection.peer);
}

/** Whether the request came over HTTPS (isHttpsRequest on its socket; see the header of this file for the proxy rule). */
export function cameOverHttps(req: Request): boolean {
  return isHttpsRequest({
    encrypted: (req.socket as { encrypted?: boolean }).encrypted === true,
    peer: req.socket.remoteAddress,
    forwardedProto: req.header('x-forwarded-proto'),
  });
}

function cookieHeader(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

function originOf(url: string | undefined): string | undefined {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
}

/** True when the request has no Origin, or its Origin is this server's (by Host and scheme) or PUBLIC_BASE_URL's. */
function originAllowed(req: Request, publicBaseUrl: (() => string | undefined) | undefined): boolean {
  const origin = req.header('origin');
  if (origin === undefined) return true;
  const own = `${cameOverHttps(req) ? 'https' : 'http'}://${req.header('host') ?? ''}`;
  return origin === originOf(own) || origin === originOf(publicBaseUrl?.());
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/** The anti-forgery checks of a cookie-authenticated request; undefined when it passes. */
function forgeryProblem(req: Request, csrf: string, publicBaseUrl: ConsoleAccessOptions['publicBaseUrl']): string | undefined {
  if (SAFE_METHODS.has(req.method)) return undefined;
  if (!constantTimeEqual(req.header('x-csrf-token') ?? '', csrf)) return 'missing or wrong X-CSRF-Token';
  if (!originAllowed(req, publicBaseUrl)) return 'cross-origin request refused';
  return undefined;
}

/** The admin router's `authorize` hook: the session cookie, with the anti-forgery checks. */
export function authorizeSession({
  sessions,
  publicBaseUrl,
  accounts,
}: ConsoleAccessOptions): (req: Request) => Promise<AdminAuthorization> {
  return async (req) => {
    const cookie = readCookie(req.header('cookie'), SESSION_COOKIE);
    if (cookie === undefined) return undefined;
    const session = await sessions.find(cookie);
    if (!session) return { status: 401, error: 'session expired or signed out' };
    const principal = await sessionPrincipal(session, accounts?.db);
    if (!principal) return { status: 401, error: 'account disabled' };
    const problem = forgeryProblem(req, session.csrf, publicBaseUrl);
    if (problem) return { status: 403, error: problem };
    // Express links each request to its answer: the principal travels on it to the console's routes.
    if (req.res) req.res.locals.principal = principal;
    return 'allow';
  };
}

/** Mounts POST / GET / DELETE /session on the admin router (before its authentication). */
export function sessionRoutes({ sessions, token, publicBaseUrl, accounts }: ConsoleAccessOptions): (router: Router) => void {
  return (router) => {
    // The hash an unknown email is checked against, made now so the first such sign-in takes no longer than others.
    if (accounts) void verifyNothing('');
    router.post('/session', express.json({ limit: SESSION_BODY_LIMIT }), withinJsonLimits, async (req, res) => {
      const body = req.body as { token?: unknown; email?: unknown } | undefined;
      const byAccount = accounts !== undefined && !!body && typeof body === 'object' && 'email' in body;
      if (!byAccount && (!body || typeof body !== 'object' || typeof body.token !== 'string'))
        return void sendInvalid(res, 'invalid input', [{ path: 'token', message: 'must be a string (the body: JSON {"token": string})' }]);
      if (!originAllowed(req, publicBaseUrl)) return void sendApiError(res, 403, 'cross-origin request refused');
      let user: SessionUser | null = null;
      if (byAccount) {
        const signedIn = await checkAccountSignIn(accounts, req, res);
        if (!signedIn) return;
        user = signedIn;
      } else if (!constantTimeEqual(body?.token as string, token)) return void sendApiError(res, 401, 'invalid token');
      else if (accounts) await recordAudit(accounts.db, TOKEN_PRINCIPAL, { acao: 'login' });
      const created = await sessions.create(user?.id ?? null);
      res.set('Set-Cookie', cookieHeader(created.cookie, SESSION_TTL_MS / 1000, cameOverHttps(req)));
      res.set('Cache-Control', 'no-store');
      res.json({ csrf: created.csrf, user } satisfies SessionResponse);
    });
    router.get('/session', async (req, res) => {
      const session = await sessions.find(readCookie(req.header('cookie'), SESSION_COOKIE));
      const principal = session && (await sessionPrincipal(session, accounts?.db));
      if (!session || !principal) {
        const contas = accounts ? (await accounts.db.knex('usuarios').first('id')) !== undefined : false;
        return void res.status(401).json({ error: 'not signed in', details: [], contas });
      }
      res.set('Cache-Control', 'no-store');
      res.json({ signed_in: true, csrf: session.csrf, user: sessionUserOf(principal) } satisfies SessionResponse);
    });
    router.delete('/session', async (req, res) => {
      const cookie = readCookie(req.header('cookie'), SESSION_COOKIE);
      const session = await sessions.find(cookie);
      if (session) {
        const problem = forgeryProblem(req, session.csrf, publicBaseUrl);
        if (problem) return void sendApiError(res, 403, problem);
        await sessions.revoke(cookie);
        const principal = await sessionPrincipal(session, accounts?.db);
        if (accounts && principal) await recordAudit(accounts.db, principal, { acao: 'logout' });
      }
      res.set('Set-Cookie', cookieHeader('', 0, cameOverHttps(req)));
      res.status(204).end();
    });
  };
}
