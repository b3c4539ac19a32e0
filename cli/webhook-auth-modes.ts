// The webhook authentication modes LeadFlow registers besides the engine's `none` and `secret`:
// `form-signature` (adapters/forms), and one per gateway provider (adapters/gateway/providers.ts),
// each built from the provider's inbound side by providerAuthMode: `instance-token` (uazapi,
// `POST /leadagent`), `evolution-instance` (Evolution, `POST /leadagent/evolution`) and
// `cloud-signature` (Cloud API, `POST /leadagent/cloud`).
import { formSignatureAuth } from '../adapters/forms/form-signature-auth.js';
import { type InboundInstanceLookup, type InboundServices, providerAuthMode } from '../adapters/gateway/provider-inbound.js';
import { gatewayProviders } from '../adapters/gateway/providers.js';
import { WebhookAuthModes } from '../engine/triggers/auth-modes.js';

/**
 * The host's modes; `instances` finds the instance an inbound gateway request names (by token,
 * external id, verify token); `services` lets a provider's route act on what a request reports
 * besides messages (Cloud: a late 131047 answered with the template).
 */
export function hostAuthModes(instances: InboundInstanceLookup, services?: InboundServices): WebhookAuthModes {
  return new WebhookAuthModes([
    formSignatureAuth,
    ...gatewayProviders.inbound().map((inbound) => providerAuthMode(inbound, instances, services)),
  ]);
}

/** The same modes for checking flows as they load, before any database is open: no instance resolves. */
export function loadTimeAuthModes(): WebhookAuthModes {
  const closed = async (): Promise<never> => {
    throw new Error('gateway instances are not looked up while flows load');
  };
  return hostAuthModes({ byToken: closed, byExternalId: closed, byVerifyToken: closed });
}
