// Dialect helpers for migrations: the same schema on SQLite and PostgreSQL.
import type { Knex } from 'knex';

/** True when `knex` talks to PostgreSQL (false: SQLite). */
export function isPostgres(knex: Knex): boolean {
  return knex.client.dialect === 'postgresql';
}

/**
 * Default of timestamp columns: the current time. SQLite stores it as ISO 8601 text in UTC with
 * milliseconds (`2025-01-31T12:00:00.000Z`), the format the table operations write, so text
 * comparisons order correctly; PostgreSQL uses timestamptz.
 */
export function nowDefault(knex: Knex): Knex.Raw {
  return isPostgres(knex) ? knex.raw('CURRENT_TIMESTAMP') : knex.raw("(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))");
}

/** A timestamp column: timestamptz on PostgreSQL, datetime (ISO text) on SQLite. */
export function timestamp(t: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder {
  return t.timestamp(name, { useTz: true });
}
