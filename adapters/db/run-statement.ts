// Runs a compiled statement (compiled-statements.ts) through knex's client, on a connection of its
// pool or on the transaction `knex` is bound to: the same driver call, the same 'query' events and
// the same error messages (the statement's text and values before the driver's message) as a query
// knex builds, without building, compiling and wrapping it in a runner again.
import type { Knex } from 'knex';
import type { CompiledStatement } from './compiled-statements.js';

/** The part of knex's client used here (a transaction's client acquires the transaction's connection). */
interface KnexClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(connection: unknown): Promise<unknown>;
  query(connection: unknown, query: { method: string; sql: string; bindings: unknown[] }): Promise<RanQuery>;
}

/** What knex's client hands back: the driver's response (pg: a result; better-sqlite3: rows, or a run's changes). */
interface RanQuery {
  response?: unknown;
  context?: { changes?: number };
}

/** What one statement gave back, alike on both dialects: its rows and how many rows it changed or returned. */
export interface StatementResult {
  /** The rows returned (by a SELECT, or a RETURNING clause); empty for other statements. */
  rows: Array<Record<string, unknown>>;
  /** Rows changed (an INSERT, UPDATE or DELETE without RETURNING), otherwise rows returned. */
  count: number;
}

/** Runs `statement` with `values` (see CompiledStatement.bind). Rejects as the query knex builds would. */
export async function runStatement(knex: Knex, statement: CompiledStatement, values: readonly unknown[]): Promise<StatementResult> {
  const client = knex.client as KnexClient;
  const connection = await client.acquireConnection();
  try {
    const ran = await client.query(connection, { method: statement.method, sql: statement.sql, bindings: statement.bind(values) });
    return resultOf(ran);
  } finally {
    await client.releaseConnection(connection);
  }
}

function resultOf(ran: RanQuery): StatementResult {
  const response = ran.response;
  // better-sqlite3: the rows of a statement that returns data, else the run's result.
  if (Array.isArray(response)) return { rows: response as StatementResult['rows'], count: response.length };
  const pg = response as { rows?: unknown; rowCount?: unknown; changes?: unknown } | undefined;
  if (pg && Array.isArray(pg.rows)) {
    const rows = pg.rows as StatementResult['rows'];
    return { rows, count: typeof pg.rowCount === 'number' ? pg.rowCount : rows.length };
  }
  const changes = ran.context?.changes ?? pg?.changes;
  return { rows: [], count: typeof changes === 'number' ? changes : 0 };
}
