// KeyValue on Redis (ioredis): shared by every process that uses the same server and prefix.
// Buffers and dedupe marks are driven by Lua scripts (lua-scripts.ts); locks are strings set
// with SET NX PX; erasure walks with SCAN (never KEYS) and deletes with UNLINK.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { JsonValue } from '../../engine/types.js';
import { DEFAULT_BUFFER_TTL_MS, type BufferEntry, type BufferSnapshot, type BufferSummary, type KeyValue } from './key-value.js';
import { checkKey, checkMs, checkTtl, DEFAULT_PREFIX, escapeGlob, KINDS, storeKey, type Kind } from './key-names.js';
import { scripts } from './lua-scripts.js';

/**
 * Which Redis to use (a URL, or a client the store does not own), the key namespace, and where
 * connection errors go.
 */
export interface RedisKeyValueOptions {
  /** `redis://…` URL; ignored when `client` is given. */
  url?: string;
  /** An existing client; the store then does not close it. */
  client?: Redis;
  /** Namespace of every key; default `leadflow:`. */
  prefix?: string;
  /** Called with connection errors (ioredis reconnects on its own); default: ioredis prints them. */
  onError?: (err: Error) => void;
}

/** Keys per SCAN round trip and per UNLINK. */
const SCAN_COUNT = 500;

/** KeyValue on Redis (see the file comment), shared by every process using the same server and prefix. */
export class RedisKeyValue implements KeyValue {
  readonly prefix: string;
  readonly redis: Redis;
  private readonly ownsClient: boolean;

  constructor(options: RedisKeyValueOptions = {}) {
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.ownsClient = !options.client;
    this.redis = options.client ?? new Redis(options.url ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 3 });
    if (options.onError) this.redis.on('error', options.onError);
  }

  private key(kind: Kind, key: string): string {
    return storeKey(this.prefix, kind, key);
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
    const entry = JSON.stringify({ id, at, payload: payload ?? null });
    const reply = (await scripts.bufferPush.run(this.redis, [this.key('buf', key)], [id, entry, at, ttlMs])) as [
      string,
      string,
      string,
      string,
      number,
    ];
    return { count: Number(reply[0]), first_at: Number(reply[1]), last_at: Number(reply[2]), last_id: reply[3], added: reply[4] === 1 };
  }

  async bufferDrainIfLast(key: string, id: string, now: number, maxHoldMs: number): Promise<BufferEntry[] | null> {
    checkKey('buffer key', key);
    checkKey('message id', id);
    checkMs('now', now);
    checkMs('max hold', maxHoldMs);
    const reply = (await scripts.bufferDrainIfLast.run(this.redis, [this.key('buf', key)], [id, Math.floor(now), Math.floor(maxHoldMs)])) as
      | string[]
      | null;
    return reply ? reply.map((json) => JSON.parse(json) as BufferEntry) : null;
  }

  async bufferPeek(key: string): Promise<BufferSnapshot | null> {
    checkKey('buffer key', key);
    const hash = await this.redis.hgetall(this.key('buf', key));
    const count = Number(hash.count ?? 0);
    if (count < 1) return null;
    const entries: BufferEntry[] = [];
    for (let i = 1; i <= count; i++) entries.push(JSON.parse(hash[`e:${i}`] ?? 'null') as BufferEntry);
    return { count, first_at: Number(hash.first_at), last_at: Number(hash.last_at), last_id: hash.last_id ?? '', entries };
  }

  /** One EVALSHA (lua-scripts.ts DEDUPE): the mark is read and set atomically. */
  async dedupe(key: string, ttlMs: number, owner?: string, previousOwner?: string): Promise<boolean> {
    checkKey('dedupe key', key);
    checkTtl('dedupe ttl', ttlMs);
    if (owner !== undefined) checkKey('dedupe owner', owner);
    if (previousOwner !== undefined) checkKey('dedupe previous owner', previousOwner);
    const previous = owner !== undefined ? (previousOwner ?? '') : '';
    return Number(await scripts.dedupe.run(this.redis, [this.key('dedupe', key)], [owner ?? '', ttlMs, previous])) === 1;
  }

  async acquireLock(key: string, ttlMs: number, owner?: string): Promise<string | null> {
    checkKey('lock key', key);
    checkTtl('lock ttl', ttlMs);
    if (owner !== undefined) checkKey('lock token', owner);
    const token = owner ?? randomBytes(16).toString('hex');
    return (await this.redis.set(this.key('lock', key), token, 'PX', ttlMs, 'NX')) === 'OK' ? token : null;
  }

  async lockHolder(key: string): Promise<string | null> {
    checkKey('lock key', key);
    return this.redis.get(this.key('lock', key));
  }

  async releaseLock(key: string, token: string): Promise<boolean> {
    checkKey('lock key', key);
    checkKey('lock token', token);
    return (await scripts.lockRelease.run(this.redis, [this.key('lock', key)], [token])) === 1;
  }

  async extendLock(key: string, token: string, ttlMs: number): Promise<boolean> {
    checkKey('lock key', key);
    checkKey('lock token', token);
    checkTtl('lock ttl', ttlMs);
    return (await scripts.lockExtend.run(this.redis, [this.key('lock', key)], [token, ttlMs])) === 1;
  }

  async erase(keys: string[]): Promise<number> {
    for (const k of keys) checkKey('key to erase', k);
    if (keys.length === 0) return 0;
    return this.redis.unlink(...keys.flatMap((k) => KINDS.map((kind) => this.key(kind, k))));
  }

  async deleteByPrefix(prefix: string): Promise<number> {
    checkKey('prefix to erase', prefix);
    let deleted = 0;
    for (const kind of KINDS) {
      const match = `${escapeGlob(this.key(kind, prefix))}*`;
      let cursor = '0';
      do {
        const [next, found] = await this.redis.scan(cursor, 'MATCH', match, 'COUNT', SCAN_COUNT);
        cursor = next;
        if (found.length > 0) deleted += await this.redis.unlink(...found);
      } while (cursor !== '0');
    }
    return deleted;
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    if (!this.ownsClient || this.redis.status === 'end') return;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }
}
