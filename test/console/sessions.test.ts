// Console sessions' promises (console/server/session-store.ts, access.ts): a session ends 12 h after
// signing in, by the service's clock; a session made under one LEADFLOW_ADMIN_TOKEN is refused once
// the service runs with another (across a restart on the same data); the sign-in refuses a foreign
// Origin; `X-Forwarded-Proto: https` marks the cookie Secure only from a peer on this host.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settableClock } from '../../adapters/clock.js';
import { MemoryKeyValue } from '../../adapters/kv/memory-key-value.js';
import { isHttpsRequest, sessionRoutes } from '../../console/server/access.js';
import { ConsoleSessions, SESSION_TTL_MS } from '../../console/server/session-store.js';
import { createTestSchema, dropTestSchema, TEST_DATABASE_URL, withSearchPath } from '../helpers/databases.js';
import { deleteNamespace, randomPrefix, TEST_REDIS_URL } from '../helpers/key-values.js';
import { type Backend, forEachBackend, type Stack, type StackOptions, startStack } from '../e2e/stack.js';
import { ADMIN_TOKEN, signIn, withSession } from './support.js';

forEachBackend('console session expiry', (backend) => {
  const clock = settableClock();
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ backend, clock, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
  });
  afterAll(() => stack?.close());

  it('ends a session 12 h after signing in by the service clock, however recently it was used', async () => {
    const start = Date.parse('2026-03-02T09:00:00Z');
    clock.set(start);
    const session = await signIn(stack);
    clock.set(start + SESSION_TTL_MS - 60_000);
    expect((await withSession(stack, session, '/admin/session')).status).toBe(200);
    expect((await withSession(stack, session, '/admin/leads')).status).toBe(200);
    // The clock runs on from each set: a minute either side of the end leaves room for the requests.
    clock.set(start + SESSION_TTL_MS + 60_000);
    expect((await withSession(stack, session, '/admin/session')).status).toBe(401);
    expect((await withSession(stack, session, '/admin/leads')).status).toBe(401);
    // Signing in again then gives a session of its own 12 h.
    const again = await signIn(stack);
    expect((await withSession(stack, again, '/admin/leads')).status).toBe(200);
  });
});

/** The data two stacks share (the same database and key-value store), so one is a restart of the other. */
interface SharedData {
  options: Pick<StackOptions, 'databaseUrl' | 'redisUrl' | 'kvPrefix' | 'env'>;
  remove(): Promise<void>;
}

async function sharedData(backend: Backend): Promise<SharedData> {
  if (backend === 'embedded') {
    const dir = mkdtempSync(join(tmpdir(), 'leadflow-sessions-'));
    return { options: { env: { LEADFLOW_DATA_DIR: dir } }, remove: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = await createTestSchema();
  const kvPrefix = randomPrefix();
  return {
    options: { databaseUrl: withSearchPath(TEST_DATABASE_URL, schema), redisUrl: TEST_REDIS_URL, kvPrefix },
    async remove() {
      const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 3 });
      try {
        await deleteNamespace(redis, kvPrefix);
      } finally {
        redis.disconnect();
      }
      await dropTestSchema(schema);
    },
  };
}

forEachBackend('console sessions and the admin token', (backend) => {
  let data: SharedData;
  beforeAll(async () => {
    data = await sharedData(backend);
  });
  afterAll(() => data?.remove());

  const run = async <T>(token: string, body: (stack: Stack) => Promise<T>): Promise<T> => {
    const stack = await startStack({ backend, ...data.options, env: { ...data.options.env, LEADFLOW_ADMIN_TOKEN: token } });
    try {
      return await body(stack);
    } finally {
      await stack.close();
    }
  };

  it('signs everyone out when the service restarts with another token; the same token again still knows the session', async () => {
    const session = await run('token-a-0123456789', (stack) => signIn(stack, {}, 'token-a-0123456789'));
    await run('token-b-0123456789', async (stack) => {
      expect((await withSession(stack, session, '/admin/session')).status).toBe(401);
      expect((await withSession(stack, session, '/admin/leads')).status).toBe(401);
      const bearer = await fetch(`${stack.url}/admin/leads`, { headers: { authorization: 'Bearer token-b-0123456789' } });
      expect(bearer.status).toBe(200);
    });
    // The session itself outlived the restarts: only the token decided.
    await run('token-a-0123456789', async (stack) => {
      expect((await withSession(stack, session, '/admin/session')).status).toBe(200);
      expect((await withSession(stack, session, '/admin/leads')).status).toBe(200);
    });
  });
});

forEachBackend('console sign-in and Origin', (backend) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN, PUBLIC_BASE_URL: 'https://leads.example.com/base' } });
  });
  afterAll(() => stack?.close());

  it('refuses POST /admin/session from a foreign Origin (403, no cookie), even with the right token', async () => {
    for (const origin of ['https://evil.example', 'http://127.0.0.1:1', 'null', 'https://leads.example.com.evil.example']) {
      const res = await stack.post('/admin/session', { token: ADMIN_TOKEN }, { origin });
      expect(res.status, origin).toBe(403);
      expect(((await res.json()) as { error: string }).error, origin).toBe('cross-origin request refused');
      expect(res.headers.get('set-cookie'), origin).toBeNull();
    }
  });

  it("accepts the sign-in from this server's own origin, from PUBLIC_BASE_URL's, and without an Origin", async () => {
    for (const headers of <Array<Record<string, string>>>[{ origin: stack.url }, { origin: 'https://leads.example.com' }, {}]) {
      const session = await signIn(stack, headers);
      expect((await withSession(stack, session, '/admin/session')).status, JSON.stringify(headers)).toBe(200);
    }
  });
});

describe('whether a request came over https (the cookie is Secure)', () => {
  const https = (peer: string | undefined, forwardedProto?: string, encrypted = false) =>
    isHttpsRequest({ encrypted, peer, forwardedProto });

  it('trusts X-Forwarded-Proto only from a loopback peer', () => {
    for (const peer of ['127.0.0.1', '127.3.4.5', '::1', '::ffff:127.0.0.1']) {
      expect(https(peer, 'https'), peer).toBe(true);
      expect(https(peer, 'HTTPS, http'), peer).toBe(true);
      expect(https(peer, 'http'), peer).toBe(false);
      expect(https(peer), peer).toBe(false);
    }
    for (const peer of ['192.0.2.2', '10.0.0.1', '::ffff:10.0.0.1', 'fd00::2', '128.0.0.1', '::ffff:128.0.0.1', '', undefined])
      expect(https(peer, 'https'), String(peer)).toBe(false);
  });

  it('counts a TLS connection as https whoever the peer is', () => {
    expect(https('192.0.2.2', undefined, true)).toBe(true);
    expect(https('192.0.2.2', 'http', true)).toBe(true);
  });
});

/** This host's first non-loopback IPv4 address, if it has one. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

describe('the sign-in cookie over HTTP, by the peer that sent X-Forwarded-Proto', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    const kv = new MemoryKeyValue();
    const sessions = new ConsoleSessions(kv, ADMIN_TOKEN);
    const router = express.Router();
    sessionRoutes({ sessions, token: ADMIN_TOKEN })(router);
    const app = express().use('/admin', router);
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '0.0.0.0', () => resolve(s));
    });
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  const setCookieFrom = async (host: string): Promise<string> => {
    const res = await fetch(`http://${host}:${port}/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ token: ADMIN_TOKEN }),
    });
    expect(res.status).toBe(200);
    return res.headers.get('set-cookie') ?? '';
  };

  it('marks the cookie Secure when a loopback peer forwards https', async () => {
    expect(await setCookieFrom('127.0.0.1')).toMatch(/; Secure$/);
  });

  it.skipIf(!outsideAddress)(
    `never marks it Secure when a non-loopback peer (${outsideAddress ?? 'none on this host'}) forwards https`,
    async () => {
      const setCookie = await setCookieFrom(outsideAddress!);
      expect(setCookie).toMatch(/^lf_session=/);
      expect(setCookie).not.toMatch(/Secure/);
    },
  );
});
