// Several SQLite statements as one transaction, run synchronously on the connection (better-sqlite3)
// with no await between them. A knex transaction awaits between its statements: with two connections
// to one file in a process, the other's write then blocks the thread in SQLite's busy wait while this
// transaction can never reach its COMMIT ("database is locked"). Here nothing else runs in between.
import type { Knex } from 'knex';

/** The part of a better-sqlite3 connection used here. */
interface SqliteConnection {
  prepare(sql: string): { run(...bindings: unknown[]): { changes: number } };
  transaction<T>(fn: () => T): () => T;
}

/** Runs a knex query on the connection; resolves to the rows it changed. */
export type RunStatement = (query: Knex.QueryBuilder) => number;

/** Runs `body` in one transaction on the SQLite database of `knex` (its queries through `run`); returns what `body` returns. */
export async function sqliteAtomically<T>(knex: Knex, body: (run: RunStatement) => T): Promise<T> {
  const client = knex.client as {
    acquireConnection(): Promise<SqliteConnection>;
    releaseConnection(c: SqliteConnection): Promise<unknown>;
  };
  const conn = await client.acquireConnection();
  try {
    const run: RunStatement = (query) => {
      const { sql, bindings } = query.toSQL().toNative();
      return conn.prepare(sql).run(...bindings).changes;
    };
    return conn.transaction(() => body(run))();
  } finally {
    await client.releaseConnection(conn);
  }
}
