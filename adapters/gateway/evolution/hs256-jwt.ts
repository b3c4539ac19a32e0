// Verification of a compact JWS/JWT signed with HMAC-SHA256 (RFC 7515 §3.1, RFC 7518 §3.2, RFC 7519
// §4.1.4-4.1.6), with node:crypto only. What Evolution API signs for its webhooks: jsonwebtoken's
// `jwt.sign(payload, jwt_key, {algorithm: 'HS256'})`, header `{"alg":"HS256","typ":"JWT"}`
// (evolution-foundation/evolution-api tag 2.3.7, webhook.controller.ts `generateJwtToken`).
//
// Accepted only when all hold:
//   - three base64url segments without padding, the header and payload JSON objects;
//   - header `alg` is exactly "HS256" (so `none`, HS384/512, RS256 … are refused: the algorithm is
//     fixed by the verifier, never chosen by the token), and no `crit` header;
//   - the signature equals HMAC-SHA256(secret as UTF-8, "<header>.<payload>"), compared in constant
//     time (engine/constant-time.ts);
//   - `exp` is a number and now < exp + skew; `nbf`, when present, <= now + skew; `iat`, when present,
//     <= now + skew (a token issued in the future is refused). Times are NumericDate seconds.
// `clockSkewSeconds` defaults to 60. Reasons never quote the token or the secret.
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../../../engine/constant-time.js';
import type { JsonObject } from '../../../engine/types.js';

/** The clock and the tolerated skew of verifyHs256Jwt. */
export interface Hs256VerifyOptions {
  /** The current time, ms. Default Date.now(). */
  nowMs?: number;
  /** Tolerated clock difference with the signer, seconds. Default 60. */
  clockSkewSeconds?: number;
}

/** verifyHs256Jwt's answer: the token's header and payload, or why it is refused (never quoting the token or the secret). */
export type Hs256Verdict = { ok: true; header: JsonObject; payload: JsonObject } | { ok: false; reason: string };

const SEGMENT = /^[A-Za-z0-9_-]*$/;

function jsonSegment(segment: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `token` is a valid, current HS256 JWT signed with `secret` (see the file's head). */
export function verifyHs256Jwt(token: string, secret: string, options: Hs256VerifyOptions = {}): Hs256Verdict {
  if (typeof secret !== 'string' || secret === '') return { ok: false, reason: 'no secret to verify with' };
  if (typeof token !== 'string' || token.length > 8192) return { ok: false, reason: 'malformed token' };
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p)) || parts[0] === '' || parts[1] === '')
    return { ok: false, reason: 'malformed token' };
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const header = jsonSegment(encodedHeader);
  const payload = jsonSegment(encodedPayload);
  if (!header || !payload) return { ok: false, reason: 'malformed token' };
  if (header.alg !== 'HS256')
    return { ok: false, reason: `algorithm ${JSON.stringify(String(header.alg ?? '').slice(0, 16))} not accepted` };
  if ('crit' in header) return { ok: false, reason: 'critical header extensions not supported' };
  const expected = createHmac('sha256', secret).update(`${encodedHeader}.${encodedPayload}`).digest();
  const given = Buffer.from(encodedSignature, 'base64url');
  if (!constantTimeEqual(given, expected)) return { ok: false, reason: 'bad signature' };

  const now = (options.nowMs ?? Date.now()) / 1000;
  const skew = options.clockSkewSeconds ?? 60;
  const { exp, nbf, iat } = payload;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return { ok: false, reason: 'no expiry (exp)' };
  if (now >= exp + skew) return { ok: false, reason: 'expired' };
  if (nbf !== undefined && (typeof nbf !== 'number' || now + skew < nbf)) return { ok: false, reason: 'not yet valid (nbf)' };
  if (iat !== undefined && (typeof iat !== 'number' || now + skew < iat)) return { ok: false, reason: 'issued in the future (iat)' };
  return { ok: true, header, payload };
}
