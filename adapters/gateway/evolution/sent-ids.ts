// The ids of the messages LeadFlow sent through an Evolution instance, kept a while, so that a
// `messages.upsert` with `fromMe` echoing one of them (servers that echo API sends: Evolution issue
// #1340, reference whatsapp-providers.md §1.6 "Belt and braces") is told apart from a person typing
// on the clinic's phone (a human takeover, CONTRACT §9).
//
// Contract:
//   note(instance, id)  after a send's answer named the message id (EvolutionClient.sendText's
//                       `messageid`): the id is LeadFlow's on that instance for SENT_ID_TTL_MS.
//   has(instance, id)   true while that id is noted (gateway.parse asks, through the provider's
//                       `sentByApi`, for each fromMe message of the instance).
//
// Storage: the KeyValue store (in-process, or Redis shared by every process: in queue mode the sends
// run in workers and the webhook is parsed wherever the execution runs). Its interface has no plain
// get/set, so an id is the owner token of a "lock" with the TTL. Keys hold the instance id and a slot
// number, never a phone (nothing here for `excluir` to erase): `evolution-sent:<instanceId>:<slot>`,
// the slot being the id's hash modulo SENT_ID_SLOTS. So an instance never has more than SENT_ID_SLOTS
// keys, each gone SENT_ID_TTL_MS after its last write: bounded in count and in time. A later send
// whose id falls in the same slot replaces the older id (which then reads as not LeadFlow's); with
// 1024 slots that needs one of the next sends of that instance to hash to that slot before its echo.
//
// An echo parsed before the send's answer reached LeadFlow (the echo overtaking the answer) cannot
// be found by its id, which only the answer names. So a send is also noted BEFORE its call, by what
// it says:
//   noteSending(instance, number, text)  before the call: `evolution-sending:<instanceId>:<digest of
//                       recipient and text>` (send-evidence.ts textEvidenceKey: no phone, no text in
//                       clear) for SENT_ID_TTL_MS;
//   isSending(instance, number, text)    true while such a note lasts: an echo of that text to that
//                       number is LeadFlow's, whichever came first. A person typing the very same text
//                       to the same lead within the TTL would read as LeadFlow's too (no takeover).
import { createHash } from 'node:crypto';
import type { KeyValue } from '../../kv/key-value.js';
import { textEvidenceKey } from '../send-evidence.js';

/** How long a sent message's id is kept, ms (10 minutes). */
export const SENT_ID_TTL_MS = 10 * 60 * 1000;
/** Most ids kept per instance: one key per slot. */
export const SENT_ID_SLOTS = 1024;
/**
 * Compare-and-set rounds of one note before giving up: a round fails only when another writer of
 * the same slot released or took it meanwhile, which each writer does at most twice.
 */
const MAX_ROUNDS = 32;

/** How an EvolutionSentIds names its keys and how long and how many ids it keeps. */
export interface EvolutionSentIdsOptions {
  /** Caller-key prefix. Default `evolution-sent:`. */
  keyPrefix?: string;
  /** Caller-key prefix of the notes taken before a send. Default `evolution-sending:`. */
  sendingKeyPrefix?: string;
  /** Life of a noted id, ms. Default SENT_ID_TTL_MS. */
  ttlMs?: number;
  /** Slots per instance. Default SENT_ID_SLOTS. */
  slots?: number;
}

/** The ids of the messages LeadFlow sent through each Evolution instance, on the key-value store (see the file's head). */
export class EvolutionSentIds {
  readonly #kv: KeyValue;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #slots: number;
  readonly #sendingPrefix: string;

  constructor(kv: KeyValue, options: EvolutionSentIdsOptions = {}) {
    this.#kv = kv;
    this.#prefix = options.keyPrefix ?? 'evolution-sent:';
    this.#sendingPrefix = options.sendingKeyPrefix ?? 'evolution-sending:';
    this.#ttlMs = options.ttlMs ?? SENT_ID_TTL_MS;
    this.#slots = options.slots ?? SENT_ID_SLOTS;
  }

  /** The key of the slot `messageId` falls in on `instanceId`. */
  #key(instanceId: number, messageId: string): string {
    if (!Number.isInteger(instanceId) || instanceId < 1) throw new TypeError(`evolution sent ids: bad instance id ${String(instanceId)}`);
    const slot = createHash('sha256').update(messageId).digest().readUInt32BE(0) % this.#slots;
    return `${this.#prefix}${instanceId}:${slot}`;
  }

  /** Notes `messageId` as sent by LeadFlow through `instanceId`, for the TTL; an empty id is ignored. */
  async note(instanceId: number, messageId: string): Promise<void> {
    if (typeof messageId !== 'string' || messageId === '') return;
    const key = this.#key(instanceId, messageId);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const held = await this.#kv.lockHolder(key);
      if (held === messageId) {
        if (await this.#kv.extendLock(key, messageId, this.#ttlMs)) return;
        continue;
      }
      // The slot's older id gives way (compare-and-delete: only the id read is removed).
      if (held !== null && !(await this.#kv.releaseLock(key, held))) continue;
      if ((await this.#kv.acquireLock(key, this.#ttlMs, messageId)) !== null) return;
    }
    throw new Error('evolution sent ids: too many concurrent writers for one slot');
  }

  /** Notes that LeadFlow is about to send `text` to `number` through `instanceId` (see the file's head). */
  async noteSending(instanceId: number, number: string, text: string): Promise<void> {
    if (text.trim() === '') return;
    await this.#kv.acquireLock(this.#sendingKey(instanceId, number, text), this.#ttlMs, 'sending');
  }

  /** True while a send of `text` to `number` through `instanceId` is noted (see the file's head). */
  async isSending(instanceId: number, number: string, text: string): Promise<boolean> {
    if (text.trim() === '') return false;
    return (await this.#kv.lockHolder(this.#sendingKey(instanceId, number, text))) !== null;
  }

  #sendingKey(instanceId: number, number: string, text: string): string {
    if (!Number.isInteger(instanceId) || instanceId < 1) throw new TypeError(`evolution sent ids: bad instance id ${String(instanceId)}`);
    return `${this.#sendingPrefix}${instanceId}:${textEvidenceKey(number, text).slice('text:'.length)}`;
  }

  /** True while `messageId` is noted as sent by LeadFlow through `instanceId`. */
  async has(instanceId: number, messageId: string): Promise<boolean> {
    if (typeof messageId !== 'string' || messageId === '') return false;
    return (await this.#kv.lockHolder(this.#key(instanceId, messageId))) === messageId;
  }
}
