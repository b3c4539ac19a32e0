// What a uazapi webhook body confirms of LeadFlow's sends (send-evidence.ts): the echo of a message
// sent through the API (`message.wasSentByApi` true) that carries LeadFlow's tracking tags
// (`track_source` "leadflow", `track_id` the send id) confirms that send, under its message id.
// Any other body confirms nothing. Never throws.
import type { JsonValue } from '../../../engine/types.js';
import { idEvidenceKey, type SendConfirmed } from '../send-evidence.js';
import { UAZAPI_TRACK_SOURCE } from './client.js';

/** The sends a uazapi webhook body confirms (see the file's head): none or one. */
export function uazapiSendConfirmations(body: JsonValue): SendConfirmed[] {
  const message = body && typeof body === 'object' && !Array.isArray(body) ? body.message : undefined;
  if (!message || typeof message !== 'object' || Array.isArray(message)) return [];
  if (message.wasSentByApi !== true || message.track_source !== UAZAPI_TRACK_SOURCE) return [];
  const trackId = message.track_id;
  if (typeof trackId !== 'string' || trackId === '') return [];
  const messageid = typeof message.messageid === 'string' && message.messageid !== '' ? message.messageid : null;
  return [{ key: idEvidenceKey(trackId), messageid }];
}
