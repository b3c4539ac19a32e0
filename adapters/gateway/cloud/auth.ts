// The Cloud API's inbound route (CONTRACT §11): `POST /leadagent/cloud`, auth mode `cloud-signature`,
// and the webhook verification `GET /leadagent/cloud`.
//
// accept(), in order:
//   1. X-Hub-Signature-256 over the raw bytes, with the `app_secret` of the instance whose
//      `external_id` is each phone number id the body names (authenticateCloudWebhook: every id a
//      known Cloud instance, the signature verifying with each one's secret) -> else {denied} (401)
//   2. the body split into events: one per message (`value.messages[]`) and per Coexistence echo
//      (`value.message_echoes[]`), in body order, each event's body the envelope reduced to that one
//      message (its entry, its change's metadata and contacts): what parseCloudMessage reads.
//      Statuses (sent, delivered, read, failed), errors and other fields start nothing: a request of
//      statuses only is 0 events (200 {status: accepted, executions: 0}).
//   3. each event's instance: the one whose external_id is its change's phone number id.
//   4. with the host's services: a `failed` status with error 131047 (a text Meta accepted, then
//      refused as outside the 24-hour window) sends the template of that text's purpose, once
//      (late-failures.ts), before the request is answered; every other status carrying LeadFlow's
//      send id (`biz_opaque_callback_data`) is recorded as that send's evidence (send-evidence.ts), and
//      every status is written to the transcript row of its message (delivery-statuses.ts).
//   A signed body that is not a Cloud webhook (cloudEventSchema, event-schema.ts: e.g. `object` not
//   "whatsapp_business_account", a list that is not an array, a message without `id`) is one event,
//   the whole body, which the route's `eventSchema` (the same schema) refuses: 422 `{error: "invalid
//   input", details: [{path, message}]}`, before anything is recorded. A body naming no phone number
//   id (`{}`, no `entry`, `changes` not an array) cannot be tied to an instance's app secret: 401.
// Nothing in a Cloud body is a credential: bodies are recorded as received. The signature header is
// never recorded (headersNeverRecorded).
//
// Body size: Meta batches up to 1000 updates per POST and its bodies may reach 3 MB: this route
// reads up to CLOUD_MAX_BODY_BYTES (4 MiB; the other webhooks 1 MiB) and answers 413 above it.
import type { JsonObject, JsonValue } from '../../../engine/types.js';
import type { InboundEvent, InboundInstance, InboundProvider } from '../provider-inbound.js';
import { eventProblems } from '../event-problems.js';
import { cloudEventSchema } from './event-schema.js';
import { answerLateOutsideWindow } from './late-failures.js';
import { SendEvidence } from '../send-evidence.js';
import { cloudDeliveryReports, recordDeliveryReports } from '../delivery-statuses.js';
import { cloudSendConfirmations } from './send-confirmations.js';
import { parseCloudWebhook } from './events.js';
import { authenticateCloudWebhook } from './signature.js';
import { verifyCloudSubscription } from './verification.js';

/** The route of both the verification GET and the events. */
export const CLOUD_PATH = '/leadagent/cloud';
const SIGNATURE_HEADER = 'x-hub-signature-256';

type Obj = Record<string, JsonValue>;
const asObj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const asArr = (v: unknown): JsonValue[] => (Array.isArray(v) ? (v as JsonValue[]) : []);

/** One message of a webhook body: its phone number id and the envelope reduced to it. */
export interface CloudEventPart {
  phoneNumberId: string;
  body: JsonObject;
}

/**
 * The messages and echoes of a Cloud webhook body, each as an envelope holding only it (entry id,
 * change field, `messaging_product`, `metadata`, `contacts` kept), in body order. Statuses and
 * errors are left out. A body without the envelope's shape gives [].
 */
export function splitCloudWebhook(body: unknown): CloudEventPart[] {
  const root = asObj(body);
  if (!root) return [];
  const parts: CloudEventPart[] = [];
  for (const entry of asArr(root.entry)) {
    const e = asObj(entry);
    if (!e) continue;
    for (const change of asArr(e.changes)) {
      const c = asObj(change);
      const value = asObj(c?.value);
      if (!c || !value) continue;
      const key = c.field === 'messages' ? 'messages' : c.field === 'smb_message_echoes' ? 'message_echoes' : undefined;
      if (!key) continue;
      const phoneNumberId = asObj(value.metadata)?.phone_number_id;
      for (const message of asArr(value[key])) {
        const reduced: Obj = {
          ...(value.messaging_product !== undefined ? { messaging_product: value.messaging_product } : {}),
          ...(value.metadata !== undefined ? { metadata: value.metadata } : {}),
          ...(value.contacts !== undefined ? { contacts: value.contacts } : {}),
          [key]: [message],
        };
        parts.push({
          phoneNumberId: typeof phoneNumberId === 'string' ? phoneNumberId : '',
          body: {
            object: root.object ?? null,
            entry: [{ ...(e.id !== undefined ? { id: e.id } : {}), changes: [{ field: c.field ?? null, value: reduced }] }],
          },
        });
      }
    }
  }
  return parts;
}

/** Largest Cloud webhook body read, bytes: Meta's documented 3 MB with room to spare. */
export const CLOUD_MAX_BODY_BYTES = 4 * 1024 * 1024;

/** The Cloud API's inbound side: `POST /leadagent/cloud` (`cloud-signature`, bodies up to 4 MiB, one event per message) and its verification GET (see the file's head). */
export const cloudInbound: InboundProvider = {
  provider: 'cloud',
  authMode: 'cloud-signature',
  description:
    'the webhook secret when it is set, and always X-Hub-Signature-256 (HMAC-SHA256 of the raw body) with the app secret of the Cloud API instance whose phone number id the event names',
  path: CLOUD_PATH,
  headersNeverRecorded: [SIGNATURE_HEADER],
  maxBodyBytes: CLOUD_MAX_BODY_BYTES,
  eventSchema: cloudEventSchema,
  async accept(request, instances, services) {
    const found = new Map<string, InboundInstance | undefined>();
    const verdict = await authenticateCloudWebhook(request.raw, request.header(SIGNATURE_HEADER), async (id) => {
      const instance = await instances.byExternalId('cloud', id);
      found.set(id, instance);
      return instance?.app_secret;
    });
    if (!verdict.ok) return { denied: verdict.reason };
    const named = (verdict.phone_number_ids.map((id) => found.get(id)).filter(Boolean) as InboundInstance[])[0]!;
    // Not a Cloud webhook: the whole body as the one event, which the route's eventSchema answers 422.
    if (eventProblems(cloudEventSchema, request.body)) return { events: [{ body: request.body, instance: named }] };
    const events: InboundEvent[] = [];
    for (const part of splitCloudWebhook(request.body)) events.push({ body: part.body, instance: found.get(part.phoneNumberId) ?? named });
    if (services) {
      const { failures } = parseCloudWebhook(request.body);
      if (failures.length > 0) await answerLateOutsideWindow(failures, (id) => found.get(id)?.id, services);
      const evidence = new SendEvidence(services.kv);
      for (const confirmed of cloudSendConfirmations(request.body)) {
        const instance = found.get(confirmed.phone_number_id);
        if (instance) await evidence.record(instance.id, confirmed.key, confirmed.messageid);
      }
      if (services.db) await recordDeliveryReports(services.db, cloudDeliveryReports(request.body));
    }
    return { events };
  },
  verification: {
    path: CLOUD_PATH,
    async answer(query, instances) {
      const result = await verifyCloudSubscription(query, async (token) => (await instances.byVerifyToken('cloud', token)) !== undefined);
      if (result.status === 200) return { status: 200, contentType: 'text/plain', body: result.body };
      return { status: 403, contentType: 'text/plain', body: 'forbidden' };
    },
  },
};
