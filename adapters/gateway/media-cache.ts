// `ctx.services.media`: media bytes held between a `gateway.download` step and the step that turns
// them into text (transcribe / describe / read a document).
//
// Contract (what every MediaStore keeps):
//   - Bytes never enter an execution record, a log line or the database: steps pass `media_ref`,
//     an unguessable handle (`media_<uuid>`), and the consumer reads the bytes with `get` or `take`
//     (either may answer now or later: callers await).
//   - A missing ref reads as undefined; the consumer must fail with a clear error then, not treat it
//     as empty media.
//
// MediaCache (this file) is the in-process layer: an entry lives `ttlMs` (default 10 min) after
// `put`; the cache holds at most `maxBytes` (default 256 MiB) in all, evicting the oldest entries
// first; one item larger than that is refused. Nothing here survives the process: a ref put by a
// process that died (or evicted, or expired) reads as undefined. The `source` given to `put` is
// ignored here. What the runtime hands nodes is SharedMediaStore (media-store.ts): this cache plus
// a note of each medium's source on the key-value store, so a miss in any process downloads the
// medium again (its file head says for how long and what is kept).
// No timer is kept: expired entries are dropped on every call.
import { randomUUID } from 'node:crypto';

/** One cached medium: its bytes (never logged, recorded or stored), type and file name. */
export interface CachedMedia {
  bytes: Buffer;
  /** As reported by the gateway, e.g. `audio/ogg; codecs=opus`. */
  mimetype: string;
  /** Original file name (documents), when known. */
  filename?: string;
}

/**
 * Where a medium came from: what downloads it again through the instance's gateway (never bytes,
 * never a phone).
 */
export interface MediaSource {
  /** The WhatsApp instance (`instancias_whatsapp.id`) whose gateway served it. */
  instance_id: number;
  /** The gateway's reference of the medium (uazapi, Evolution: the message id; Cloud API: the media id). */
  media_ref: string;
}

/** What a read may be cancelled with (a download again honours it). */
export interface MediaReadOptions {
  signal?: AbortSignal;
}

/** `ctx.services.media`: media bytes by handle, between the download step and the step that reads them (see the file's head). */
export interface MediaStore {
  /** Stores the bytes; returns the handle. `source`: where they came from, so a store that can download again may. */
  put(bytes: Buffer, mimetype: string, filename?: string, source?: MediaSource): string | Promise<string>;
  /** The entry, left in place (a retried consumer step can read it again). */
  get(ref: string, options?: MediaReadOptions): CachedMedia | undefined | Promise<CachedMedia | undefined>;
  /** The entry, removed from memory (frees it at once). */
  take(ref: string, options?: MediaReadOptions): CachedMedia | undefined | Promise<CachedMedia | undefined>;
}

/** Limits and clock of a MediaCache; units ms and bytes. */
export interface MediaCacheOptions {
  /** Life of an entry, ms. Default 600000 (10 min). */
  ttlMs?: number;
  /** Most bytes held in all. Default 256 MiB. */
  maxBytes?: number;
  /** Clock (tests). Default Date.now. */
  now?: () => number;
}

interface Entry extends CachedMedia {
  expiresAt: number;
}

/** The in-process MediaStore: entries live `ttlMs`, at most `maxBytes` in all, the oldest evicted first (see the file's head). */
export class MediaCache implements MediaStore {
  private readonly entries = new Map<string, Entry>();
  private readonly ttlMs: number;
  private readonly maxBytes: number;
  private readonly now: () => number;
  private total = 0;

  constructor(options: MediaCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? 600_000;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.now = options.now ?? Date.now;
  }

  put(bytes: Buffer, mimetype: string, filename?: string): string {
    const ref = `media_${randomUUID()}`;
    this.keep(ref, { bytes, mimetype, ...(filename ? { filename } : {}) });
    return ref;
  }

  /**
   * Stores `media` under an existing handle (a medium downloaded again for a ref put elsewhere),
   * replacing what it held; same life and limits as `put`.
   */
  keep(ref: string, media: CachedMedia): void {
    const { bytes, mimetype, filename } = media;
    if (bytes.length > this.maxBytes)
      throw new RangeError(`media of ${bytes.length} bytes exceeds the media cache limit of ${this.maxBytes} bytes`);
    this.purgeExpired();
    const held = this.entries.get(ref);
    if (held) this.remove(ref, held);
    // Map order is insertion order: the first entry is the oldest.
    for (const [oldest, entry] of this.entries) {
      if (this.total + bytes.length <= this.maxBytes) break;
      this.remove(oldest, entry);
    }
    this.entries.set(ref, { bytes, mimetype, ...(filename ? { filename } : {}), expiresAt: this.now() + this.ttlMs });
    this.total += bytes.length;
  }

  get(ref: string): CachedMedia | undefined {
    this.purgeExpired();
    const entry = this.entries.get(ref);
    return entry ? view(entry) : undefined;
  }

  take(ref: string): CachedMedia | undefined {
    this.purgeExpired();
    const entry = this.entries.get(ref);
    if (!entry) return undefined;
    this.remove(ref, entry);
    return view(entry);
  }

  /** Entries held now (expired ones excluded). */
  get size(): number {
    this.purgeExpired();
    return this.entries.size;
  }

  /** Bytes held now (expired ones excluded). */
  get bytes(): number {
    this.purgeExpired();
    return this.total;
  }

  private purgeExpired(): void {
    const now = this.now();
    for (const [ref, entry] of this.entries) if (entry.expiresAt <= now) this.remove(ref, entry);
  }

  private remove(ref: string, entry: Entry): void {
    this.entries.delete(ref);
    this.total -= entry.bytes.length;
  }
}

function view(entry: Entry): CachedMedia {
  return { bytes: entry.bytes, mimetype: entry.mimetype, ...(entry.filename ? { filename: entry.filename } : {}) };
}
