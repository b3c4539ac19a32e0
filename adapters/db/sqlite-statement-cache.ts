// Prepared statements of a SQLite connection (better-sqlite3) kept for reuse: knex prepares the SQL
// of every query again, and preparing (parsing and planning) cost as much as running under the ingest
// load. `cacheStatements(conn)` makes `conn.prepare(sql)` return the statement already prepared for
// that exact text. Safe because knex runs a statement to its end (`all` or `run`, never an open
// iterator) before the next query on the one connection, and SQLite prepares a statement again by
// itself after a schema change. Bounded: the least recently used statement goes past MAX_STATEMENTS
// (texts differ with the length of an `in` list, for example).

/** Most statements kept per connection. */
export const MAX_STATEMENTS = 500;

/** The part of a better-sqlite3 connection used here. */
export interface PreparingConnection {
  prepare(sql: string): unknown;
}

/** Makes `conn.prepare` reuse what it prepared for the same text (at most `max` kept); returns `conn`. */
export function cacheStatements<C extends PreparingConnection>(conn: C, max = MAX_STATEMENTS): C {
  const prepare = conn.prepare.bind(conn);
  const kept = new Map<string, unknown>();
  conn.prepare = (sql: string) => {
    const known = kept.get(sql);
    if (known !== undefined) {
      // Most recently used last: a Map iterates in insertion order.
      kept.delete(sql);
      kept.set(sql, known);
      return known;
    }
    const statement = prepare(sql);
    kept.set(sql, statement);
    if (kept.size > max) kept.delete(kept.keys().next().value as string);
    return statement;
  };
  return conn;
}
