// What erasing a lead from the execution records means (`excluir`, data protection): an Erasure
// (engine/store/erasure.ts) built from the lead's phone and name.
//
// - Which records: those holding any Brazilian variant of the phone as digits (with and without 55,
//   with and without the mobile 9), also inside JIDs (`5511987654321@s.whatsapp.net`) and keys
//   (`3:5511987654321`).
// - In them: each variant, also typed with spaces or punctuation (`+55 (11) 98765-4321`), becomes its
//   masked form (`5511*******21`, maskPhone); the lead's name (whole, and each word of 3 letters or
//   more but particles like "dos") becomes `[nome apagado]`; WhatsApp LIDs (`…@lid`) become
//   `[lid apagado]`; the Cloud API's message ids (`wamid.…`, base64 of a record holding the lead's
//   number, so the phone can be read back from them) and business-scoped user ids (BSUIDs,
//   `BR.1502576394655843`) become `[id apagado]`, and so do the message ids of uazapi and Evolution
//   (WhatsApp's own: 16 or more upper-case hex digits, `3EB0C767D097B7E1B5`); and with `texts`, message texts and form answers
//   (MESSAGE_TEXT_KEYS) become `[texto apagado]`.
import type { Erasure, ReplaceRule } from '../../engine/store/erasure.js';
import { brazilianVariants } from './brazilian-variants.js';
import { maskPhone } from './mask-phone.js';

/** What an erased lead's name becomes in the execution records. */
export const NAME_MASK = '[nome apagado]';
/** What a WhatsApp LID (`…@lid`) becomes in the erased lead's execution records. */
export const LID_MASK = '[lid apagado]';
/** What a message id (`wamid.…`, `3EB0C767…`) or business-scoped user id (`BR.1502…`) becomes in the erased lead's execution records. */
export const ID_MASK = '[id apagado]';
/** What a message text or form answer becomes in the erased lead's execution records (with `texts`). */
export const TEXT_MASK = '[texto apagado]';

/** Shortest digit string taken as a phone to erase (shorter ones would match unrelated numbers). */
export const MIN_PHONE_DIGITS = 8;

/**
 * Members holding what a lead wrote or what was written to it, in the gateway's events, the flows'
 * step params and outputs, the memory rows and the outbound calls (chat messages, transcriptions,
 * replies, summaries, form answers).
 */
export const MESSAGE_TEXT_KEYS = [
  'text',
  // Evolution API's (Baileys') plain text message: `message.conversation`.
  'conversation',
  'content',
  // The transcript's rows (transcript.record's params and outputs; mensagens.conteudo).
  'conteudo',
  'caption',
  'messages',
  'input',
  'prompt',
  'command',
  'quoted',
  'senderName',
  'wa_name',
  'wa_contactName',
  'lead_name',
  'lead_email',
  'email',
  'ultima_mensagem',
  'respostas',
  'orcamento',
  'motivo',
  'summary',
  'resumo',
  'imagePreview',
];

/** Name words never erased on their own (they would erase every "de" of a text). */
const NAME_PARTICLES = new Set(['das', 'dos', 'del', 'della', 'der', 'van', 'von', 'los', 'las']);

const SEPARATOR = '[\\s().+\\-]{0,3}';
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Every digit form of the phones (Brazilian variants, longest first); digit strings under MIN_PHONE_DIGITS are left out. */
export function phoneNeedles(phones: Array<string | number | null | undefined>): string[] {
  const all = new Set<string>();
  for (const phone of phones) {
    const digits = String(phone ?? '').replace(/\D/g, '');
    if (digits.length < MIN_PHONE_DIGITS) continue;
    for (const variant of brazilianVariants(digits)) if (variant.length >= MIN_PHONE_DIGITS) all.add(variant);
  }
  return [...all].sort((a, b) => b.length - a.length || a.localeCompare(b));
}

/** The rule erasing a name: the whole name and its words, as whole words, any case. Null when nothing is left to match. */
export function nameRule(names: Array<string | null | undefined>): ReplaceRule | null {
  const forms = new Set<string>();
  for (const name of names) {
    const words = String(name ?? '')
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    if (words.length === 0) continue;
    forms.add(words.map(escapeRegExp).join('\\s+'));
    for (const word of words) if ([...word].length >= 3 && !NAME_PARTICLES.has(word.toLowerCase())) forms.add(escapeRegExp(word));
  }
  if (forms.size === 0) return null;
  const alternatives = [...forms].sort((a, b) => b.length - a.length);
  return { pattern: `(?<![\\p{L}\\p{N}])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}])`, flags: 'iu', with: NAME_MASK };
}

/** Who to erase: the lead's phones and names, and whether message texts go too. */
export interface LeadErasureInput {
  /** The lead's phones: digits, JIDs or as typed. */
  phones: Array<string | number | null | undefined>;
  /** The lead's name(s) as stored or typed. */
  names?: Array<string | null | undefined>;
  /** Also mask message texts and form answers (default true). */
  texts?: boolean;
}

/** The Erasure of one lead; its `needles` are empty when no phone has MIN_PHONE_DIGITS digits. */
export function leadErasure(input: LeadErasureInput): Erasure {
  const needles = phoneNeedles(input.phones);
  const replace: ReplaceRule[] = needles.map((variant) => ({ pattern: [...variant].join(SEPARATOR), with: maskPhone(variant) }));
  const name = nameRule(input.names ?? []);
  if (name) replace.push(name);
  replace.push({ pattern: '\\d{6,}@lid\\b', with: LID_MASK });
  replace.push({ pattern: 'wamid\\.[A-Za-z0-9+/_=-]+', with: ID_MASK });
  replace.push({ pattern: '(?<![A-Za-z0-9.])[A-Z]{2}\\.[0-9]{10,}(?![A-Za-z0-9])', with: ID_MASK });
  // WhatsApp message ids: a run of 16+ upper-case hex digits holding a letter (not a long number).
  replace.push({ pattern: '(?<![0-9A-Za-z])(?=[0-9]*[A-F])[0-9A-F]{16,64}(?![0-9A-Za-z])', with: ID_MASK });
  return { needles, replace, ...(input.texts === false ? {} : { text_keys: MESSAGE_TEXT_KEYS, text_mask: TEXT_MASK }) };
}
