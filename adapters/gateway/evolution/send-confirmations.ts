// What an Evolution webhook body confirms of LeadFlow's sends (send-evidence.ts): every text sent
// through the API fires `send.message` (reference whatsapp-providers.md §1.6) with the recipient
// (`data.key.remoteJid`) and the text (`data.message.conversation`, or `extendedTextMessage.text`);
// no id of ours travels, so it confirms the send of that text to that number (textEvidenceKey),
// under its message id (`data.key.id`). Any other body confirms nothing. Never throws.
import type { JsonValue } from '../../../engine/types.js';
import { phoneFromJid } from '../jid.js';
import { type SendConfirmed, textEvidenceKey } from '../send-evidence.js';

type Obj = { [key: string]: JsonValue };
const asObj = (v: JsonValue | undefined): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? v : undefined);

/** The sends an Evolution webhook body confirms (see the file's head): none or one. */
export function evolutionSendConfirmations(body: JsonValue): SendConfirmed[] {
  const event = asObj(body);
  if (event?.event !== 'send.message') return [];
  const data = asObj(event.data);
  const key = asObj(data?.key);
  const message = asObj(data?.message);
  const phone = typeof key?.remoteJid === 'string' ? phoneFromJid(key.remoteJid) : null;
  const extended = asObj(message?.extendedTextMessage);
  const text = typeof message?.conversation === 'string' ? message.conversation : typeof extended?.text === 'string' ? extended.text : '';
  if (!phone || text.trim() === '') return [];
  const messageid = typeof key?.id === 'string' && key.id !== '' ? key.id : null;
  return [{ key: textEvidenceKey(phone, text), messageid }];
}
