// Where each downloaded medium came from, kept on the key-value store (shared by every process:
// Redis in queue mode, the in-process store written through to the database in embedded mode), so
// a process that finds a media handle missing from its memory can download the medium again.
//
// Contract:
//   - One note per handle: {instance id, the gateway's media reference, file name}; never bytes,
//     never a phone. It lives `ttlMs` (default NOTE_TTL_MS, 24 h) and is then gone; nothing else
//     removes it (a take-over re-run of the consumer needs it even after a first read took the bytes).
//   - Readable only with the handle: the key is a digest of the handle, and the value is encrypted
//     (AES-256-GCM) with a key derived from the handle. The handle lives only in the execution
//     record, so once that record is erased (`excluir`) the note says nothing of the lead (its
//     message id, its document's name) to anyone reading the store; it expires later on its own.
//   - A note that cannot be read (none, expired, tampered with, written under another handle) is null.
//   - Storage: the owner token of a "lock" with the note's TTL (the store has no plain get/set;
//     adapters/gateway/cloud/sent-text-notes.ts does the same). Key `media-source:<digest>`.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { KeyValue } from '../kv/key-value.js';
import type { MediaSource } from './media-cache.js';

/** Life of a note, ms: a take-over later than that cannot download the medium again. 24 h. */
export const NOTE_TTL_MS = 24 * 60 * 60 * 1000;

/** A medium's source and the file name it was kept with. */
export interface MediaSourceNote extends MediaSource {
  /** Original file name (documents), when known. */
  file_name?: string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

const digest = (label: string, handle: string): Buffer => createHash('sha256').update(`${label}\0${handle}`).digest();

/** The notes of media sources on one key-value store (see the file's head). */
export class MediaSourceNotes {
  readonly #kv: KeyValue;
  readonly #ttlMs: number;

  /** `ttlMs`: each note's life, ms (default NOTE_TTL_MS). */
  constructor(kv: KeyValue, options: { ttlMs?: number } = {}) {
    this.#kv = kv;
    this.#ttlMs = options.ttlMs ?? NOTE_TTL_MS;
  }

  #key(handle: string): string {
    return `media-source:${digest('key', handle).toString('hex').slice(0, 40)}`;
  }

  /** Notes where the medium of `handle` came from; a note already there for it is kept. */
  async note(handle: string, note: MediaSourceNote): Promise<void> {
    const plain = JSON.stringify({ i: note.instance_id, r: note.media_ref, ...(note.file_name ? { f: note.file_name } : {}) });
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', digest('cipher', handle), iv);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const value = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
    await this.#kv.acquireLock(this.#key(handle), this.#ttlMs, value);
  }

  /** The note of `handle`; null when there is none or it cannot be read (see the file's head). */
  async read(handle: string): Promise<MediaSourceNote | null> {
    const value = await this.#kv.lockHolder(this.#key(handle));
    if (value === null) return null;
    const raw = Buffer.from(value, 'base64url');
    if (raw.length <= IV_BYTES + TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', digest('cipher', handle), raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
      return noteOf(JSON.parse(plain) as Record<string, unknown>);
    } catch {
      return null;
    }
  }
}

/** A decrypted note's fields, checked; null when they are not a note's. */
function noteOf(fields: Record<string, unknown>): MediaSourceNote | null {
  const { i, r, f } = fields;
  if (typeof i !== 'number' || typeof r !== 'string' || r === '') return null;
  return { instance_id: i, media_ref: r, ...(typeof f === 'string' && f !== '' ? { file_name: f } : {}) };
}
