// A late 131047: Meta accepted a free text (200 with its wamid) and then reported, in a `failed`
// status (reference whatsapp-providers.md §2.6), that it went outside the lead's 24-hour window. The
// template of the text's purpose goes instead, once, as the synchronous 131047 does (windowed-send.ts).
//
// Where: the Cloud route itself (auth.ts), after the signature and the shape are checked and before
// the request is answered; statuses start no execution, so nothing else would see it. For each
// failed status of a known instance with error 131047:
//   1. the send's note (sent-text-notes.ts) is taken, atomically: none (a text that named no
//      template, a note expired or erased, or a status already handled: a redelivery, a duplicate)
//      -> nothing;
//   2. one template per send: several paragraphs of one send refused late send it once (a dedupe mark
//      per send group, kept as long as the notes);
//   3. the instance's template for the purpose, to the status's `recipient_id`, with the noted
//      parameters (an instance without one for it: logged, nothing sent).
// A send that fails is logged (the note is gone: nothing sends it later); a key-value store or
// database that fails rejects, so the route answers 5xx and Meta delivers the request again.
import type { GatewayClientFactory } from '../gateway-client.js';
import type { InstanceDirectory } from '../instance-directory.js';
import type { KeyValue } from '../../kv/key-value.js';
import { OUTSIDE_WINDOW_CODE } from './error-codes.js';
import type { CloudStatusFailure } from './events.js';
import { NOTE_TTL_MS, type SentTextNote, SentTextNotes } from './sent-text-notes.js';

/** What answering a late refusal needs: the store of the notes, the instances and their clients, and where it logs. */
export interface LateFailureServices {
  kv: KeyValue;
  gateway: GatewayClientFactory;
  instances: InstanceDirectory;
  logger?: { info(fields: object, message: string): void; warn(fields: object, message: string): void };
}

/**
 * Sends the template for each failed status of `failures` refused as outside the window (131047)
 * whose send was noted, once (see the file's head). `instanceOf` gives the instance id of a phone
 * number id (undefined: not one of ours). Resolves to how many templates went.
 */
export async function answerLateOutsideWindow(
  failures: readonly CloudStatusFailure[],
  instanceOf: (phoneNumberId: string) => number | undefined,
  services: LateFailureServices,
): Promise<number> {
  const notes = new SentTextNotes(services.kv);
  let sent = 0;
  for (const failure of failures) {
    if (failure.code !== OUTSIDE_WINDOW_CODE || failure.message_id === '' || failure.recipient === '') continue;
    const instanceId = instanceOf(failure.phone_number_id);
    if (instanceId === undefined) continue;
    const note = await notes.take(instanceId, failure.message_id);
    if (!note) continue;
    if (note.group !== '' && !(await services.kv.dedupe(`cloud-late-template:${instanceId}:${note.group}`, NOTE_TTL_MS))) continue;
    if (await sendTemplate(instanceId, failure.recipient, note, services)) sent++;
  }
  return sent;
}

/** The instance's template for `note`'s purpose to `number`; false when none went (logged). */
async function sendTemplate(instanceId: number, number: string, note: SentTextNote, services: LateFailureServices): Promise<boolean> {
  const instance = await services.instances.get(instanceId);
  const template = instance?.templates?.[note.purpose];
  const fields = { instance_id: instanceId, purpose: note.purpose };
  if (!instance || !template) {
    services.logger?.warn(fields, 'late 131047: the instance has no template for that purpose, nothing sent');
    return false;
  }
  const client = services.gateway(instance);
  if (!client.sendTemplate) return false;
  try {
    await client.sendTemplate({ number, template, parameters: note.parameters });
  } catch (err) {
    services.logger?.warn({ ...fields, error: (err as Error).message }, 'late 131047: the template could not be sent');
    return false;
  }
  services.logger?.info({ ...fields, template: template.name }, 'late 131047: the template went instead of the refused text');
  return true;
}
