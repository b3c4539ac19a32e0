// The MediaStore the runtime hands nodes (`ctx.services.media`): the in-process MediaCache for the
// bytes, and a note of each medium's source on the key-value store (media-source-notes.ts), so what
// a download step kept survives the process that kept it.
//
// Contract:
//   - `put(bytes, mimetype, filename, source)` caches the bytes and, with a source, notes it before
//     answering (a failed note fails the put and leaves nothing cached). Without a source the medium
//     lives only in this process's cache, as MediaCache's.
//   - `get` / `take` read the cache; on a miss (another process put it, this one restarted, or the
//     entry expired or was evicted) a handle whose note exists is downloaded again through the
//     instance's gateway (`download`: the same call `gateway.download` makes, any provider), cached
//     under the same handle and returned. A handle without a note reads as undefined (the consumer
//     fails with MediaNotFoundError). Concurrent misses of one handle in one process download once.
//   - Life and size: the bytes as MediaCache (10 min, 256 MiB in all by default, in memory only);
//     the note NOTE_TTL_MS (24 h), a few hundred bytes, never bytes nor a phone. `take` frees the
//     memory but keeps the note: a consumer step run again after a crash must find the medium.
//   - What survives a SIGKILL: every handle whose download step was recorded, for the note's life,
//     as long as the gateway still serves the medium.
import type { DownloadedMedia } from './gateway-client.js';
import { type CachedMedia, MediaCache, type MediaReadOptions, type MediaSource, type MediaStore } from './media-cache.js';
import type { MediaSourceNotes } from './media-source-notes.js';

/** Downloads a medium again from its source (the runtime's: the instance's gateway client). */
export type MediaDownload = (source: MediaSource, options: MediaReadOptions) => Promise<DownloadedMedia>;

/** What a SharedMediaStore is built on. */
export interface SharedMediaStoreOptions {
  /** Where the source of each medium is noted (on the key-value store every process reads). */
  notes: MediaSourceNotes;
  /** Downloads a medium again on a miss. */
  download: MediaDownload;
  /** The in-process bytes; default a MediaCache with its defaults. */
  cache?: MediaCache;
}

/** The runtime's MediaStore: cached bytes, re-downloaded from their noted source on a miss (see the file's head). */
export class SharedMediaStore implements MediaStore {
  readonly #cache: MediaCache;
  readonly #notes: MediaSourceNotes;
  readonly #download: MediaDownload;
  readonly #inFlight = new Map<string, Promise<CachedMedia | undefined>>();

  constructor(options: SharedMediaStoreOptions) {
    this.#cache = options.cache ?? new MediaCache();
    this.#notes = options.notes;
    this.#download = options.download;
  }

  async put(bytes: Buffer, mimetype: string, filename?: string, source?: MediaSource): Promise<string> {
    const ref = this.#cache.put(bytes, mimetype, filename);
    if (!source) return ref;
    try {
      await this.#notes.note(ref, {
        instance_id: source.instance_id,
        media_ref: source.media_ref,
        ...(filename ? { file_name: filename } : {}),
      });
    } catch (err) {
      this.#cache.take(ref);
      throw err;
    }
    return ref;
  }

  async get(ref: string, options: MediaReadOptions = {}): Promise<CachedMedia | undefined> {
    return this.#cache.get(ref) ?? this.#again(ref, options);
  }

  async take(ref: string, options: MediaReadOptions = {}): Promise<CachedMedia | undefined> {
    const item = await this.get(ref, options);
    this.#cache.take(ref);
    return item;
  }

  /** The medium of `ref` downloaded again from its note, cached under `ref`; undefined without a note. */
  #again(ref: string, options: MediaReadOptions): Promise<CachedMedia | undefined> {
    const running = this.#inFlight.get(ref);
    if (running) return running;
    const fetching = (async () => {
      const note = await this.#notes.read(ref);
      if (!note) return undefined;
      const downloaded = await this.#download({ instance_id: note.instance_id, media_ref: note.media_ref }, options);
      const item: CachedMedia = {
        bytes: downloaded.bytes,
        mimetype: downloaded.mimetype,
        ...(note.file_name ? { filename: note.file_name } : {}),
      };
      this.#cache.keep(ref, item);
      return item;
    })().finally(() => this.#inFlight.delete(ref));
    this.#inFlight.set(ref, fetching);
    return fetching;
  }
}
