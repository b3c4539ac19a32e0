// The Evolution webhook check (CONTRACT §11): the instance named by the body's `instance`; its JWT
// (HS256 with app_secret, unexpired, only HS256, Evolution's app/action claims) when it has an
// app_secret, else the body's `apikey` equal to its token; the grant masks `apikey`. Also the
// HS256 verifier on its own, against an independently published token (jwt.io's example).
import { describe, expect, it } from 'vitest';
import { authorizeEvolutionWebhook, type EvolutionInstanceCredentials } from '../../../adapters/gateway/evolution/auth.js';
import { parseEvolutionEvent } from '../../../adapters/gateway/evolution/events.js';
import { verifyHs256Jwt } from '../../../adapters/gateway/evolution/hs256-jwt.js';
import { evolutionEvent } from '../../fakes/evolution-fixtures/events.js';
import { signEvolutionJwt } from '../../fakes/evolution-fixtures/jwt.js';

const NOW = 1_773_050_145_000;
const SECRET = 'jwt-key-Sh4red-0c7e';
const TOKEN = 'evo-instance-key';

/** Two instances: `clinica-aurora` signs with a jwt_key, `clinica-sol` has none (apikey check). */
const rows: Record<string, EvolutionInstanceCredentials> = {
  'clinica-aurora': { instance_id: 7, clinica_id: 3, token: TOKEN, app_secret: SECRET },
  'clinica-sol': { instance_id: 8, clinica_id: 4, token: 'sol-instance-key', app_secret: null },
};
const looked: string[] = [];
const lookup = async (name: string) => {
  looked.push(name);
  return rows[name];
};

const bearer = (token: string) => `Bearer ${token}`;
const jwt = (options: Parameters<typeof signEvolutionJwt>[1] = {}) => signEvolutionJwt(SECRET, { nowMs: NOW, ...options });
const authorize = (body: unknown, authorization?: string) => authorizeEvolutionWebhook(body as any, authorization, lookup, { nowMs: NOW });

describe('authorizeEvolutionWebhook: instance with app_secret (JWT)', () => {
  it("a fresh JWT signed with the instance's app_secret: granted, apikey masked, the body otherwise as sent", async () => {
    const body = evolutionEvent('text');
    const grant = await authorize(body, bearer(jwt()));
    expect(grant).toEqual({
      body: { ...body, apikey: '***' },
      auth: { instance_id: 7, clinica_id: 3, provider: 'evolution' },
    });
    expect(body.apikey).toBe(TOKEN);
    expect(looked.at(-1)).toBe('clinica-aurora');
  });

  it('expired (past exp plus 60 s of skew): denied; within the skew: granted', async () => {
    const issued = NOW / 1000 - 700;
    expect(await authorize(evolutionEvent('text'), bearer(jwt({ iat: issued })))).toEqual({ denied: 'invalid webhook JWT: expired' });
    expect(await authorize(evolutionEvent('text'), bearer(jwt({ iat: NOW / 1000 - 630 })))).toMatchObject({ auth: { instance_id: 7 } });
  });

  it('signed with another secret, or tampered with: bad signature', async () => {
    const other = signEvolutionJwt('another-secret', { nowMs: NOW });
    expect(await authorize(evolutionEvent('text'), bearer(other))).toEqual({ denied: 'invalid webhook JWT: bad signature' });
    const [h, , s] = jwt().split('.');
    const forgedPayload = Buffer.from(
      JSON.stringify({ iat: NOW / 1000, exp: NOW / 1000 + 999_999, app: 'evolution', action: 'webhook' }),
    ).toString('base64url');
    expect(await authorize(evolutionEvent('text'), bearer(`${h}.${forgedPayload}.${s}`))).toEqual({
      denied: 'invalid webhook JWT: bad signature',
    });
  });

  it('alg none, and any algorithm but HS256 (even correctly signed), are refused', async () => {
    expect(await authorize(evolutionEvent('text'), bearer(jwt({ alg: 'none' })))).toEqual({
      denied: 'invalid webhook JWT: algorithm "none" not accepted',
    });
    expect(await authorize(evolutionEvent('text'), bearer(jwt({ alg: 'HS512' })))).toEqual({
      denied: 'invalid webhook JWT: algorithm "HS512" not accepted',
    });
    expect(await authorize(evolutionEvent('text'), bearer(jwt({ alg: 'RS256' })))).toEqual({
      denied: 'invalid webhook JWT: algorithm "RS256" not accepted',
    });
  });

  it("a token that is not Evolution's webhook token (app, action), without exp, or issued in the future: denied", async () => {
    expect(await authorize(evolutionEvent('text'), bearer(jwt({ claims: { action: 'login' } })))).toEqual({
      denied: 'invalid webhook JWT: not an Evolution webhook token (app, action)',
    });
    expect(await authorize(evolutionEvent('text'), bearer(jwt({ exp: null })))).toEqual({ denied: 'invalid webhook JWT: no expiry (exp)' });
    expect(await authorize(evolutionEvent('text'), bearer(jwt({ iat: NOW / 1000 + 3600 })))).toEqual({
      denied: 'invalid webhook JWT: issued in the future (iat)',
    });
  });

  it('no Authorization, another scheme, or garbage: denied; the body apikey does not replace the JWT', async () => {
    const body = evolutionEvent('text', { apikey: TOKEN });
    expect(await authorize(body)).toEqual({ denied: 'missing bearer token (the instance has a jwt_key)' });
    expect(await authorize(body, `Basic ${Buffer.from('a:b').toString('base64')}`)).toEqual({
      denied: 'missing bearer token (the instance has a jwt_key)',
    });
    expect(await authorize(body, bearer('not.a.jwt!'))).toEqual({ denied: 'invalid webhook JWT: malformed token' });
    expect(await authorize(body, bearer('abc'))).toEqual({ denied: 'invalid webhook JWT: malformed token' });
  });

  it('the granted body (apikey masked) still parses as the message', async () => {
    const grant = await authorize(evolutionEvent('image'), bearer(jwt()));
    if ('denied' in grant) throw new Error(grant.denied);
    expect(parseEvolutionEvent(grant.body)).toMatchObject({ kind: 'image', instance_name: 'clinica-aurora', phone: '554399806366' });
  });

  it('the scheme is case-insensitive', async () => {
    expect(await authorize(evolutionEvent('text'), `bearer ${jwt()}`)).toMatchObject({ auth: { clinica_id: 3 } });
  });

  it('a denial never quotes the token or the secret', async () => {
    const token = signEvolutionJwt('wrong', { nowMs: NOW });
    const denial = JSON.stringify(await authorize(evolutionEvent('text'), bearer(token)));
    expect(denial).not.toContain(token.split('.')[2]);
    expect(denial).not.toContain(SECRET);
  });
});

describe('authorizeEvolutionWebhook: instance without app_secret (apikey)', () => {
  it("the body's apikey equal to the instance token: granted, apikey masked", async () => {
    const body = evolutionEvent('text', { instance: 'clinica-sol', apikey: 'sol-instance-key' });
    expect(await authorize(body)).toEqual({
      body: { ...body, apikey: '***' },
      auth: { instance_id: 8, clinica_id: 4, provider: 'evolution' },
    });
  });

  it('a wrong, empty or null apikey (the server does not expose tokens): denied', async () => {
    for (const apikey of ['sol-instance-KEY', '', null]) {
      expect(await authorize(evolutionEvent('text', { instance: 'clinica-sol', apikey }))).toEqual({ denied: 'missing or wrong apikey' });
    }
    // Another instance's token is not this instance's.
    expect(await authorize(evolutionEvent('text', { instance: 'clinica-sol', apikey: TOKEN }))).toEqual({
      denied: 'missing or wrong apikey',
    });
  });

  it('an instance row with an empty token never matches an empty apikey', async () => {
    const empty = async () => ({ instance_id: 9, clinica_id: 5, token: '', app_secret: '' });
    expect(await authorizeEvolutionWebhook(evolutionEvent('text', { apikey: '' }), undefined, empty)).toEqual({
      denied: 'missing or wrong apikey',
    });
  });
});

describe('authorizeEvolutionWebhook: which instance', () => {
  it('an unknown instance, or none named: denied before any credential check', async () => {
    expect(await authorize(evolutionEvent('text', { instance: 'nope' }), bearer(jwt()))).toEqual({ denied: 'unknown Evolution instance' });
    const body = evolutionEvent('text');
    delete body.instance;
    expect(await authorize(body, bearer(jwt()))).toEqual({ denied: 'missing instance name' });
    expect(await authorize([], bearer(jwt()))).toEqual({ denied: 'body is not an Evolution event' });
  });

  it("a JWT signed with one instance's secret does not open another instance", async () => {
    rows['clinica-lua'] = { instance_id: 10, clinica_id: 6, token: 'lua-key', app_secret: 'lua-secret' };
    try {
      expect(await authorize(evolutionEvent('text', { instance: 'clinica-lua' }), bearer(jwt()))).toEqual({
        denied: 'invalid webhook JWT: bad signature',
      });
    } finally {
      delete rows['clinica-lua'];
    }
  });

  it('a lookup failure rejects (the server answers 5xx, not 401)', async () => {
    const down = async () => {
      throw new Error('database unreachable');
    };
    await expect(authorizeEvolutionWebhook(evolutionEvent('text'), undefined, down)).rejects.toThrow('database unreachable');
  });
});

describe('verifyHs256Jwt', () => {
  // The example token published on jwt.io (header {"alg":"HS256","typ":"JWT"}, payload {sub, name,
  // iat: 1516239022}, secret "your-256-bit-secret"): made by another implementation, not by our signer.
  const JWT_IO =
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

  it("checks the signature of an independently made token (jwt.io's example; it has no exp, so it is refused for that alone)", () => {
    expect(verifyHs256Jwt(JWT_IO, 'your-256-bit-secret', { nowMs: 1516239022_000 })).toEqual({ ok: false, reason: 'no expiry (exp)' });
    expect(verifyHs256Jwt(JWT_IO, 'another-secret', { nowMs: 1516239022_000 })).toEqual({ ok: false, reason: 'bad signature' });
  });

  it('accepts a valid token and returns its header and payload', () => {
    const verdict = verifyHs256Jwt(jwt(), SECRET, { nowMs: NOW });
    expect(verdict).toEqual({
      ok: true,
      header: { alg: 'HS256', typ: 'JWT' },
      payload: { iat: NOW / 1000, exp: NOW / 1000 + 600, app: 'evolution', action: 'webhook' },
    });
  });

  it('refuses padding, missing parts, crit headers, nbf in the future, an empty secret', () => {
    const token = jwt();
    expect(verifyHs256Jwt(`${token}=`, SECRET, { nowMs: NOW })).toEqual({ ok: false, reason: 'malformed token' });
    expect(verifyHs256Jwt(token.split('.').slice(0, 2).join('.'), SECRET, { nowMs: NOW })).toEqual({
      ok: false,
      reason: 'malformed token',
    });
    expect(verifyHs256Jwt(jwt({ header: { crit: ['b64'] } }), SECRET, { nowMs: NOW })).toEqual({
      ok: false,
      reason: 'critical header extensions not supported',
    });
    expect(verifyHs256Jwt(jwt({ claims: { nbf: NOW / 1000 + 3600 } }), SECRET, { nowMs: NOW })).toEqual({
      ok: false,
      reason: 'not yet valid (nbf)',
    });
    expect(verifyHs256Jwt(token, '', { nowMs: NOW })).toEqual({ ok: false, reason: 'no secret to verify with' });
  });

  it('the skew is configurable', () => {
    const token = jwt({ iat: NOW / 1000 - 610 });
    expect(verifyHs256Jwt(token, SECRET, { nowMs: NOW, clockSkewSeconds: 0 })).toEqual({ ok: false, reason: 'expired' });
    expect(verifyHs256Jwt(token, SECRET, { nowMs: NOW, clockSkewSeconds: 30 })).toMatchObject({ ok: true });
  });
});
