// Meta's 24-hour customer-service window, per (instance, lead phone): "When a WhatsApp user messages
// you or calls you, a 24-hour timer called a customer service window starts. If the user messages or
// calls you again before the timer expires, the timer resets to 24 hours … When the window closes, you
// can only send pre-approved template messages." (developers.facebook.com/documentation/
// business-messaging/whatsapp/messages/send-messages, reference whatsapp-providers.md §2.10). Only the
// user's messages open it: not our sends, not templates, and not Coexistence echoes (the clinic's own
// messages; Telnyx documents that echoes do not open or extend it, Meta does not say: §2.5).
//
// Contract: noteInbound(instance, phone, at) records a message from the lead sent at `at` (ms); the
// window is open at `now` while now < (latest `at` noted) + 24 h. Noting an older message never
// shortens the window. Keys expire with the window (TTL = at + 24 h - now), so nothing outlives it.
//
// Storage: the KeyValue store (in-process or Redis, shared by every process). Its interface has no
// plain get/set, so the latest instant is kept as the owner token of a "lock" with the window's TTL,
// in two slots (`…:a`, `…:b`): a writer replaces only the slot holding the OLDER instant (compare-
// and-delete, then set-if-absent), so a reader always finds the newer one in the other slot, and of
// concurrent writers the latest instant wins (the loop re-reads when a slot changed under it).
//
// Keys: `cloud-window:<instanceId>:<phone>:a|b`. A Brazilian mobile is keyed by its 13-digit form
// (55 + area + 9 + 8 digits; a 12-digit legacy JID maps to it), so the lead's `wa_id` and the form's
// phone find the same window. forget() erases a lead's keys (CONTRACT §8 `excluir`): the generic
// kv.erase of `<clinic>:<phone>` does not reach them.
import { brazilianVariants } from '../../phones/brazilian-variants.js';
import type { KeyValue } from '../../kv/key-value.js';

/** Length of the window, ms (24 h). */
export const CUSTOMER_WINDOW_MS = 24 * 60 * 60 * 1000;
const SLOTS = ['a', 'b'] as const;
/** Compare-and-set rounds before giving up (each failed round means another writer succeeded). */
const MAX_ROUNDS = 16;

/** How a CustomerWindow keeps time and names its keys. */
export interface CustomerWindowOptions {
  /** This process's clock, ms: the TTL of a noted message is `at + 24 h - now()`. Default Date.now. */
  now?: () => number;
  /** Caller-key prefix. Default `cloud-window:`. */
  keyPrefix?: string;
}

/** The phone a window is keyed by: a Brazilian mobile in its 13-digit form, anything else as given (digits). */
export function windowPhone(phone: string): string {
  const digits = String(phone ?? '').replace(/\D/g, '');
  if (!/^55\d{10,11}$/.test(digits)) return digits;
  return brazilianVariants(digits).find((v) => /^55\d{11}$/.test(v)) ?? digits;
}

/** The 24-hour customer-service windows of leads, kept on the key-value store (see the file's head: keys, TTLs, concurrent writers). */
export class CustomerWindow {
  readonly #kv: KeyValue;
  readonly #now: () => number;
  readonly #prefix: string;

  constructor(kv: KeyValue, options: CustomerWindowOptions = {}) {
    this.#kv = kv;
    this.#now = options.now ?? Date.now;
    this.#prefix = options.keyPrefix ?? 'cloud-window:';
  }

  #keys(instanceId: number | string, phone: string): [string, string] {
    const digits = windowPhone(phone);
    if (digits === '') throw new TypeError('customer window: phone has no digits');
    if (String(instanceId) === '') throw new TypeError('customer window: instance id is empty');
    const base = `${this.#prefix}${String(instanceId)}:${digits}`;
    return [`${base}:${SLOTS[0]}`, `${base}:${SLOTS[1]}`];
  }

  /** The latest noted instant (ms) in each slot; null where a slot is empty. */
  async #read(keys: [string, string]): Promise<[string | null, string | null]> {
    const [a, b] = await Promise.all(keys.map((k) => this.#kv.lockHolder(k)));
    return [a ?? null, b ?? null];
  }

  /** Records a message from `phone` to instance `instanceId` sent at `atMs`. */
  async noteInbound(instanceId: number | string, phone: string, atMs: number): Promise<void> {
    if (!Number.isFinite(atMs) || atMs <= 0) throw new RangeError(`customer window: atMs must be a positive instant, got ${String(atMs)}`);
    const at = Math.round(atMs);
    const ttl = Math.ceil(at + CUSTOMER_WINDOW_MS - this.#now());
    if (ttl < 1) return; // older than the window: it opens nothing
    const keys = this.#keys(instanceId, phone);
    const token = String(at);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const held = await this.#read(keys);
      const ats: [number, number] = [instantOf(held[0]), instantOf(held[1])];
      if (Math.max(ats[0], ats[1]) >= at) return; // as new or newer already noted
      // Replace an empty slot, else the one holding the older instant; the other keeps the newer.
      const slot = held[0] === null ? 0 : held[1] === null ? 1 : ats[0] <= ats[1] ? 0 : 1;
      const key = keys[slot];
      const current = held[slot];
      if (current !== null && current !== undefined && !(await this.#kv.releaseLock(key, current))) continue;
      if ((await this.#kv.acquireLock(key, ttl, token)) !== null) return;
    }
    throw new Error('customer window: too many concurrent writers for one lead');
  }

  /** The instant (ms) the window of (instance, phone) closes, or null when nothing was noted within 24 h. */
  async openUntil(instanceId: number | string, phone: string): Promise<number | null> {
    const held = await this.#read(this.#keys(instanceId, phone));
    const latest = Math.max(...held.map(instantOf));
    return latest > 0 ? latest + CUSTOMER_WINDOW_MS : null;
  }

  /** Whether free-form messages may go to `phone` from instance `instanceId` at `nowMs`. */
  async isOpen(instanceId: number | string, phone: string, nowMs: number = this.#now()): Promise<boolean> {
    const until = await this.openUntil(instanceId, phone);
    return until !== null && nowMs < until;
  }

  /** Erases what is noted for (instance, phone) (one key set covers every Brazilian variant); returns how many keys went. */
  async forget(instanceId: number | string, phone: string): Promise<number> {
    return this.#kv.erase(this.#keys(instanceId, phone));
  }
}

function instantOf(token: string | null): number {
  const n = token === null ? NaN : Number(token);
  return Number.isFinite(n) && n > 0 ? n : 0;
}
