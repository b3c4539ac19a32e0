// The webhook authentication modes the engine ships (the contract: webhook-auth-mode.ts):
//   secret: X-Webhook-Secret header or ?secret= equals LEADFLOW_WEBHOOK_SECRET (when it is set).
//   none:   public.
// Every comparison is constant-time. With no secret configured, `secret` accepts every request (the
// server warns at start). Hosts register further modes (WebhookAuthModes); those that also accept
// the shared secret build on `hasSecret`.
import { constantTimeMatcher } from '../constant-time.js';
import type { AuthRequest, BeforeBodyDecision, WebhookAuthContext, WebhookAuthMode } from './webhook-auth-mode.js';

/** The matcher of the last secret checked (a process has one: its digest is computed once, not per request). */
let lastSecret: { secret: string; matches: (candidate: string) => boolean } | undefined;

function secretMatcher(secret: string): (candidate: string) => boolean {
  if (lastSecret?.secret !== secret) lastSecret = { secret, matches: constantTimeMatcher(secret) };
  return lastSecret.matches;
}

/**
 * True when the request carries `secret` as the `X-Webhook-Secret` header or as the `secret` query
 * parameter (each compared in constant time). Never throws.
 */
export function hasSecret(req: AuthRequest, secret: string): boolean {
  const header = req.header('x-webhook-secret');
  if (header !== undefined && secretMatcher(secret)(header)) return true;
  const query = typeof req.query.secret === 'string' ? req.query.secret : undefined;
  return query !== undefined && secretMatcher(secret)(query);
}

/** `ok` when no shared secret is configured or the request carries it, else `denied`. */
export function sharedSecretDecision(req: AuthRequest, ctx: WebhookAuthContext): BeforeBodyDecision {
  return !ctx.secret || hasSecret(req, ctx.secret) ? 'ok' : 'denied';
}

/** `auth: none`: every request is accepted; the body is recorded as sent. */
export const noneAuth: WebhookAuthMode = {
  name: 'none',
  description: 'public: every request is accepted',
};

/** `auth: secret` (the default): the shared secret as header or query, when one is configured. */
export const secretAuth: WebhookAuthMode = {
  name: 'secret',
  description: 'X-Webhook-Secret header or ?secret= must equal LEADFLOW_WEBHOOK_SECRET when it is set',
  beforeBody: sharedSecretDecision,
};
