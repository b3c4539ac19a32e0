// What a free text sent to a Cloud API number stood for, kept until Meta could still refuse it late.
// Meta may accept a text (200 with its `wamid`) and only then report, in a `failed` status with error
// 131047, that it went outside the lead's 24-hour window (reference whatsapp-providers.md §2.6,
// §2.10). To send the template of that text's purpose then (late-failures.ts), the send notes the
// purpose and body parameters of every text that named a template and went out as text
// (CloudGatewayClient, windowed-client.ts), and the status takes the note back, once.
//
// Storage: the KeyValue store (shared by every process), as the owner token of a "lock" with a TTL
// (the store has no plain get/set; customer-window.ts does the same), so taking a note is one
// compare-and-delete: of any number of identical statuses (Meta's redeliveries) one gets it.
//   note   `cloud-sent:<instance id>:<digest of the wamid>` -> {p: purpose, a: parameters, g: group}
//   index  `cloud-sent-to:<instance id>:<digest of a number>` -> a buffer listing the digests of the
//          notes that concern that number: the recipient's, and any number among the parameters
//          (a Hunter alert names the lead's), so `forget` of the lead reaches both
// Neither key holds a phone: a wamid carries the recipient's number (base64), so it is digested
// too. The note holds no phone (the template goes to the status's `recipient_id`) but its parameters
// may hold the lead's first name (or, for a Hunter alert, the alert's fields: the lead's name and
// number): `forget` (the provider's, for `excluir`) erases every note indexed under the lead's number.
// Both live NOTE_TTL_MS at most. `g` names the send (one client: one gateway.send step), so the
// late refusal of several of its paragraphs sends one template (late-failures.ts).
import { createHash } from 'node:crypto';
import type { KeyValue } from '../../kv/key-value.js';
import type { TemplateSet } from '../gateway-client.js';
import { windowPhone } from './customer-window.js';

/** How long a note (and its index) is kept, ms: a late status after that sends nothing. 24 h. */
export const NOTE_TTL_MS = 24 * 60 * 60 * 1000;

/** What a text that named a template stood for. */
export interface SentTextNote {
  purpose: keyof TemplateSet;
  /** The template's body parameters, as the send would have given them. */
  parameters: string[];
  /** The send it belonged to (one id per client). */
  group: string;
}

const digest = (value: string): string => createHash('sha256').update(value).digest('hex').slice(0, 32);

/** The notes of texts sent through one key-value store (see the file's head). */
export class SentTextNotes {
  readonly #kv: KeyValue;
  readonly #now: () => number;

  constructor(kv: KeyValue, options: { now?: () => number } = {}) {
    this.#kv = kv;
    this.#now = options.now ?? Date.now;
  }

  #noteKey(instanceId: number | string, noteId: string): string {
    return `cloud-sent:${String(instanceId)}:${noteId}`;
  }

  #indexKey(instanceId: number | string, phone: string): string {
    return `cloud-sent-to:${String(instanceId)}:${digest(`cloud-sent-to:${windowPhone(phone)}`)}`;
  }

  /** Notes what the text `wamid`, sent to `phone` from instance `instanceId`, stood for. */
  async note(instanceId: number | string, wamid: string, phone: string, note: SentTextNote): Promise<void> {
    const noteId = digest(wamid);
    const value = JSON.stringify({ p: note.purpose, a: note.parameters, g: note.group });
    for (const number of new Set([windowPhone(phone), ...numbersIn(note.parameters)]))
      await this.#kv.bufferPush(this.#indexKey(instanceId, number), noteId, null, this.#now(), NOTE_TTL_MS);
    const key = this.#noteKey(instanceId, noteId);
    // Noted once: the same wamid noted again (it cannot be, Meta's ids are unique) keeps the first.
    await this.#kv.acquireLock(key, NOTE_TTL_MS, value);
  }

  /** Takes the note of `wamid` (it is gone afterwards); null when there is none (never noted, expired, erased or already taken). */
  async take(instanceId: number | string, wamid: string): Promise<SentTextNote | null> {
    const key = this.#noteKey(instanceId, digest(wamid));
    const held = await this.#kv.lockHolder(key);
    if (held === null || !(await this.#kv.releaseLock(key, held))) return null;
    return noteOf(held);
  }

  /** Erases the notes of texts sent to `phone` from instance `instanceId`, and their index; how many keys went. */
  async forget(instanceId: number | string, phone: string): Promise<number> {
    const index = this.#indexKey(instanceId, phone);
    const listed = await this.#kv.bufferPeek(index);
    const notes = (listed?.entries ?? []).map((entry) => this.#noteKey(instanceId, entry.id));
    return this.#kv.erase([...notes, index]);
  }
}

/** The phone numbers among template parameters (10-15 digits, punctuation, a leading + or a JID suffix allowed), as windows key them. */
function numbersIn(parameters: readonly string[]): string[] {
  const out: string[] = [];
  for (const parameter of parameters) {
    const digits = parameter.replace(/@s\.whatsapp\.net$/, '').replace(/[\s().+-]/g, '');
    if (/^\d{10,15}$/.test(digits)) out.push(windowPhone(digits));
  }
  return out;
}

/** A note as stored, read back; null when it is not one. */
function noteOf(text: string): SentTextNote | null {
  try {
    const { p, a, g } = JSON.parse(text) as { p?: unknown; a?: unknown; g?: unknown };
    if (typeof p !== 'string' || !Array.isArray(a) || a.some((x) => typeof x !== 'string')) return null;
    return { purpose: p as keyof TemplateSet, parameters: a as string[], group: typeof g === 'string' ? g : '' };
  } catch {
    return null;
  }
}
