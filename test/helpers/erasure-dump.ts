// The whole stored state of a running LeadFlow, as text to search for a person's traces (CONTRACT
// §8 `excluir`, the console's erase): every row of every table of its database, and every key and
// value of its key-value namespace (Redis, or the in-process store). What a lead leaves behind is
// looked for with `tracesIn`: after an erasure, none of its needles may appear anywhere. Also the
// identifiers providers derive from a lead's number (`realisticWamid`), so they are looked for too.
import { expect } from 'vitest';
import type { Database } from '../../adapters/db/database.js';
import type { KeyValue } from '../../adapters/kv/key-value.js';
import type { MemoryKeyValue } from '../../adapters/kv/memory-key-value.js';
import type { RedisKeyValue } from '../../adapters/kv/redis-key-value.js';

/** A dump: what it covered (tables or keys) and the text, one line per row or key. */
export interface Dump {
  /** Table names (database) or full keys (key-value store). */
  names: string[];
  text: string;
}

/** The tables of the database's current schema (SQLite: the file's; PostgreSQL: the search path's first schema). */
async function tableNames(db: Database): Promise<string[]> {
  const knex = db.knex;
  if (db.dialect === 'sqlite') {
    const rows = (await knex.raw("select name from sqlite_master where type = 'table'")) as Array<{ name: string }>;
    return rows.map((r) => r.name);
  }
  const result = (await knex.raw(
    "select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'",
  )) as { rows: Array<{ table_name: string }> };
  return result.rows.map((r) => r.table_name);
}

/** Every row of every table of the database, as JSON text (`<table>: {...}`, one line per row). */
export async function dumpDatabase(db: Database): Promise<Dump> {
  const names = await tableNames(db);
  const lines: string[] = [];
  for (const table of names) {
    const rows = (await db.knex(table).select('*')) as Array<Record<string, unknown>>;
    for (const row of rows)
      lines.push(`${table}: ${JSON.stringify(row, (_k, v: unknown) => (Buffer.isBuffer(v) ? v.toString('utf8') : v))}`);
  }
  return { names, text: lines.join('\n') };
}

/** A Redis value of any type, as JSON-able data. */
async function redisValue(redis: RedisKeyValue['redis'], key: string, type: string): Promise<unknown> {
  switch (type) {
    case 'string':
      return redis.get(key);
    case 'list':
      return redis.lrange(key, 0, -1);
    case 'hash':
      return redis.hgetall(key);
    case 'set':
      return redis.smembers(key);
    case 'zset':
      return redis.zrange(key, '0', '-1', 'WITHSCORES');
    case 'stream':
      return redis.xrange(key, '-', '+');
    default:
      return `(${type})`;
  }
}

/** Every key of the Redis namespace `prefix`. */
async function redisKeys(redis: RedisKeyValue['redis'], prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 500);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

/**
 * Every key and value of the store's namespace, as text (`<key> …value…`, one line per key): on
 * Redis every key under the store's prefix whatever its type (the queue's keys included when they
 * share the prefix), in process every live slot.
 */
export async function dumpKeyValues(store: KeyValue): Promise<Dump> {
  const kv = store as RedisKeyValue | MemoryKeyValue;
  const lines: string[] = [];
  const names: string[] = [];
  if ('redis' in kv) {
    names.push(...(await redisKeys(kv.redis, kv.prefix)));
    for (const key of names) {
      const type = await kv.redis.type(key);
      lines.push(`${key} ${type} ${JSON.stringify(await redisValue(kv.redis, key, type))}`);
    }
  } else {
    for (const key of kv.storage.keysStartingWith(kv.prefix)) {
      names.push(key);
      lines.push(`${key} ${JSON.stringify(kv.storage.get(key), (_k, v: unknown) => (v instanceof Set ? [...v] : v))}`);
    }
  }
  return { names, text: lines.join('\n') };
}

/** The needles found in `text`, any case, in the needles' order. */
export function tracesIn(needles: readonly string[], text: string): string[] {
  const lower = text.toLowerCase();
  return needles.filter((n) => lower.includes(n.toLowerCase()));
}

let wamidSequence = 0;
/**
 * A Cloud API message id as Meta makes them: `wamid.` and base64 of a small record holding the
 * lead's number and a random message key, so the phone can be read back from it (a trace of the
 * lead in its own right). The test fakes' `wamid()` holds random bytes only.
 */
export function realisticWamid(phone: string): string {
  const key = `3EB0${String(Date.now()).slice(-8)}${String(++wamidSequence).padStart(8, '0')}`;
  const record = Buffer.concat([
    Buffer.from([0x1c, 0x18, phone.length]),
    Buffer.from(phone),
    Buffer.from([0x15, 0x02, 0x00, 0x12, 0x18, key.length]),
    Buffer.from(key),
    Buffer.from([0x00]),
  ]);
  return `wamid.${record.toString('base64')}`;
}

/** The lines of `text` holding one of the needles (any case), each cut to `width` around the first, at most `max`: where a trace is. */
export function linesHolding(needles: readonly string[], text: string, max = 5, width = 400): string[] {
  const lower = needles.map((n) => n.toLowerCase());
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const l = line.toLowerCase();
    const at = lower.map((n) => l.indexOf(n)).filter((i) => i >= 0);
    if (at.length === 0) continue;
    const from = Math.max(0, Math.min(...at) - width / 2);
    out.push(line.slice(0, 40) + (from > 40 ? ' … ' : '') + line.slice(Math.max(from, 40), from + width));
    if (out.length >= max) break;
  }
  return out;
}

/** Fails when any needle is in the dump, showing the lines that hold them (`where`: the database, the key-value store). */
export function expectNoTraces(needles: readonly string[], dump: Dump, where: string): void {
  expect(tracesIn(needles, dump.text), `the erased lead in ${where}:\n${linesHolding(needles, dump.text).join('\n')}`).toEqual([]);
}
