// Evidence that a gateway accepted a send, from the provider's own webhooks, so a send whose answer
// was lost (the process died between the provider accepting it and the step recording it) is not
// sent twice when another process takes the execution over.
//
// How each provider confirms a send (reference whatsapp-providers.md, gateway-and-forms.md):
//   uazapi     the send carries `track_source: "leadflow"` and `track_id: <send id>`; the message's
//              echo (`wasSentByApi: true`) carries them back. Only when the instance's webhook does not
//              exclude `wasSentByApi` messages (its `excludeMessages`).
//   cloud      the send carries `biz_opaque_callback_data: <send id>`; every status of that message
//              (sent, delivered, read; not failed) carries it back.
//   evolution  no id of ours travels; every API send fires `send.message` with the recipient and the
//              text, so the evidence key is a digest of the recipient (its Brazilian variants as one)
//              and the text: two identical texts to one number within EVIDENCE_TTL_MS read as one.
// Each provider's inbound side records what its webhooks report (`record`), before the request is
// answered; `gateway.send` asks (`waitFor`) only for a send it recorded as started and not finished.
//
// Storage: the KeyValue store (Redis shared by every process, or the embedded one written through to
// the database), as the owner token of a "lock" with a TTL (the store has no plain get/set):
// `send-evidence:<instance id>:<digest of the evidence key>` -> `m:<the provider's message id>`, or
// `none` when it gave none. No key or value holds a phone or a text; each lives EVIDENCE_TTL_MS.
import { createHash } from 'node:crypto';
import type { KeyValue } from '../kv/key-value.js';
import { windowPhone } from './cloud/customer-window.js';
import type { GatewayProvider } from './providers.js';

/** How long a piece of evidence is kept, ms (1 hour): longer than any take-over takes to come. */
export const EVIDENCE_TTL_MS = 60 * 60 * 1000;
/** How often `waitFor` looks again, ms. */
export const EVIDENCE_POLL_MS = 200;
/** Longest send id a provider carries back (uazapi's `track_id`, Cloud's 512-character field). */
export const MAX_SEND_ID_LENGTH = 64;

/** The stored value of a report that named no message id. */
const NO_MESSAGE_ID = 'none';

const digest = (value: string): string => createHash('sha256').update(value).digest('hex').slice(0, 32);

/** The evidence key of a send confirmed by its id (uazapi, Cloud): the id itself. */
export function idEvidenceKey(sendId: string): string {
  return `id:${sendId}`;
}

/**
 * The evidence key of a send confirmed by what it said (Evolution): recipient (digits; a Brazilian
 * mobile with or without its 9 reads the same) and text (surrounding spaces ignored).
 */
export function textEvidenceKey(number: string, text: string): string {
  return `text:${digest(`${windowPhone(number)}\n${text.trim()}`)}`;
}

/**
 * What became of a send a take-over found started and not finished (gateway.send): `confirmed` by
 * the provider's evidence, `resent` without it, or `skipped` without it (the step's policy).
 */
export interface SendRecoveryEvent {
  provider: GatewayProvider;
  outcome: 'confirmed' | 'resent' | 'skipped';
}

/** A send a webhook confirms: its evidence key and the provider's message id (null when none). */
export interface SendConfirmed {
  key: string;
  messageid: string | null;
}

/** What a provider reported of a send: its message id, null when it named none. */
export interface SendConfirmation {
  messageid: string | null;
}

/** Evidence of accepted sends on one key-value store (see the file's head). */
export class SendEvidence {
  readonly #kv: KeyValue;
  readonly #ttlMs: number;
  readonly #pollMs: number;

  /** `ttlMs` (default EVIDENCE_TTL_MS) and `pollMs` (default EVIDENCE_POLL_MS) in ms. */
  constructor(kv: KeyValue, options: { ttlMs?: number; pollMs?: number } = {}) {
    this.#kv = kv;
    this.#ttlMs = options.ttlMs ?? EVIDENCE_TTL_MS;
    this.#pollMs = options.pollMs ?? EVIDENCE_POLL_MS;
  }

  #key(instanceId: number | string, evidenceKey: string): string {
    return `send-evidence:${String(instanceId)}:${digest(evidenceKey)}`;
  }

  /** Records that the provider accepted the send `evidenceKey` names (the first report wins; a repeat changes nothing). */
  async record(instanceId: number | string, evidenceKey: string, messageid: string | null): Promise<void> {
    await this.#kv.acquireLock(this.#key(instanceId, evidenceKey), this.#ttlMs, messageid ? `m:${messageid}` : NO_MESSAGE_ID);
  }

  /** Records each of `confirmed` (a webhook's, for instance `instanceId`); rejects when the store does. */
  async recordAll(instanceId: number | string, confirmed: readonly SendConfirmed[]): Promise<void> {
    for (const { key, messageid } of confirmed) await this.record(instanceId, key, messageid);
  }

  /** The confirmation recorded for `evidenceKey`, or null when there is none (yet). */
  async find(instanceId: number | string, evidenceKey: string): Promise<SendConfirmation | null> {
    const held = await this.#kv.lockHolder(this.#key(instanceId, evidenceKey));
    if (held === null) return null;
    return { messageid: held.startsWith('m:') ? held.slice(2) : null };
  }

  /**
   * The confirmation of `evidenceKey`, looking every `pollMs` for at most `waitMs` ms; null when none
   * came. Rejects with the signal's reason when it aborts.
   */
  async waitFor(instanceId: number | string, evidenceKey: string, waitMs: number, signal?: AbortSignal): Promise<SendConfirmation | null> {
    const until = Date.now() + Math.max(0, waitMs);
    for (;;) {
      signal?.throwIfAborted();
      const found = await this.find(instanceId, evidenceKey);
      if (found || Date.now() >= until) return found;
      await pause(Math.min(this.#pollMs, until - Date.now()), signal);
    }
  }
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(done, Math.max(0, ms));
    function done() {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }
    function aborted() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
