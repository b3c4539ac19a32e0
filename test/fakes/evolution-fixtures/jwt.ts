// Signs the JWT an Evolution API server sends as `Authorization: Bearer …` to an instance webhook
// whose `headers.jwt_key` is set: jsonwebtoken's `jwt.sign({iat, exp: iat + 600, app: 'evolution',
// action: 'webhook'}, jwt_key, {algorithm: 'HS256'})` (evolution-foundation/evolution-api tag 2.3.7,
// src/api/integrations/event/webhook/webhook.controller.ts `generateJwtToken`), i.e. the compact
// form base64url(header).base64url(payload).base64url(HMAC-SHA256) with header {"alg":"HS256","typ":"JWT"}
// (RFC 7515 §7.1). Options forge the variants tests need: other times, claims, algorithms
// (`none` leaves the signature empty), or a signature made with another secret.
import { createHmac } from 'node:crypto';

export interface EvolutionJwtOptions {
  /** Issue time, seconds. Default now. */
  iat?: number;
  /** Expiry, seconds. Default iat + 600 (Evolution's). Null leaves it out. */
  exp?: number | null;
  /** Claims replacing or adding to {iat, exp, app: 'evolution', action: 'webhook'}. */
  claims?: Record<string, unknown>;
  /** Header `alg`. Default 'HS256'. 'HS512' signs with HMAC-SHA512; 'none' sends no signature; anything else signs with HS256 anyway. */
  alg?: string;
  /** Extra header members. */
  header?: Record<string, unknown>;
  /** Current time, ms, for the default iat. Default Date.now(). */
  nowMs?: number;
}

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

export function signEvolutionJwt(secret: string, options: EvolutionJwtOptions = {}): string {
  const iat = options.iat ?? Math.floor((options.nowMs ?? Date.now()) / 1000);
  const exp = options.exp === undefined ? iat + 600 : options.exp;
  const alg = options.alg ?? 'HS256';
  const header = b64url(JSON.stringify({ alg, typ: 'JWT', ...options.header }));
  const payload = b64url(JSON.stringify({ iat, ...(exp === null ? {} : { exp }), app: 'evolution', action: 'webhook', ...options.claims }));
  if (alg === 'none') return `${header}.${payload}.`;
  const hash = alg === 'HS512' ? 'sha512' : 'sha256';
  const signature = createHmac(hash, secret).update(`${header}.${payload}`).digest('base64url');
  return `${header}.${payload}.${signature}`;
}
