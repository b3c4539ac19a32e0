// `ctx.services.media`: media bytes held in this process between a `gateway.download` step and the
// step that turns them into text (transcribe / describe / read a document).
//
// Contract:
//   - Bytes never enter an execution record, a log line or the database: steps pass `media_ref`,
//     an unguessable handle (`media_<uuid>`), and the consumer reads the bytes with `get` or `take`.
//   - An entry lives `ttlMs` (default 10 min) after `put`; the cache holds at most `maxBytes`
//     (default 256 MiB) in all, evicting the oldest entries first; one item larger than that is refused.
//   - In-process only: download and consumer must run in the same process and drive of the execution
//     (no `wait` between them). A missing ref (expired, evicted, other process) reads as undefined;
//     the consumer must fail with a clear error then, not treat it as empty media.
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

/** `ctx.services.media`: media bytes by handle, between the download step and the step that reads them (see the file's head). */
export interface MediaStore {
  /** Stores the bytes; returns the handle. */
  put(bytes: Buffer, mimetype: string, filename?: string): string;
  /** The entry, left in place (a retried consumer step can read it again). */
  get(ref: string): CachedMedia | undefined;
  /** The entry, removed (frees the memory at once). */
  take(ref: string): CachedMedia | undefined;
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
    if (bytes.length > this.maxBytes)
      throw new RangeError(`media of ${bytes.length} bytes exceeds the media cache limit of ${this.maxBytes} bytes`);
    this.purgeExpired();
    // Map order is insertion order: the first entry is the oldest.
    for (const [ref, entry] of this.entries) {
      if (this.total + bytes.length <= this.maxBytes) break;
      this.remove(ref, entry);
    }
    const ref = `media_${randomUUID()}`;
    this.entries.set(ref, { bytes, mimetype, ...(filename ? { filename } : {}), expiresAt: this.now() + this.ttlMs });
    this.total += bytes.length;
    return ref;
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
