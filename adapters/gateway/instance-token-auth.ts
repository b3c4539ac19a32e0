// `auth: instance-token`, for the gateway's inbound events (`POST /leadagent`, CONTRACT §4): the
// shared secret as for `auth: secret` when it is set, AND always the body's `token` must be the token
// of a registered instance (InstanceTokenLookup; the database one is instance-token-lookup.ts). The
// flow gets what the lookup returned as `trigger.auth`; the recorded body keeps `token` as "***".
import { MASK } from '../../engine/run/mask-secrets.js';
import { sharedSecretDecision } from '../../engine/triggers/webhook-auth.js';
import type { AuthGrant, WebhookAuthMode } from '../../engine/triggers/webhook-auth-mode.js';
import type { JsonObject, JsonValue } from '../../engine/types.js';

/**
 * What the registered instance whose token equals `token` (compared in constant time) hands the flow
 * as `trigger.auth` (e.g. `{instance_id, clinica_id}`), or undefined when no instance has that token.
 * Never returns the token itself. Rejects when its store is unreachable.
 */
export type InstanceTokenLookup = (token: string) => Promise<JsonObject | undefined>;

/**
 * The body's `token` (a non-empty string) must belong to a registered instance. Resolves to the grant
 * (the body with `token` as "***", and the lookup's answer as `auth`), or undefined when the token is
 * missing or unknown (answer 401). Used by the webhook and by `leadflow run`.
 */
export async function authorizeInstanceToken(
  body: JsonValue,
  lookup: InstanceTokenLookup,
): Promise<Required<Pick<AuthGrant, 'body' | 'auth'>> | undefined> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const token = body.token;
  if (typeof token !== 'string' || token === '') return undefined;
  const auth = await lookup(token);
  if (!auth) return undefined;
  return { body: { ...body, token: MASK }, auth };
}

/** The `instance-token` webhook auth mode, resolving tokens with `lookup`. */
export function instanceTokenAuth(lookup: InstanceTokenLookup): WebhookAuthMode {
  return {
    name: 'instance-token',
    description: "the webhook secret when it is set, and always the body's `token` of a registered gateway instance",
    beforeBody: sharedSecretDecision,
    withBody: async (_req, body) => (await authorizeInstanceToken(body, lookup)) ?? { denied: 'missing or unknown instance token' },
  };
}
