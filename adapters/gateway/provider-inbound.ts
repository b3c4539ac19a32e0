// The inbound side of a gateway provider (CONTRACT §11, "Inbound"): how its webhook requests are
// authenticated and split into events, and the GET some providers call to verify a webhook URL.
// Each provider module exports an InboundProvider; the host turns each into a webhook auth mode
// (providerAuthMode, registered by cli/webhook-auth-modes.ts under `authMode`) and mounts each
// `verification` GET beside the webhooks (cli/gateway-routes.ts). The agent flow then names the
// modes on its routes (`trigger.webhook.routes`), and the engine never learns which vendor it is.
//
// What the adapter does around a provider's `accept`, in order (engine/triggers/webhook-pipeline.ts):
//   LEADFLOW_WEBHOOK_SECRET when set (header X-Webhook-Secret or ?secret=)   -> 401 without it
//   accept(request, instances)                                              -> {denied}: 401, nothing recorded
//     each event: its body as recorded (credentials masked) and its instance -> trigger.body, and
//     trigger.auth = {instance_id, clinica_id, provider}
//   eventSchema, when given, per event                                      -> 422 naming each path
//   one execution per event, in order; 0 events: 200 {status: accepted, executions: 0}
// `accept` never logs or returns a credential; it rejects (500, or 503 when the database is down)
// only when the lookup fails.
import type { AuthRequest, WebhookAuthMode } from '../../engine/triggers/webhook-auth-mode.js';
import { compileInputSchema } from '../../engine/run/param-validator.js';
import { sharedSecretDecision } from '../../engine/triggers/webhook-auth.js';
import type { JsonValue } from '../../engine/types.js';
import type { GatewayProvider } from './providers.js';
import type { GatewayClientFactory } from './gateway-client.js';
import type { InstanceDirectory } from './instance-directory.js';
import type { TableOperations } from '../db/table-ops.js';
import type { KeyValue } from '../kv/key-value.js';

/** One registered instance, as an inbound check needs it. Holds credentials: never log, record or return it. */
export interface InboundInstance {
  id: number;
  clinica_id: number;
  provider: GatewayProvider;
  nome: string;
  /** Evolution: the instance name; Cloud: the phone number id; uazapi: null. */
  external_id: string | null;
  /** uazapi / Evolution: the instance token (API key); Cloud: the access token. */
  token: string;
  /** Cloud: the app secret that signs webhooks; Evolution: the webhook's `jwt_key`. */
  app_secret: string | null;
  /** Cloud: the webhook verification token. */
  verify_token: string | null;
}

/**
 * Finds the registered instance an inbound request names. `byToken` and `byVerifyToken` compare the
 * credential with every instance's in constant time (the answer time does not tell which, or whether,
 * one matched); `byExternalId` is an indexed lookup (an external id is no secret). Each resolves to
 * undefined when no instance of `provider` matches (also for ''), and rejects only when the database
 * fails. The database implementation: inbound-instances.ts.
 */
export interface InboundInstanceLookup {
  byToken(provider: GatewayProvider, token: string): Promise<InboundInstance | undefined>;
  byExternalId(provider: GatewayProvider, externalId: string): Promise<InboundInstance | undefined>;
  byVerifyToken(provider: GatewayProvider, verifyToken: string): Promise<InboundInstance | undefined>;
}

/** One webhook request as a provider's `accept` sees it. */
export interface InboundRequest extends AuthRequest {
  /** The body as received: the bytes a signature covers (e.g. Cloud's X-Hub-Signature-256). */
  raw: Buffer;
  /** The body parsed as JSON. */
  body: JsonValue;
}

/**
 * What the host lends a provider's inbound side to act on what a request reports besides its messages
 * (Cloud: a text Meta refused late as outside the 24-hour window is answered with the template,
 * cloud/late-failures.ts): the key-value store, the instances and their clients, where it logs.
 * Absent (e.g. flows checked as they load): such reports are left alone.
 */
export interface InboundServices {
  kv: KeyValue;
  gateway: GatewayClientFactory;
  instances: InstanceDirectory;
  /** The database: delivery statuses are written to the transcript (delivery-statuses.ts); absent: not. */
  db?: Pick<TableOperations, 'find' | 'update'>;
  logger?: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
}

/** One event of a request: one message for the flow. */
export interface InboundEvent {
  /** What the execution records as `trigger.body` and `gateway.parse` reads: any credential it carried masked ("***"). */
  body: JsonValue;
  /** The registered instance it came to (its `id`, `clinica_id` and `provider` become `trigger.auth`). */
  instance: InboundInstance;
}

/**
 * `accept`'s answer: `{denied}` (401; the reason is logged as `webhook rejected: <denied>`, never a
 * credential), or the request's events: one per message; none for a request that holds no message
 * (delivery or read receipts: 200, nothing starts).
 */
export type InboundAcceptance = { denied: string } | { events: InboundEvent[] };

/** The answer of a verification GET (e.g. Cloud's `hub.challenge`), sent as is. */
export interface VerificationAnswer {
  status: number;
  contentType: string;
  body: string;
}

/** A GET the provider sends to check the webhook URL before it posts events (Cloud API's `hub.*` handshake). */
export interface InboundVerification {
  /** The route, e.g. `/leadagent/cloud`. */
  path: string;
  /**
   * The answer to one GET, from its query (one string per name, as received). Never throws for a
   * bad query (answer 403 or 422); rejects only when the lookup fails.
   */
  answer(query: Record<string, unknown>, instances: InboundInstanceLookup): Promise<VerificationAnswer>;
}

/** The inbound side of one provider. */
export interface InboundProvider {
  readonly provider: GatewayProvider;
  /** The webhook auth mode flows name on this provider's route (`instance-token`, `evolution-instance`, `cloud-signature`). */
  readonly authMode: string;
  /** One sentence on what a request must carry (listed with the auth modes). */
  readonly description: string;
  /** The POST route its events arrive on (CONTRACT §11), e.g. `/leadagent/evolution`: for docs, logs and tests. */
  readonly path: string;
  /** Header names carrying its credentials (never recorded), e.g. `x-hub-signature-256`. */
  readonly headersNeverRecorded?: readonly string[];
  /** Largest request body its route accepts, bytes; absent: the webhook app's 1 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * JSON Schema of one event's `body` (as `accept` returns it): a mismatch answers 422 with each
   * path before anything is recorded. Absent: the parse step alone judges the shape.
   */
  readonly eventSchema?: Record<string, unknown>;
  /**
   * Authenticates one request and splits it into events (see InboundAcceptance); with `services`, it
   * may also act on what the request reports besides messages (a rejection answers 5xx).
   */
  accept(request: InboundRequest, instances: InboundInstanceLookup, services?: InboundServices): Promise<InboundAcceptance>;
  /** The provider's verification GET, when it has one. */
  readonly verification?: InboundVerification;
}

/**
 * The webhook auth mode of `inbound` (named `inbound.authMode`): the shared secret when it is set,
 * then `accept` (lent `services` when given). Each event becomes its own execution with
 * `trigger.auth = {instance_id, clinica_id, provider}`; with exactly one the flow answers as usual.
 */
export function providerAuthMode(inbound: InboundProvider, instances: InboundInstanceLookup, services?: InboundServices): WebhookAuthMode {
  // Compiled now, with the host's routes, rather than at the first request.
  if (inbound.eventSchema) compileInputSchema(inbound.eventSchema);
  return {
    name: inbound.authMode,
    description: inbound.description,
    ...(inbound.headersNeverRecorded ? { headersNeverRecorded: inbound.headersNeverRecorded } : {}),
    ...(inbound.maxBodyBytes ? { maxBodyBytes: inbound.maxBodyBytes } : {}),
    beforeBody: sharedSecretDecision,
    async withBody(req, body, _ctx, raw) {
      const accepted = await inbound.accept({ header: (name) => req.header(name), query: req.query, raw, body }, instances, services);
      if ('denied' in accepted) return accepted;
      return {
        events: accepted.events.map((event) => ({
          body: event.body,
          auth: { instance_id: event.instance.id, clinica_id: event.instance.clinica_id, provider: event.instance.provider },
          ...(inbound.eventSchema ? { input: inbound.eventSchema } : {}),
        })),
      };
    },
  };
}
