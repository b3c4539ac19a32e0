// What a Cloud API webhook body confirms of LeadFlow's sends (send-evidence.ts): every status of a
// message Meta accepted (`sent`, `delivered`, `read`, `played`; not `failed`) carries the send's
// `biz_opaque_callback_data`, which LeadFlow sets to the send id; it confirms that send on the
// instance of the change's phone number id, under the status's message id (`wamid`). Statuses
// without it, and any other part of the body, confirm nothing. Never throws.
import type { JsonValue } from '../../../engine/types.js';
import { idEvidenceKey, type SendConfirmed } from '../send-evidence.js';

type Obj = { [key: string]: JsonValue };
const asObj = (v: JsonValue | undefined): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? v : undefined);
const asArr = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);

/** A send confirmed by a status, with the phone number id of the business number it went from. */
export interface CloudSendConfirmed extends SendConfirmed {
  phone_number_id: string;
}

/** The sends a Cloud webhook body's statuses confirm (see the file's head), in body order. */
export function cloudSendConfirmations(body: JsonValue): CloudSendConfirmed[] {
  const out: CloudSendConfirmed[] = [];
  for (const entry of asArr(asObj(body)?.entry)) {
    for (const change of asArr(asObj(entry)?.changes)) {
      const value = asObj(asObj(change)?.value);
      const phoneNumberId = asObj(value?.metadata)?.phone_number_id;
      if (typeof phoneNumberId !== 'string') continue;
      for (const status of asArr(value?.statuses)) {
        const s = asObj(status);
        const data = s?.biz_opaque_callback_data;
        if (!s || s.status === 'failed' || typeof data !== 'string' || data === '') continue;
        const messageid = typeof s.id === 'string' && s.id !== '' ? s.id : null;
        out.push({ phone_number_id: phoneNumberId, key: idEvidenceKey(data), messageid });
      }
    }
  }
  return out;
}
