// The Lua scripts of the Redis store. Each runs atomically on the server, so no other client's
// command lands between its reads and writes (the GET -> DELETE race of the n8n buffer pattern).
//
// A buffer is one hash: `count`, `first_at`, `last_at`, `last_id`, `i:<id>` -> position (1-based)
// and `e:<position>` -> the entry as JSON `{"id","at","payload"}` (encoded by the client).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** KEYS[1] buffer; ARGV id, entry JSON, now, ttl ms. Returns {count, first_at, last_at, last_id, added}. */
const BUFFER_PUSH = `
local added = 0
if redis.call('HEXISTS', KEYS[1], 'i:' .. ARGV[1]) == 0 then
  local n = redis.call('HINCRBY', KEYS[1], 'count', 1)
  redis.call('HSET', KEYS[1], 'i:' .. ARGV[1], n, 'e:' .. n, ARGV[2], 'last_at', ARGV[3], 'last_id', ARGV[1])
  if n == 1 then redis.call('HSET', KEYS[1], 'first_at', ARGV[3]) end
  added = 1
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local m = redis.call('HMGET', KEYS[1], 'count', 'first_at', 'last_at', 'last_id')
return {m[1], m[2], m[3], m[4], added}
`;

/**
 * KEYS[1] buffer; ARGV id, now, max hold ms. Returns the entry JSONs in order and deletes the
 * buffer when id is a member and (is the last, or now - first_at >= max hold); else false (nil).
 */
const BUFFER_DRAIN_IF_LAST = `
local m = redis.call('HMGET', KEYS[1], 'count', 'first_at', 'last_id', 'i:' .. ARGV[1])
if not m[1] or not m[4] then return false end
if m[3] ~= ARGV[1] and tonumber(ARGV[2]) - tonumber(m[2]) < tonumber(ARGV[3]) then return false end
local out = {}
for i = 1, tonumber(m[1]) do out[i] = redis.call('HGET', KEYS[1], 'e:' .. i) end
redis.call('DEL', KEYS[1])
return out
`;

/** KEYS[1] lock; ARGV token. Deletes the lock only when it holds token; returns 1 or 0. */
const LOCK_RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** KEYS[1] lock; ARGV token, ttl ms. Sets the lock's expiry only when it holds token; returns 1 or 0. */
const LOCK_EXTEND = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/**
 * KEYS[1] dedupe mark; ARGV owner ('' for none), ttl ms, previous owner ('' for none). Returns 1 when
 * the mark was absent (now set to the owner, '' for none), when it holds the (non-empty) owner, or
 * when it holds the (non-empty) previous owner (then taken over: set to the owner for ttl ms); else 0.
 */
const DEDUPE = `
local held = redis.call('GET', KEYS[1])
if held then
  if ARGV[1] ~= '' and held == ARGV[1] then return 1 end
  if ARGV[3] ~= '' and held == ARGV[3] then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
    return 1
  end
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

/** A Lua script run inside Redis by EVALSHA; loaded (SCRIPT LOAD) when the server lacks it. */
export class LuaScript {
  private readonly sha: string;
  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: string[], args: Array<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      // SCRIPT LOAD then EVALSHA: the Lua runs inside Redis; nothing is evaluated in this process.
      await redis.script('LOAD', this.source);
      return redis.evalsha(this.sha, keys.length, ...keys, ...args);
    }
  }
}

/**
 * The Lua scripts of the Redis store, each loaded once per server (EVALSHA, SCRIPT LOAD on a NOSCRIPT
 * reply): buffer push and drain, lock release and extension, dedupe.
 */
export const scripts = {
  bufferPush: new LuaScript(BUFFER_PUSH),
  bufferDrainIfLast: new LuaScript(BUFFER_DRAIN_IF_LAST),
  lockRelease: new LuaScript(LOCK_RELEASE),
  lockExtend: new LuaScript(LOCK_EXTEND),
  dedupe: new LuaScript(DEDUPE),
};
