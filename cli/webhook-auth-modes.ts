// The webhook authentication modes LeadFlow registers besides the engine's `none` and `secret`:
// `form-signature` (adapters/forms) and `instance-token` (adapters/gateway).
import { formSignatureAuth } from '../adapters/forms/form-signature-auth.js';
import { instanceTokenAuth, type InstanceTokenLookup } from '../adapters/gateway/instance-token-auth.js';
import { WebhookAuthModes } from '../engine/triggers/auth-modes.js';

/** The host's modes; `instanceTokens` resolves the tokens of `auth: instance-token` webhooks. */
export function hostAuthModes(instanceTokens: InstanceTokenLookup): WebhookAuthModes {
  return new WebhookAuthModes([formSignatureAuth, instanceTokenAuth(instanceTokens)]);
}

/** The same modes for checking flows as they load, before any database is open: no token resolves. */
export function loadTimeAuthModes(): WebhookAuthModes {
  return hostAuthModes(async () => {
    throw new Error('instance tokens are not resolved while flows load');
  });
}
