// `auth: form-signature`, for form builders' webhooks (Typeform, Tally): the shared secret as for
// `auth: secret`, or the builder's HMAC signature of the raw body keyed by that secret:
//   Typeform-Signature: `sha256=` + base64 HMAC-SHA256;   Tally-Signature: base64 HMAC-SHA256.
// With no secret configured every request is accepted (as for `secret`). Signatures are compared in
// constant time and are never recorded.
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../../engine/constant-time.js';
import { hasSecret } from '../../engine/triggers/webhook-auth.js';
import type { AuthRequest, WebhookAuthMode } from '../../engine/triggers/webhook-auth-mode.js';

const TYPEFORM_HEADER = 'typeform-signature';
const TALLY_HEADER = 'tally-signature';

function hmacBase64(secret: string, raw: Buffer): string {
  return createHmac('sha256', secret).update(raw).digest('base64');
}

/** True when a Typeform or Tally signature over `raw` verifies with `secret`. */
export function hasFormSignature(req: AuthRequest, raw: Buffer, secret: string): boolean {
  const expected = hmacBase64(secret, raw);
  const typeform = req.header(TYPEFORM_HEADER);
  if (typeform !== undefined && constantTimeEqual(typeform, `sha256=${expected}`)) return true;
  const tally = req.header(TALLY_HEADER);
  return tally !== undefined && constantTimeEqual(tally, expected);
}

/** The `form-signature` webhook auth mode (registered by the host, cli/webhook-auth-modes.ts). */
export const formSignatureAuth: WebhookAuthMode = {
  name: 'form-signature',
  description: 'the webhook secret as for `secret`, or a Typeform/Tally HMAC signature of the raw body made with it',
  headersNeverRecorded: [TYPEFORM_HEADER, TALLY_HEADER],
  beforeBody(req, { secret }) {
    if (!secret || hasSecret(req, secret)) return 'ok';
    return req.header(TYPEFORM_HEADER) || req.header(TALLY_HEADER) ? 'need-body' : 'denied';
  },
  verifyRawBody: (req, raw, { secret }) => secret !== undefined && hasFormSignature(req, raw, secret),
};
