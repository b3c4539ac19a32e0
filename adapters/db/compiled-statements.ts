// SQL compiled by knex once per query shape and kept: knex builds and compiles every query anew (its
// query compiler was 5 % of the server's time under the ingest load), though the text of one shape
// (table, columns written, conditions, order, limit) is always the same; only the values bound to it
// change. `StatementCache.get(key, build)` calls `build` once per key, with a stand-in for each value
// (a text no real value holds), and keeps the text knex compiled and where each stand-in went;
// `bind(values)` then gives the values in the order of the text's placeholders. What is run is
// therefore exactly what knex compiles for those values.
//
// The key must name everything the text depends on besides the bound values: a value knex compiles
// into the text rather than binding it (a null compared with IS NULL, the length of an IN list, a
// limit, an optional clause) must be part of the key, or be the same for every call with that key (a
// constant written in `build`, such as a status). Bounded: the least recently used statement goes
// past MAX_COMPILED (texts differ with the length of an IN list, for example).
import type { Knex } from 'knex';

/** Most statements kept per cache (one cache per Database). */
export const MAX_COMPILED = 500;

/** The stand-in of value `i` while compiling (a text; typed as any value knex binds). */
export type Param = (i: number) => Knex.Value;

/** Stand-ins are `<prefix><index><end>`, between private-use characters no value of LeadFlow's holds. */
const STAND_IN_PREFIX = '\u{E000}leadflow-value:';
const STAND_IN = /^\u{E000}leadflow-value:(\d+)\u{E001}$/u;
const standIn: Param = (i) => `${STAND_IN_PREFIX}${i}\u{E001}`;

/** `columns` mapped to the stand-ins `value(offset + i)`: the values of an INSERT or a SET for `build`. */
export function standIns(columns: readonly string[], value: Param, offset = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < columns.length; i++) out[columns[i]!] = value(offset + i);
  return out;
}

/** One query shape as knex compiled it. */
export class CompiledStatement {
  constructor(
    /** knex's method: select, first, insert, update, del or raw. */
    readonly method: string,
    /**
     * The text to hand knex's client, which numbers the `?` placeholders for PostgreSQL as it runs a
     * query: the native text when it holds no `?` (numbering leaves it as it is, with nothing to
     * replace), else the text as knex compiles it.
     */
    readonly sql: string,
    /** The text as the driver runs it: `$1, $2…` on PostgreSQL, `?` on SQLite. */
    readonly native: string,
    /** Per placeholder, in order: the index of the value bound there, or -1 for a constant of the shape. */
    private readonly slots: readonly number[],
    /** Per placeholder: the constant bound there (where `slots` holds -1). */
    private readonly constants: readonly unknown[],
  ) {}

  /** The values to bind, in placeholder order, from the values `build` was given stand-ins for. */
  bind(values: readonly unknown[]): unknown[] {
    const out = new Array<unknown>(this.slots.length);
    for (let i = 0; i < out.length; i++) {
      const slot = this.slots[i]!;
      out[i] = slot >= 0 ? values[slot] : this.constants[i];
    }
    return out;
  }
}

/** Compiles `query` (built with stand-ins from `standIn`) into a CompiledStatement. */
function compile(query: Knex.QueryBuilder | Knex.Raw): CompiledStatement {
  const compiled = query.toSQL();
  const native = compiled.toNative();
  if (compiled.sql.includes(STAND_IN_PREFIX))
    throw new Error('the query builder wrote a value into the text instead of binding it: this shape cannot be compiled once');
  const slots: number[] = [];
  const constants: unknown[] = [];
  for (const binding of native.bindings) {
    const stand = typeof binding === 'string' ? STAND_IN.exec(binding) : null;
    if (typeof binding === 'string' && !stand && binding.includes(STAND_IN_PREFIX))
      throw new Error(`the query builder changed a value's stand-in (${JSON.stringify(binding)}): this shape cannot be compiled once`);
    slots.push(stand ? Number(stand[1]) : -1);
    constants.push(stand ? undefined : binding);
  }
  const sql = native.sql.includes('?') ? compiled.sql : native.sql;
  return new CompiledStatement(compiled.method, sql, native.sql, slots, constants);
}

/**
 * Compiled statements by their shape's key, at most `max` (default MAX_COMPILED); the least recently
 * used is dropped first.
 */
export class StatementCache {
  /** Per key, its statement and when it was last used (a tick of `clock`). */
  private readonly kept = new Map<string, { statement: CompiledStatement; used: number }>();
  private clock = 0;

  constructor(private readonly max = MAX_COMPILED) {}

  /** Statements held now. */
  get size(): number {
    return this.kept.size;
  }

  /** The statement of `key`, compiled from `build(standIn)` the first time (see the file's head for what the key must name). */
  get(key: string, build: (value: Param) => Knex.QueryBuilder | Knex.Raw): CompiledStatement {
    const known = this.kept.get(key);
    if (known !== undefined) {
      known.used = ++this.clock;
      return known.statement;
    }
    const statement = compile(build(standIn));
    if (this.kept.size >= this.max) this.evictLeastRecentlyUsed();
    this.kept.set(key, { statement, used: ++this.clock });
    return statement;
  }

  /** A scan, only when full: a hit costs one lookup, and a miss compiles anyway. */
  private evictLeastRecentlyUsed(): void {
    let oldest: string | undefined;
    let oldestUsed = Number.POSITIVE_INFINITY;
    for (const [key, entry] of this.kept) {
      if (entry.used < oldestUsed) {
        oldest = key;
        oldestUsed = entry.used;
      }
    }
    if (oldest !== undefined) this.kept.delete(oldest);
  }
}
