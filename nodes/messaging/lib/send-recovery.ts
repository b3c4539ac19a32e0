// What `gateway.send` does with a message it recorded as started and not as finished: the process
// died (or the step was interrupted) between the call and recording its answer, so the provider may
// or may not have accepted it. Sent once where the provider can tell (adapters/gateway/send-evidence.ts):
//   evidence within `waitMs`  -> the message counts as delivered (its message id from the evidence);
//   none, policy `resend`     -> sent again (at least once: the lead may get it twice);
//   none, policy `skip`       -> counted as delivered without an id (at most once: it may be lost).
// A provider that can give no evidence for the send (no evidence key) goes straight to the policy.
// Each outcome is reported to `services.sendRecoveries` (leadflow_gateway_send_recoveries_total).
import type { GatewayClient, SendTextRequest } from '../../../adapters/gateway/gateway-client.js';
import { SendEvidence } from '../../../adapters/gateway/send-evidence.js';
import type { JsonObject, JsonValue, NodeContext } from '../../../engine/types.js';
import type { ServicesOf } from '../../services.js';

/** A message the step recorded as started: its place in the step's list, its send id and typing delay (ms). */
export interface StartedSend {
  index: number;
  send_id: string;
  delay: number;
}

/** What to do with a started send the provider did not confirm (see the file's head). */
export type UnconfirmedPolicy = 'resend' | 'skip';

/** The started send recorded in a step's state (`pending`), or undefined when there is none. */
export function startedSendOf(state: JsonObject | undefined): StartedSend | undefined {
  const pending = state?.pending as Record<string, JsonValue> | undefined;
  if (!pending || typeof pending !== 'object') return undefined;
  const { index, send_id, delay } = pending;
  if (typeof index !== 'number' || typeof send_id !== 'string' || typeof delay !== 'number') return undefined;
  return { index, send_id, delay };
}

/**
 * Settles a started send (see the file's head): `{delivered: true, messageid}` when it counts as
 * delivered, `{delivered: false}` when it must go again. Rejects when the key-value store fails or
 * the step is aborted.
 */
export async function settleStartedSend(
  ctx: NodeContext<ServicesOf<'gateway' | 'instances'>>,
  client: GatewayClient,
  request: SendTextRequest,
  options: { instanceId: number; waitMs: number; policy: UnconfirmedPolicy },
): Promise<{ delivered: true; messageid: string | null } | { delivered: false }> {
  const key = client.sendEvidenceKey(request);
  const kv = ctx.services.kv;
  const found = key && kv ? await new SendEvidence(kv).waitFor(options.instanceId, key, options.waitMs, ctx.signal) : null;
  const outcome = found ? 'confirmed' : options.policy === 'skip' ? 'skipped' : 'resent';
  try {
    ctx.services.sendRecoveries?.({ provider: client.provider, outcome });
  } catch {
    // metrics never break a send
  }
  ctx.log(outcome === 'confirmed' ? 'info' : 'warn', 'gateway send found started and not finished', {
    instance_id: options.instanceId,
    outcome,
    evidence: key ? 'awaited' : 'none from this provider',
  });
  if (found) return { delivered: true, messageid: found.messageid };
  return options.policy === 'skip' ? { delivered: true, messageid: null } : { delivered: false };
}
