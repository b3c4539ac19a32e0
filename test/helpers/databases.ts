// The dialect matrix of database suites: each suite runs on SQLite (a temporary directory) and on
// PostgreSQL (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres) in a schema
// of its own (lf_test_<random>, dropped at the end). When PostgreSQL does not answer, its suites are
// reported as skipped by name, with the reason, never silently passed; when LEADFLOW_TEST_REQUIRE
// lists `postgres` (CI), every test file importing this one fails instead (./required-parts.ts).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { describe } from 'vitest';
import { freshPerTest } from './fresh-per-test.js';
import { partProblem } from './required-parts.js';
import { createDatabase, type Database, type DatabaseOptions, type Dialect } from '../../adapters/db/database.js';

/**
 * Every migration the service ships, in the order they apply (adapters/db/migrations/). Written out
 * here, not read from the code, so the tests check the shipped list; a new migration is added once.
 */
export const MIGRATION_NAMES = [
  '001_contract_tables',
  '002_executions',
  '003_execution_leases',
  '004_kv_slots',
  '005_execution_erasures',
  '006_flow_versions',
  '007_execution_keys',
  '008_schedule_ticks',
  '009_conversation_care',
  '010_activity',
  '011_gateway_providers',
  '012_execution_journal',
  '013_unanswered',
  '014_booking',
  '015_reminders',
  '016_console_people',
  '017_transcript_media',
  '018_partial_execution_indexes',
];

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

/** A fresh database; `cleanup` closes it and removes its file or schema. */
export interface TestDatabase {
  db: Database;
  dialect: Dialect;
  /** PostgreSQL schema holding the tables (undefined on SQLite). */
  schema?: string;
  /** What `createDatabase` needs to open this database (e.g. in a child process). */
  options: DatabaseOptions;
  /** Environment selecting this database for `databaseFromEnv` and the CLI (DATABASE_URL or LEADFLOW_DATA_DIR). */
  env: Record<string, string>;
  /** Opens another Database on the same data (a second process, as far as the data is concerned). */
  openAnother(): Database;
  cleanup(): Promise<void>;
}

export type OpenDatabase = (options?: { migrate?: boolean }) => Promise<TestDatabase>;

/** Why PostgreSQL cannot be used, or null when it answers. */
async function probePostgres(): Promise<string | null> {
  const knex = knexFactory({
    client: 'pg',
    connection: { connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 3000 },
    pool: { min: 0, max: 1 },
    acquireConnectionTimeout: 4000,
  });
  try {
    await knex.raw('select 1');
    return null;
  } catch (err) {
    return `PostgreSQL at ${TEST_DATABASE_URL.replace(/:[^:@/]*@/, ':***@')} does not answer (${(err as Error).message || (err as Error).name})`;
  } finally {
    await knex.destroy().catch(() => undefined);
  }
}

/**
 * Why PostgreSQL cannot be used, or null when it answers. Probed once per test file, at import; when
 * LEADFLOW_TEST_REQUIRE lists `postgres` and it does not answer, the import throws, naming it.
 */
export const postgresProblem: string | null = partProblem('postgres', await probePostgres());

async function adminQuery(sql: string): Promise<void> {
  const knex = knexFactory({ client: 'pg', connection: TEST_DATABASE_URL, pool: { min: 0, max: 1 } });
  try {
    await knex.raw(sql);
  } finally {
    await knex.destroy();
  }
}

const openSqlite: OpenDatabase = async ({ migrate = true } = {}) => {
  const dir = mkdtempSync(join(tmpdir(), 'leadflow-db-'));
  const options: DatabaseOptions = { dataDir: dir };
  const db = createDatabase(options);
  const others: Database[] = [];
  if (migrate) await db.migrate();
  return {
    db,
    dialect: 'sqlite',
    options,
    env: { LEADFLOW_DATA_DIR: dir, DATABASE_URL: '' },
    openAnother() {
      const other = createDatabase(options);
      others.push(other);
      return other;
    },
    async cleanup() {
      await Promise.all([db, ...others].map((d) => d.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
};

/** The URL with `search_path` set to `schema` for every connection (libpq `options`). */
export function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

/** Creates an empty schema `lf_test_<random>` on TEST_DATABASE_URL and returns its name. */
export async function createTestSchema(): Promise<string> {
  const schema = `lf_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create schema ${schema}`);
  return schema;
}

/** Drops a schema made by `createTestSchema`, with everything in it. */
export async function dropTestSchema(schema: string): Promise<void> {
  if (!/^lf_test_[0-9a-f]+$/.test(schema)) throw new Error(`not a test schema: ${schema}`);
  await adminQuery(`drop schema if exists ${schema} cascade`);
}

const openPostgres: OpenDatabase = async ({ migrate = true } = {}) => {
  const schema = await createTestSchema();
  const options: DatabaseOptions = { url: TEST_DATABASE_URL, searchPath: [schema], poolMax: 25 };
  const db = createDatabase(options);
  const others: Database[] = [];
  if (migrate) await db.migrate();
  return {
    db,
    dialect: 'postgres',
    schema,
    options,
    env: { DATABASE_URL: withSearchPath(TEST_DATABASE_URL, schema) },
    openAnother() {
      const other = createDatabase(options);
      others.push(other);
      return other;
    },
    async cleanup() {
      await Promise.all([db, ...others].map((d) => d.close()));
      await dropTestSchema(schema);
    },
  };
};

/** A fresh database of `dialect` outside the matrix (e.g. for a suite that picks its dialect itself). */
export function openTestDatabase(dialect: Dialect, options?: { migrate?: boolean }): Promise<TestDatabase> {
  return dialect === 'postgres' ? openPostgres(options) : openSqlite(options);
}

/**
 * Declares `describe("<title> [sqlite]")` and `describe("<title> [postgres]")` with the same body.
 * Without PostgreSQL the second is `describe.skip` with the reason in its name and a warning.
 */
export function forEachDatabase(title: string, body: (open: OpenDatabase, dialect: Dialect) => void): void {
  describe(`${title} [sqlite]`, () => body(openSqlite, 'sqlite'));
  if (postgresProblem) {
    console.warn(`skipping "${title} [postgres]": ${postgresProblem}`);
    describe.skip(`${title} [postgres] (skipped: ${postgresProblem})`, () => body(openPostgres, 'postgres'));
  } else {
    describe(`${title} [postgres]`, () => body(openPostgres, 'postgres'));
  }
}

/**
 * A fresh, migrated database for every test of the enclosing describe: call inside the body of
 * `forEachDatabase` and read `.current` in the tests.
 */
export function useFreshDatabase(open: () => Promise<TestDatabase>): { readonly current: TestDatabase } {
  return freshPerTest(open, 'database (useFreshDatabase() works inside tests only)');
}
