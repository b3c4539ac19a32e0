// The inbound check of `POST /leadagent/evolution` (CONTRACT §11): which registered Evolution
// instance a webhook body comes from, and whether the request is authentic.
//   - The instance is the one whose `external_id` is the body's `instance` (EvolutionInstanceLookup).
//   - An instance with an `app_secret`: the request must carry `Authorization: Bearer <JWT>`, the
//     token Evolution signs per POST when the instance webhook's `headers.jwt_key` is that secret:
//     HS256, payload `{iat, exp: iat + 600, app: "evolution", action: "webhook"}`
//     (evolution-foundation/evolution-api tag 2.3.7, webhook.controller.ts `emit` /
//     `generateJwtToken`, added by PR #1318 and first released in 2.3.0; documented in
//     EvolutionAPI/docs-evolution PR #22: "Special key 'jwt_key' … sign a JWT token (HS256, 10min
//     expiry) … injected as 'Authorization: Bearer <token>'"; reference whatsapp-providers.md §1.4).
//     Verified by hs256-jwt.ts (signature in constant time, `exp` with a small clock skew, only
//     HS256), plus `app` and `action`. The body `apikey` is NOT accepted instead. Servers before
//     2.3.0 cannot sign: give such an instance no app_secret.
//   - An instance without `app_secret`: the body's `apikey` must equal its `token` (constant time).
//     Evolution fills `apikey` with the instance token only when AUTHENTICATION_EXPOSE_IN_FETCH_INSTANCES
//     is true, else sends null (src/api/services/channel.service.ts `sendDataWebhook`).
// The grant is `{body, auth}` (engine AuthGrant): the body with `apikey` masked as "***" and
// `auth = {instance_id, clinica_id, provider: 'evolution'}`; otherwise `{denied: reason}` (engine
// AuthDenial, answered 401). Reasons never hold a credential.
// Limits, from Evolution's design: the JWT is not bound to the body (a captured token can be
// replayed with another body until it expires: use HTTPS); Evolution retries a failed delivery (not
// a 400/401/403/404/422) up to 10 times over more than 10 minutes with the same token
// (`retryWebhookRequest`), so a retry after the token's `exp` (plus skew) is refused; the global
// webhook (env WEBHOOK_GLOBAL_*) sends no custom headers, hence no JWT: point only per-instance
// webhooks at LeadFlow.
import { constantTimeEqual } from '../../../engine/constant-time.js';
import { MASK } from '../../../engine/run/mask-secrets.js';
import type { AuthDenial } from '../../../engine/triggers/webhook-auth-mode.js';
import type { JsonObject, JsonValue } from '../../../engine/types.js';
import type { InboundInstance, InboundProvider } from '../provider-inbound.js';
import { evolutionEventSchema } from './event-schema.js';
import { verifyHs256Jwt } from './hs256-jwt.js';
import { SendEvidence } from '../send-evidence.js';
import { evolutionDeliveryReports, recordDeliveryReports } from '../delivery-statuses.js';
import { evolutionSendConfirmations } from './send-confirmations.js';

/** What the check needs of an Evolution instance row. `token` and `app_secret` are credentials: never log them. */
export interface EvolutionInstanceCredentials {
  instance_id: number;
  clinica_id: number;
  /** The instance API key (`instancias_whatsapp.token`). */
  token: string;
  /** The webhook's `jwt_key` (`instancias_whatsapp.app_secret`); empty or null: the apikey check applies. */
  app_secret?: string | null;
}

/** The Evolution instance whose `external_id` (instance name) is `externalId`, or undefined. Rejects when its store is unreachable. */
export type EvolutionInstanceLookup = (externalId: string) => Promise<EvolutionInstanceCredentials | undefined>;

/** What the flow reads as `trigger.auth`. */
export interface EvolutionAuth {
  [key: string]: number | string;
  instance_id: number;
  clinica_id: number;
  provider: 'evolution';
}

/** An authenticated Evolution request: its body (`apikey` masked) and what the flow reads as `trigger.auth`. */
export interface EvolutionGrant {
  /** The body as received, with `apikey` as "***" when it carried one. */
  body: JsonObject;
  auth: EvolutionAuth;
}

/** The clock and the tolerated skew of the JWT check (tests set both). */
export interface EvolutionAuthOptions {
  /** The current time, ms. Default Date.now(). */
  nowMs?: number;
  /** Tolerated clock difference with the Evolution server, seconds. Default 60. */
  clockSkewSeconds?: number;
}

/**
 * Authenticates one Evolution webhook request (see the file's head). `authorization` is the
 * request's Authorization header (undefined when absent).
 */
export async function authorizeEvolutionWebhook(
  body: JsonValue,
  authorization: string | undefined,
  lookup: EvolutionInstanceLookup,
  options: EvolutionAuthOptions = {},
): Promise<EvolutionGrant | AuthDenial> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { denied: 'body is not an Evolution event' };
  const name = body.instance;
  if (typeof name !== 'string' || name === '') return { denied: 'missing instance name' };
  const instance = await lookup(name);
  if (!instance) return { denied: 'unknown Evolution instance' };

  const secret = typeof instance.app_secret === 'string' ? instance.app_secret : '';
  if (secret !== '') {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    if (!match) return { denied: 'missing bearer token (the instance has a jwt_key)' };
    const verdict = verifyHs256Jwt(match[1]!, secret, {
      ...(options.nowMs !== undefined ? { nowMs: options.nowMs } : {}),
      ...(options.clockSkewSeconds !== undefined ? { clockSkewSeconds: options.clockSkewSeconds } : {}),
    });
    if (!verdict.ok) return { denied: `invalid webhook JWT: ${verdict.reason}` };
    if (verdict.payload.app !== 'evolution' || verdict.payload.action !== 'webhook')
      return { denied: 'invalid webhook JWT: not an Evolution webhook token (app, action)' };
  } else {
    const apikey = typeof body.apikey === 'string' ? body.apikey : '';
    const same = constantTimeEqual(apikey, instance.token ?? '');
    if (!same || apikey === '' || !instance.token) return { denied: 'missing or wrong apikey' };
  }

  const masked: JsonObject = { ...body };
  if (masked.apikey !== undefined && masked.apikey !== null && masked.apikey !== '') masked.apikey = MASK;
  return { body: masked, auth: { instance_id: instance.instance_id, clinica_id: instance.clinica_id, provider: 'evolution' } };
}

/**
 * `POST /leadagent/evolution`, auth mode `evolution-instance`: authorizeEvolutionWebhook with its
 * lookup served by the InboundInstanceLookup's `byExternalId('evolution', body.instance)`. One event
 * per request, its body recorded with `apikey` as "***". A malformed body answers 422
 * (evolutionEventSchema) after the check.
 */
export const evolutionInbound: InboundProvider = {
  provider: 'evolution',
  authMode: 'evolution-instance',
  description:
    "the webhook secret when it is set, and the Evolution instance named by the body's `instance`: the HS256 JWT Evolution signs with its app_secret as jwt_key (Authorization: Bearer), or, without app_secret, the body's `apikey` equal to its token",
  path: '/leadagent/evolution',
  eventSchema: evolutionEventSchema,
  async accept(request, instances, services) {
    let found: InboundInstance | undefined;
    const grant = await authorizeEvolutionWebhook(request.body, request.header('authorization'), async (name) => {
      found = await instances.byExternalId('evolution', name);
      if (!found) return undefined;
      return { instance_id: found.id, clinica_id: found.clinica_id, token: found.token, app_secret: found.app_secret };
    });
    if ('denied' in grant) return grant;
    if (!found) return { denied: 'unknown Evolution instance' };
    if (services) await new SendEvidence(services.kv).recordAll(found.id, evolutionSendConfirmations(request.body));
    // A delivery status (`messages.update`) goes to the transcript row of its message (delivery-statuses.ts).
    if (services?.db) await recordDeliveryReports(services.db, evolutionDeliveryReports(request.body));
    return { events: [{ body: grant.body, instance: found }] };
  },
};
