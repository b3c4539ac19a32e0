// KeyValue in this process, with the same semantics as the Redis store (the shared contract suite
// runs on both). Every method does its whole work synchronously before it resolves, which makes it
// atomic the way a Lua script is. Payloads are copied through JSON in and out, as Redis would store
// them. Expiry is lazy (checked on access) plus a sweep every SWEEP_EVERY writes, so no timers run.
import { randomBytes } from 'node:crypto';
import type { JsonValue } from '../../engine/types.js';
import { DEFAULT_BUFFER_TTL_MS, type BufferEntry, type BufferSnapshot, type BufferSummary, type KeyValue } from './key-value.js';
import { checkKey, checkMs, checkTtl, DEFAULT_PREFIX, KINDS, storeKey, type Kind } from './key-names.js';

/**
 * A buffer as the memory store keeps it: its entries in arrival order, their ids (for the id check),
 * and when its first and last entries arrived (ms since the epoch).
 */
export interface MemoryBuffer {
  entries: BufferEntry[];
  ids: Set<string>;
  first_at: number;
  last_at: number;
}

/**
 * What the memory store keeps under one store key: a buffer or a string value (a dedupe mark, a lock's
 * token), and when it expires (ms since the epoch).
 */
export type Slot = { expiresAt: number } & ({ buffer: MemoryBuffer } | { value: string });

/** Writes between two sweeps of expired keys. */
const SWEEP_EVERY = 1000;

/** The data of one or more MemoryKeyValue instances (share it to mimic several clients of one server). */
export class MemoryKeyValueStorage {
  private readonly slots = new Map<string, Slot>();
  private writes = 0;

  get(key: string, now = Date.now()): Slot | undefined {
    const slot = this.slots.get(key);
    if (slot && slot.expiresAt <= now) {
      this.slots.delete(key);
      return undefined;
    }
    return slot;
  }

  set(key: string, slot: Slot): void {
    this.slots.set(key, slot);
    if (++this.writes % SWEEP_EVERY === 0) this.sweep();
  }

  delete(key: string): boolean {
    const live = this.get(key) !== undefined;
    this.slots.delete(key);
    return live;
  }

  /** Live keys starting with `prefix`. */
  keysStartingWith(prefix: string): string[] {
    const now = Date.now();
    return [...this.slots.keys()].filter((k) => k.startsWith(prefix) && this.get(k, now) !== undefined);
  }

  /** Drops every expired key. */
  sweep(now = Date.now()): void {
    for (const [key, slot] of this.slots) if (slot.expiresAt <= now) this.slots.delete(key);
  }

  /** Resolves when every change so far is durable (write-through storages); at once in memory. */
  async flush(): Promise<void> {}

  /** Number of live keys (for tests). */
  get size(): number {
    this.sweep();
    return this.slots.size;
  }
}

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The memory store's key namespace and the storage it keeps its data in. */
export interface MemoryKeyValueOptions {
  /** Namespace of every key; default `leadflow:`. */
  prefix?: string;
  /** Data shared with other instances; default: a fresh one of its own. */
  storage?: MemoryKeyValueStorage;
}

/**
 * KeyValue in this process's memory (see the file comment): one process only, unless its storage is
 * durable (DurableKeyValueStorage, the embedded mode).
 */
export class MemoryKeyValue implements KeyValue {
  readonly prefix: string;
  readonly storage: MemoryKeyValueStorage;
  private closed = false;

  constructor(options: MemoryKeyValueOptions = {}) {
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.storage = options.storage ?? new MemoryKeyValueStorage();
  }

  private key(kind: Kind, key: string): string {
    if (this.closed) throw new Error('the key-value store is closed');
    return storeKey(this.prefix, kind, key);
  }

  private buffer(key: string): MemoryBuffer | undefined {
    const slot = this.storage.get(this.key('buf', key));
    return slot && 'buffer' in slot ? slot.buffer : undefined;
  }

  async bufferPush(
    key: string,
    id: string,
    payload: JsonValue,
    now: number,
    ttlMs: number = DEFAULT_BUFFER_TTL_MS,
  ): Promise<BufferSummary> {
    checkKey('buffer key', key);
    checkKey('message id', id);
    checkMs('now', now);
    checkTtl('buffer ttl', ttlMs);
    const at = Math.floor(now);
    const buffer = this.buffer(key) ?? { entries: [], ids: new Set<string>(), first_at: at, last_at: at };
    const added = !buffer.ids.has(id);
    if (added) {
      buffer.entries.push({ id, at, payload: copy(payload ?? null) });
      buffer.ids.add(id);
      buffer.last_at = at;
    }
    this.storage.set(this.key('buf', key), { buffer, expiresAt: Date.now() + ttlMs });
    const last = buffer.entries[buffer.entries.length - 1]!;
    // Taken before the flush: other calls may change the buffer while it is written.
    const summary = { count: buffer.entries.length, first_at: buffer.first_at, last_at: buffer.last_at, last_id: last.id, added };
    await this.storage.flush();
    return summary;
  }

  async bufferDrainIfLast(key: string, id: string, now: number, maxHoldMs: number): Promise<BufferEntry[] | null> {
    checkKey('buffer key', key);
    checkKey('message id', id);
    checkMs('now', now);
    checkMs('max hold', maxHoldMs);
    const buffer = this.buffer(key);
    if (!buffer?.ids.has(id)) return null;
    const last = buffer.entries[buffer.entries.length - 1]!;
    if (last.id !== id && Math.floor(now) - buffer.first_at < Math.floor(maxHoldMs)) return null;
    this.storage.delete(this.key('buf', key));
    const drained = copy(buffer.entries);
    await this.storage.flush();
    return drained;
  }

  async bufferPeek(key: string): Promise<BufferSnapshot | null> {
    checkKey('buffer key', key);
    const buffer = this.buffer(key);
    if (!buffer) return null;
    const last = buffer.entries[buffer.entries.length - 1]!;
    return {
      count: buffer.entries.length,
      first_at: buffer.first_at,
      last_at: buffer.last_at,
      last_id: last.id,
      entries: copy(buffer.entries),
    };
  }

  async dedupe(key: string, ttlMs: number, owner?: string, previousOwner?: string): Promise<boolean> {
    checkKey('dedupe key', key);
    checkTtl('dedupe ttl', ttlMs);
    if (owner !== undefined) checkKey('dedupe owner', owner);
    if (previousOwner !== undefined) checkKey('dedupe previous owner', previousOwner);
    const full = this.key('dedupe', key);
    const held = this.storage.get(full);
    if (held && owner !== undefined && 'value' in held && held.value === owner) return true;
    if (held && owner !== undefined && previousOwner !== undefined && 'value' in held && held.value === previousOwner) {
      this.storage.set(full, { value: owner, expiresAt: Date.now() + ttlMs });
      await this.storage.flush();
      return true;
    }
    // Without an owner the mark holds '' (never an owner: owners are not empty).
    const first = this.setIfAbsent(full, owner ?? '', ttlMs);
    await this.storage.flush();
    return first;
  }

  async acquireLock(key: string, ttlMs: number, owner?: string): Promise<string | null> {
    checkKey('lock key', key);
    checkTtl('lock ttl', ttlMs);
    if (owner !== undefined) checkKey('lock token', owner);
    const token = owner ?? randomBytes(16).toString('hex');
    const taken = this.setIfAbsent(this.key('lock', key), token, ttlMs);
    await this.storage.flush();
    return taken ? token : null;
  }

  async lockHolder(key: string): Promise<string | null> {
    checkKey('lock key', key);
    const slot = this.storage.get(this.key('lock', key));
    return slot && 'value' in slot ? slot.value : null;
  }

  async releaseLock(key: string, token: string): Promise<boolean> {
    checkKey('lock key', key);
    checkKey('lock token', token);
    const full = this.key('lock', key);
    if (!this.holds(full, token)) return false;
    const released = this.storage.delete(full);
    await this.storage.flush();
    return released;
  }

  async extendLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    checkKey('lock key', key);
    checkKey('lock token', token);
    checkTtl('lock ttl', ttlMs);
    const full = this.key('lock', key);
    if (!this.holds(full, token)) return false;
    this.storage.set(full, { value: token, expiresAt: Date.now() + ttlMs });
    await this.storage.flush();
    return true;
  }

  async erase(keys: string[]): Promise<number> {
    for (const k of keys) checkKey('key to erase', k);
    let deleted = 0;
    for (const k of keys) for (const kind of KINDS) if (this.storage.delete(this.key(kind, k))) deleted++;
    await this.storage.flush();
    return deleted;
  }

  async deleteByPrefix(prefix: string): Promise<number> {
    checkKey('prefix to erase', prefix);
    let deleted = 0;
    for (const kind of KINDS)
      for (const full of this.storage.keysStartingWith(this.key(kind, prefix))) if (this.storage.delete(full)) deleted++;
    await this.storage.flush();
    return deleted;
  }

  async ping(): Promise<void> {
    if (this.closed) throw new Error('the key-value store is closed');
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private setIfAbsent(full: string, value: string, ttlMs: number): boolean {
    if (this.storage.get(full)) return false;
    this.storage.set(full, { value, expiresAt: Date.now() + ttlMs });
    return true;
  }

  private holds(full: string, token: string): boolean {
    const slot = this.storage.get(full);
    return !!slot && 'value' in slot && slot.value === token;
  }
}
