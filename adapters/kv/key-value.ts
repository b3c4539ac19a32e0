// The key-value store behind message grouping (debounce), message dedupe and per-key locks.
// One interface, two implementations with the same semantics: Redis (REDIS_URL, shared by every
// process) and in-process memory (one process). Nodes reach it as `ctx.services.kv`.
//
// Units: every instant (`now`, `at`, `first_at`, `last_at`) is milliseconds since the epoch, as
// given by the caller's clock; every duration (`ttlMs`, `maxHoldMs`) is milliseconds. Expiry (TTL)
// is measured by the store's clock (the Redis server's, or this process's).
//
// Keys: callers name things with plain strings (e.g. `5:5511987654321` for a lead); the store keeps
// them under its namespace prefix (default `leadflow:`) and a kind (`buf`, `dedupe`, `lock`), so a
// buffer, a dedupe mark and a lock may share a caller key without clashing, and erasing a caller key
// (or every key that starts with a caller prefix) reaches all three kinds.
import type { JsonValue } from '../../engine/types.js';

/** One buffered message. `at`: when it was pushed (the pusher's `now`). */
export interface BufferEntry {
  id: string;
  at: number;
  payload: JsonValue;
}

/** The state of a buffer after a push. */
export interface BufferSummary {
  /** Entries in the buffer (each id once). */
  count: number;
  /** `at` of the first entry of the current burst. */
  first_at: number;
  /** `at` of the last entry. */
  last_at: number;
  /** Id of the last entry. */
  last_id: string;
  /** True when this push stored the entry; false when that id was already in the buffer (nothing changed). */
  added: boolean;
}

/** Everything a buffer holds, for inspection and tests. */
export interface BufferSnapshot {
  count: number;
  first_at: number;
  last_at: number;
  last_id: string;
  /** In arrival order. */
  entries: BufferEntry[];
}

/** Default life of a buffer nobody drains (an abandoned burst): one hour. */
export const DEFAULT_BUFFER_TTL_MS = 3_600_000;

/**
 * The key-value store behind debounce, dedupe and lock (one contract suite runs over both
 * implementations): per caller key, a message buffer, a dedupe mark and a lock, each with an expiry;
 * every operation is atomic on its own.
 */
export interface KeyValue {
  /** Namespace of every key this store touches, e.g. `leadflow:`. */
  readonly prefix: string;

  /**
   * Appends a message to the buffer `key` unless an entry with `id` is already there (then nothing
   * changes). Every push sets the buffer's expiry to `ttlMs` from now (default
   * DEFAULT_BUFFER_TTL_MS), so an abandoned buffer disappears.
   */
  bufferPush(key: string, id: string, payload: JsonValue, now: number, ttlMs?: number): Promise<BufferSummary>;

  /**
   * Atomically returns and deletes every entry of buffer `key`, in arrival order, when `id` is in
   * the buffer and either is its last entry or the burst is at least `maxHoldMs` old
   * (`now - first_at >= maxHoldMs`). Otherwise returns null and changes nothing: a later message's
   * caller will drain. An empty or missing buffer (already drained, expired or erased) and an id not
   * in the buffer (its burst was already drained) give null too. Of any number of concurrent callers
   * for one burst, at most one gets its entries.
   */
  bufferDrainIfLast(key: string, id: string, now: number, maxHoldMs: number): Promise<BufferEntry[] | null>;

  /** The buffer's entries and summary without changing it; null when empty or missing. */
  bufferPeek(key: string): Promise<BufferSnapshot | null>;

  /**
   * True only for the first call with `key` within `ttlMs` (ms); the mark expires after that. With
   * `owner` (e.g. the caller's execution id), also true for every later call of that same owner
   * while the mark lasts: a caller run again after a crash gets the answer it got the first time.
   * With `previousOwner` too (the execution the caller replays), a mark that owner holds is taken
   * over by `owner` (renewed for `ttlMs`) and counts as first: one replay passes, a second one
   * (replaying the same execution) then finds the first replay's mark.
   */
  dedupe(key: string, ttlMs: number, owner?: string, previousOwner?: string): Promise<boolean>;

  /**
   * Takes the lock `key` for `ttlMs` ms; returns the owner token (`token` when given, else a random
   * one), or null when someone holds it.
   */
  acquireLock(key: string, ttlMs: number, token?: string): Promise<string | null>;
  /** The token holding lock `key`, or null when nobody holds it (never taken, released or expired). */
  lockHolder(key: string): Promise<string | null>;
  /** Releases the lock only when `token` still owns it (compare-and-delete); true when released. */
  releaseLock(key: string, token: string): Promise<boolean>;
  /** Sets the lock's remaining life to `ttlMs` ms only when `token` still owns it; true when extended. */
  extendLock(key: string, token: string, ttlMs: number): Promise<boolean>;

  /** Deletes the buffer, dedupe mark and lock of each exact caller key; returns how many store keys went. */
  erase(keys: string[]): Promise<number>;
  /**
   * Deletes every buffer, dedupe mark and lock whose caller key starts with `prefix` (taken
   * literally: no wildcards); returns how many store keys went. Redis walks with SCAN, never KEYS.
   * An empty prefix is refused (it would erase everything).
   */
  deleteByPrefix(prefix: string): Promise<number>;

  /** Resolves when the store answers; rejects otherwise. */
  ping(): Promise<void>;
  /** Releases connections and timers; the store must not be used afterwards. */
  close(): Promise<void>;
}
