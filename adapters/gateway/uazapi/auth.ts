// uazapi's inbound route (CONTRACT §4): `POST /leadagent`, auth mode `instance-token`. The body's
// `token` names the instance: it must be a registered uazapi instance's (compared in constant time by
// the lookup, inbound-instances.ts); an Evolution or Cloud instance's token never authenticates a
// uazapi event. The recorded body keeps the token as "***". With the host's services, the echo of a
// message LeadFlow sent (its tracking tags) is recorded as that send's evidence (send-evidence.ts), and
// a message update's delivery status is written to the transcript (delivery-statuses.ts).
import { MASK } from '../../../engine/run/mask-secrets.js';
import type { JsonObject } from '../../../engine/types.js';
import type { InboundProvider } from '../provider-inbound.js';
import { uazapiEventSchema } from './event-schema.js';
import { SendEvidence } from '../send-evidence.js';
import { recordDeliveryReports, uazapiDeliveryReports } from '../delivery-statuses.js';
import { uazapiSendConfirmations } from './send-confirmations.js';

const DENIED = 'missing or unknown instance token';

/**
 * `POST /leadagent`: the body's `token` (a non-empty string) must be a registered uazapi instance's;
 * the recorded body keeps it as "***". One event per request. Its body must be a uazapi event
 * (event-schema.ts: 422 otherwise, after the token check).
 */
export const uazapiInbound: InboundProvider = {
  provider: 'uazapi',
  authMode: 'instance-token',
  description: "the webhook secret when it is set, and always the body's `token` of a registered uazapi instance",
  path: '/leadagent',
  eventSchema: uazapiEventSchema,
  async accept(request, instances, services) {
    const body = request.body;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return { denied: DENIED };
    const token = (body as JsonObject).token;
    if (typeof token !== 'string' || token === '') return { denied: DENIED };
    const instance = await instances.byToken('uazapi', token);
    if (!instance) return { denied: DENIED };
    if (services) await new SendEvidence(services.kv).recordAll(instance.id, uazapiSendConfirmations(body));
    if (services?.db) await recordDeliveryReports(services.db, uazapiDeliveryReports(body));
    return { events: [{ body: { ...(body as JsonObject), token: MASK }, instance }] };
  },
};
