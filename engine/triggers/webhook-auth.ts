// Webhook authentication, checked before any execution is created.
//   secret:         X-Webhook-Secret header or ?secret= equals LEADFLOW_WEBHOOK_SECRET (when it is set).
//   form-signature: the secret as above, or a valid Typeform-Signature (`sha256=` + base64
//                   HMAC-SHA256 of the raw body) or Tally-Signature (base64 HMAC-SHA256), keyed by that secret.
//   instance-token: the secret as above when it is set, AND always the body's `token` must be the
//                   token of a registered instance (the host's InstanceTokenLookup). The flow gets what
//                   the lookup returned as `trigger.auth`; the recorded body keeps `token` as "***".
//   none:           public.
// All comparisons are constant-time. With no secret configured, `secret` and `form-signature` accept
// every request (the server warns at start); `instance-token` still checks the token.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { MASK } from '../run/mask-secrets.js';
import type { AuthMode, JsonObject, JsonValue } from '../types.js';

export interface AuthRequest {
  header(name: string): string | undefined;
  query: Record<string, unknown>;
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  // Compare against itself when lengths differ so timing does not reveal the length.
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

function hmacBase64(secret: string, raw: Buffer): string {
  return createHmac('sha256', secret).update(raw).digest('base64');
}

/** True when the request carries the shared secret (header or query). */
export function hasSecret(req: AuthRequest, secret: string): boolean {
  const header = req.header('x-webhook-secret');
  const query = typeof req.query.secret === 'string' ? req.query.secret : undefined;
  return (header !== undefined && safeEqual(header, secret)) || (query !== undefined && safeEqual(query, secret));
}

/** True when a Typeform or Tally signature over `raw` verifies with `secret`. */
export function hasFormSignature(req: AuthRequest, raw: Buffer, secret: string): boolean {
  const expected = hmacBase64(secret, raw);
  const typeform = req.header('typeform-signature');
  if (typeform !== undefined && safeEqual(typeform, `sha256=${expected}`)) return true;
  const tally = req.header('tally-signature');
  return tally !== undefined && safeEqual(tally, expected);
}

/** Whether the mode can decide before the body is read (signatures need the raw body). */
export function authorizeBeforeBody(mode: AuthMode, req: AuthRequest, secret: string | undefined): 'ok' | 'denied' | 'need-body' {
  if (mode === 'none' || !secret) return 'ok';
  if (hasSecret(req, secret)) return 'ok';
  if (mode === 'form-signature' && (req.header('typeform-signature') || req.header('tally-signature'))) return 'need-body';
  return 'denied';
}

/**
 * Host-provided for `auth: instance-token`: what the registered instance whose token equals `token`
 * (compared in constant time) hands the flow as `trigger.auth` (e.g. `{instance_id, clinica_id}`),
 * or undefined when no instance has that token. Never returns the token itself.
 */
export type InstanceTokenLookup = (token: string) => Promise<JsonObject | undefined>;

/** What an accepted instance token gives the execution: the body to record and `trigger.auth`. */
export interface InstanceTokenGrant {
  /** The body with `token` replaced by "***" (what the execution record keeps). */
  body: JsonValue;
  auth: JsonObject;
}

/**
 * `instance-token`: the body's `token` (a non-empty string) must belong to a registered instance.
 * Resolves to the grant, or undefined when the token is missing or unknown (answer 401).
 */
export async function authorizeInstanceToken(body: JsonValue, lookup: InstanceTokenLookup): Promise<InstanceTokenGrant | undefined> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const token = body.token;
  if (typeof token !== 'string' || token === '') return undefined;
  const auth = await lookup(token);
  if (!auth) return undefined;
  return { body: { ...body, token: MASK }, auth };
}
