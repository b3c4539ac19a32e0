// Webhook authentication, checked before the body is parsed or any work is done.
//   secret:         X-Webhook-Secret header or ?secret= equals LEADFLOW_WEBHOOK_SECRET (when it is set).
//   form-signature: the secret as above, or a valid Typeform-Signature (`sha256=` + base64
//                   HMAC-SHA256 of the raw body) or Tally-Signature (base64 HMAC-SHA256), keyed by that secret.
//   none:           public.
// All comparisons are constant-time. With no secret configured, `secret` and `form-signature` accept
// every request (the server warns at start).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AuthMode } from '../types.js';

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
