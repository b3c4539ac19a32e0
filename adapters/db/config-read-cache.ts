// The read cache of the configuration tables (tables.ts `cacheable`: clinics, protocols, WhatsApp
// instances), one per `Database` (database.ts: its `get`, `find` and `instanceById`; a process opens
// one Database), in the process's memory.
//
//   Key        the table and the exact query: `where` (keys sorted, an undefined condition read as
//              null, as the query treats it), `order_by` (in order) and `limit` (default 100). A
//              query holding anything but JSON values (a Date, a bigint, NaN) is not cached.
//   TTL        CONFIG_CACHE_TTL_MS (5 s), counted from when the read that filled the entry was sent:
//              a change made by another process (`leadflow seed` while `serve` runs, a second
//              `serve` or `worker`) is seen at most that long after it committed. 0 turns caching off.
//   Size       at most CONFIG_CACHE_MAX_ENTRIES queries; the least recently used is dropped first.
//   Copies     rows are copied into the cache and out of it on every hit: a caller changing a row it
//              got changes nothing for the next one (a row of primitives is copied flat, one holding
//              objects or arrays deeply).
//   Writes     `invalidate(table)` drops every entry of the table at once and bumps its generation: a
//              read that was already on its way when the table changed does not fill the cache with
//              what it read (it may predate the change).
// Rows hold credentials (an instance's token): they stay in this process's memory, as they would
// for the length of any request; keys never hold a row's value, only what the query names.
import { DEFAULT_FIND_LIMIT, type FindOptions, type Row } from './table-ops.js';

/** How long a cached read answers, ms. */
export const CONFIG_CACHE_TTL_MS = 5_000;
/** Most cached queries (each holds the rows one read returned, at most 1000). */
export const CONFIG_CACHE_MAX_ENTRIES = 1_000;

/** The read cache's TTL (ms; 0 turns it off), size and clock; the defaults are the constants above. */
export interface ConfigReadCacheOptions {
  /** How long a cached read answers, ms; default CONFIG_CACHE_TTL_MS; 0: nothing is cached. */
  ttlMs?: number;
  /** Most cached queries; default CONFIG_CACHE_MAX_ENTRIES. */
  maxEntries?: number;
  /** This process's clock, ms; default Date.now. */
  now?: () => number;
}

interface Entry {
  table: string;
  rows: Row[];
  /** Clock time after which the entry no longer answers, ms. */
  expiresAt: number;
}

/**
 * The per-process read cache of the configuration tables, as the file comment describes (key, TTL,
 * size, copies, invalidation).
 */
export class ConfigReadCache {
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  /** Insertion order is recency: a hit moves its entry to the end; the first is evicted first. */
  private readonly entries = new Map<string, Entry>();
  /** Per table, bumped by every invalidation of the table. */
  private readonly generations = new Map<string, number>();
  /** Bumped by `clear`. */
  private epoch = 0;

  constructor(options: ConfigReadCacheOptions = {}) {
    this.ttlMs = Math.max(0, options.ttlMs ?? CONFIG_CACHE_TTL_MS);
    this.maxEntries = Math.max(1, options.maxEntries ?? CONFIG_CACHE_MAX_ENTRIES);
    this.now = options.now ?? Date.now;
  }

  /** Queries held now (expired ones included until they are read or evicted). */
  get size(): number {
    return this.entries.size;
  }

  /** The rows of `find(table, options)`: a copy of the cached ones while fresh, else what `load` reads (cached). */
  async find(table: string, options: FindOptions, load: () => Promise<Row[]>): Promise<Row[]> {
    const key = this.ttlMs > 0 ? queryKey(table, options) : undefined;
    if (key === undefined) return load();
    const entry = this.entries.get(key);
    const started = this.now();
    if (entry && started < entry.expiresAt) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      return copyRows(entry.rows);
    }
    if (entry) this.entries.delete(key);
    const generation = this.generation(table);
    const epoch = this.epoch;
    const rows = await load();
    if (this.generation(table) === generation && this.epoch === epoch) {
      this.entries.set(key, { table, rows: copyRows(rows), expiresAt: started + this.ttlMs });
      while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    }
    return rows;
  }

  /** Drops every cached read of `table`; reads of it under way when called are not cached. */
  invalidate(table: string): void {
    this.generations.set(table, this.generation(table) + 1);
    for (const [key, entry] of this.entries) if (entry.table === table) this.entries.delete(key);
  }

  /** Drops everything (e.g. after migrations changed the tables' columns); reads under way are not cached. */
  clear(): void {
    this.epoch++;
    this.entries.clear();
  }

  private generation(table: string): number {
    return this.generations.get(table) ?? 0;
  }
}

function copyRows(rows: Row[]): Row[] {
  return rows.map(copyRow);
}

/**
 * A copy of `row` that shares nothing a caller could change: a new object of the same values when
 * every value is a primitive (a configuration row: text, numbers, booleans, nulls), else a deep clone.
 */
function copyRow(row: Row): Row {
  for (const value of Object.values(row)) if (typeof value === 'object' && value !== null) return structuredClone(row);
  return { ...row };
}

/** The cache key of a read, or undefined when it holds a value that is not plain JSON. */
export function queryKey(table: string, options: FindOptions): string | undefined {
  const normal = canonical({ where: options.where ?? {}, order_by: options.order_by ?? [], limit: options.limit ?? DEFAULT_FIND_LIMIT });
  return normal === undefined ? undefined : `${table} ${normal}`;
}

/** JSON with object keys sorted and undefined as null; undefined for anything that is not plain JSON. */
function canonical(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'object': {
      if (Array.isArray(value)) {
        const items = value.map(canonical);
        return items.includes(undefined) ? undefined : `[${items.join(',')}]`;
      }
      if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return undefined;
      const parts: string[] = [];
      for (const key of Object.keys(value).sort()) {
        const item = canonical((value as Record<string, unknown>)[key]);
        if (item === undefined) return undefined;
        parts.push(`${JSON.stringify(key)}:${item}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      return undefined;
  }
}
