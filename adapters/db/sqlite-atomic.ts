// Several SQLite statements as one transaction, run synchronously on the connection (better-sqlite3)
// with no await between them. A knex transaction awaits between its statements: with two connections
// to one file in a process, the other's write then blocks the thread in SQLite's busy wait while this
// transaction can never reach its COMMIT ("database is locked"). Here nothing else runs in between.
import type { Knex } from 'knex';
import type { CompiledStatement } from './compiled-statements.js';

/** The part of a better-sqlite3 connection used here. */
interface SqliteConnection {
  prepare(sql: string): { run(...bindings: unknown[]): { changes: number } };
  transaction<T>(fn: () => T): () => T;
}

/** Runs a compiled statement (compiled-statements.ts) with its values on the connection; returns the rows it changed. */
export type RunStatement = (statement: CompiledStatement, values: readonly unknown[]) => number;

/** Runs `body` in one transaction on the SQLite database of `knex` (its statements through `run`); returns what `body` returns. */
export async function sqliteAtomically<T>(knex: Knex, body: (run: RunStatement) => T): Promise<T> {
  const client = knex.client as {
    acquireConnection(): Promise<SqliteConnection>;
    releaseConnection(c: SqliteConnection): Promise<unknown>;
  };
  const conn = await client.acquireConnection();
  try {
    const run: RunStatement = (statement, values) => conn.prepare(statement.native).run(...statement.bind(values)).changes;
    return conn.transaction(() => body(run))();
  } finally {
    await client.releaseConnection(conn);
  }
}
