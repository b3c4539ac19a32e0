// The database behind `ctx.services.db`: knex on PostgreSQL (DATABASE_URL) or on a SQLite file
// (`<dataDir>/leadflow.sqlite`, WAL, foreign keys on). Holds the table operations of the db.* node
// types, migrations, transactions and the rollback scope of dry runs.
//
// SQLite runs on one connection (better-sqlite3 is synchronous; a second connection would block the
// event loop while waiting for the write lock). While a transaction or rollback scope is open, every
// other query of this Database waits for it: inside `transaction(fn)` use the `db` handed to `fn`.
//
// Configuration reads are cached (config-read-cache.ts): `get`, `find` and `instanceById` on a table
// marked `cacheable` in tables.ts (clinics, protocols, instances) answer from a per-Database cache
// (a process opens one Database) for up to CONFIG_CACHE_TTL_MS (5 s). A write through this Database
// (insert, upsert, update, delete) clears the entries of its table, and of the tables its deletes
// cascade to (a clinic's protocols and instances), as soon as it returns; a write inside
// `transaction` or `rollbackScope` when the outermost transaction ends (committed or not). Reads
// inside a transaction neither use nor fill the cache. Changes not made through this Database
// (another process such as `leadflow seed` while `serve` runs, another Database, SQL through `knex`)
// are seen once the entries that predate them expire: at most CONFIG_CACHE_TTL_MS after they commit.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import { gatewayInstanceFromRow, type GatewayInstance } from '../gateway/instance-directory.js';
import { StatementCache } from './compiled-statements.js';
import { ConfigReadCache, type ConfigReadCacheOptions } from './config-read-cache.js';
import { cacheStatements, type PreparingConnection } from './sqlite-statement-cache.js';
import { migrationSource, MIGRATIONS_TABLE } from './migrations/index.js';
import { FALLBACK_AUTOCHECKPOINT_PAGES, WalCheckpointer, type WalCheckpointerOptions } from './wal-checkpointer.js';
import { cacheableTablesChangedBy, isCacheableTable } from './tables.js';
import { TableOps, type FindOptions, type OrderBy, type Row, type TableOperations, type UpsertOptions, type Where } from './table-ops.js';
import type { Dialect } from './values.js';

export type { Dialect } from './values.js';

/**
 * Where the data lives (a PostgreSQL URL, or SQLite under a directory), the pool size and the
 * configuration read cache.
 */
export interface DatabaseOptions {
  /** `postgres://…` selects PostgreSQL; unset: SQLite under `dataDir`. */
  url?: string;
  /** Directory of the SQLite file `leadflow.sqlite` (created when missing). Default `./data`. */
  dataDir?: string;
  /** PostgreSQL schemas to search (first one gets new tables); default the server's search_path. */
  searchPath?: string[];
  /** Most PostgreSQL connections. Default 10, at least 2 (migrations hold one while using another). */
  poolMax?: number;
  /** The configuration read cache's TTL (0: off), size and clock; defaults in config-read-cache.ts. */
  configCache?: ConfigReadCacheOptions;
}

/** A row of `instancias_whatsapp`, as the gateway needs it (credentials included: never log or record it). */
export interface InstanceRow extends GatewayInstance {
  nome: string;
}

/** How long `migrate` waits for another process holding the migration lock, ms. */
const MIGRATION_LOCK_WAIT_MS = 30_000;
/** Default bound of `ping`, ms. */
const PING_TIMEOUT_MS = 2_000;
/** How long SQLite waits for another process's write lock before SQLITE_BUSY, ms. */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens the database `options` name: PostgreSQL for a `postgres://` or `postgresql://` URL (anything
 * else is an error), otherwise the SQLite file `leadflow.sqlite` under `dataDir` (default `./data`,
 * created when missing). Nothing is migrated here: call `migrate` before use.
 */
export function createDatabase(options: DatabaseOptions = {}): Database {
  if (options.url) {
    if (!/^postgres(ql)?:\/\//.test(options.url)) throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
    const knex = knexFactory({
      client: 'pg',
      connection: options.url,
      ...(options.searchPath ? { searchPath: options.searchPath } : {}),
      pool: { min: 0, max: Math.max(2, options.poolMax ?? 10) },
      acquireConnectionTimeout: 10_000,
    });
    return new Database(knex, 'postgres', redactUrl(options.url), new ConfigReadCache(options.configCache));
  }
  const dir = resolve(options.dataDir ?? './data');
  mkdirSync(dir, { recursive: true });
  const filename = join(dir, 'leadflow.sqlite');
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(conn: PreparingConnection & { pragma(sql: string): unknown }, done: (err: Error | null, conn: unknown) => void) {
        try {
          conn.pragma('journal_mode = WAL');
          conn.pragma('foreign_keys = ON');
          conn.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
          // Sorts and temporary b-trees in memory, not in temporary files: a db.get that sorts (a lead
          // by phone, ordered by id) measured 0.19-0.22 ms with the build's default, 0.03 ms with
          // this, in a loop alone on a file whose log held 1,000 commits.
          conn.pragma('temp_store = MEMORY');
          cacheStatements(conn);
          done(null, conn);
        } catch (err) {
          done(err as Error, conn);
        }
      },
    },
  });
  return new Database(knex, 'sqlite', filename, new ConfigReadCache(options.configCache));
}

/** The database the environment selects: DATABASE_URL, else SQLite under LEADFLOW_DATA_DIR (default ./data). */
export function databaseFromEnv(env: Record<string, string | undefined> = process.env): Database {
  return createDatabase({ url: env.DATABASE_URL || undefined, dataDir: env.LEADFLOW_DATA_DIR || undefined });
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparsable url)';
  }
}

/**
 * The cacheable tables written inside one outermost transaction (shared by its nested ones): their
 * cached reads are dropped when it ends.
 */
type WrittenTables = Set<string>;

/**
 * The database of one process: the db.* table operations (TableOperations) on the allow-listed tables,
 * transactions, migrations and the queries the adapters need (instances, erasure), with the
 * configuration read cache.
 */
export class Database implements TableOperations {
  private readonly ops: TableOps;

  constructor(
    /** The knex instance, or the open transaction this Database is bound to. */
    readonly knex: Knex,
    readonly dialect: Dialect,
    /** Where the data lives, for messages: the SQLite file, or the URL without its password. */
    readonly location: string,
    /** The configuration read cache of the Database this one comes from (a new one when none). */
    private readonly configCache: ConfigReadCache = new ConfigReadCache(),
    /** Bound to a transaction: what its writes touched, for the outermost transaction to invalidate. */
    private readonly written?: WrittenTables,
    /** SQL compiled once per query shape (compiled-statements.ts), shared with the Databases bound to its transactions. */
    readonly statements: StatementCache = new StatementCache(),
  ) {
    const bound = (knex as Knex.Transaction).isTransaction === true;
    // Inside a transaction each operation gets a savepoint: a failed statement leaves the
    // transaction usable on PostgreSQL, as it does on SQLite.
    this.ops = new TableOps(dialect, bound ? (fn) => knex.transaction((trx) => fn(trx)) : (fn) => fn(knex), statements);
  }

  /** True when bound to a transaction (from `transaction` or `rollbackScope`). */
  get inTransaction(): boolean {
    return (this.knex as Knex.Transaction).isTransaction === true;
  }

  /**
   * Applies pending migrations; returns their names (empty when up to date). Safe to run from
   * several processes at once: on PostgreSQL an advisory lock serializes them; on SQLite the
   * bookkeeping tables are created idempotently and knex's migration lock is waited for.
   */
  migrate(): Promise<string[]> {
    this.migrating ??= this.migrateOnce().finally(() => {
      this.migrating = undefined;
    });
    return this.migrating;
  }

  private migrating: Promise<string[]> | undefined;

  private async migrateOnce(): Promise<string[]> {
    try {
      return await this.applyMigrations();
    } finally {
      // Cached rows may lack columns a migration added.
      this.configCache.clear();
    }
  }

  private async applyMigrations(): Promise<string[]> {
    const config: Knex.MigratorConfig = { migrationSource, tableName: MIGRATIONS_TABLE };
    const latest = async () => ((await this.knex.migrate.latest(config)) as [number, string[]])[1];
    if (this.dialect === 'postgres') {
      // Held on its own connection while knex migrates on others (the pool has at least 2).
      return this.knex.transaction(async (trx) => {
        await trx.raw("select pg_advisory_xact_lock(hashtext(coalesce(current_schema(), '') || '.' || ?))", [MIGRATIONS_TABLE]);
        return latest();
      });
    }
    const deadline = Date.now() + MIGRATION_LOCK_WAIT_MS;
    for (;;) {
      try {
        await this.ensureSqliteMigrationTables();
        return await latest();
      } catch (err) {
        const retriable = (err as Error).name === 'MigrationLocked' || (err as { code?: string }).code === 'SQLITE_BUSY';
        if (!retriable || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** knex's own check-then-create of these tables races between processes; these statements do not. */
  private async ensureSqliteMigrationTables(): Promise<void> {
    await this.knex.raw(
      `create table if not exists ${MIGRATIONS_TABLE} (id integer not null primary key autoincrement, name varchar(255), batch integer, migration_time datetime)`,
    );
    await this.knex.raw(
      `create table if not exists ${MIGRATIONS_TABLE}_lock (\`index\` integer not null primary key autoincrement, is_locked integer)`,
    );
    await this.knex.raw(`insert or ignore into ${MIGRATIONS_TABLE}_lock (\`index\`, is_locked) values (1, 0)`);
  }

  /** Resolves when the database answers a trivial query within `timeoutMs`; rejects otherwise. */
  async ping(timeoutMs = PING_TIMEOUT_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.knex.raw('select 1'), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * SQLite: checkpoints the write-ahead log on a worker thread from now on (wal-checkpointer.ts), and
   * this Database's connection only past FALLBACK_AUTOCHECKPOINT_PAGES. For the processes that run
   * executions; `close` stops it. False, with nothing changed, on PostgreSQL, on a Database bound to a
   * transaction, when one runs already, or when the worker script is not built.
   */
  async checkpointOffThread(options: WalCheckpointerOptions = {}): Promise<boolean> {
    if (this.dialect !== 'sqlite' || this.inTransaction || this.checkpointer) return false;
    const checkpointer = WalCheckpointer.start(this.location, options);
    if (!checkpointer) return false;
    this.checkpointer = checkpointer;
    // The one pooled connection keeps it (knex opens it again only after it broke: then SQLite's default).
    await this.knex.raw(`pragma wal_autocheckpoint = ${FALLBACK_AUTOCHECKPOINT_PAGES}`);
    return true;
  }

  /** The thread checkpointing this Database's file, while one runs (checkpointOffThread). */
  walCheckpointer(): WalCheckpointer | undefined {
    return this.checkpointer;
  }

  private checkpointer: WalCheckpointer | undefined;

  /** Closes the connections (after the checkpoint thread, if any). A Database bound to a transaction does not own them: no-op. */
  async close(): Promise<void> {
    if (this.inTransaction) return;
    this.configCache.clear();
    const checkpointer = this.checkpointer;
    this.checkpointer = undefined;
    await checkpointer?.stop();
    await this.knex.destroy();
  }

  /**
   * Runs `fn` in a transaction (a savepoint when already in one): committed when it resolves, rolled
   * back when it throws. When the outermost one ends, the cached reads of the cacheable tables
   * written in it are dropped.
   */
  async transaction<T>(fn: (db: Database) => Promise<T>): Promise<T> {
    const written: WrittenTables = this.written ?? new Set();
    try {
      return await this.knex.transaction((trx) =>
        fn(new Database(trx, this.dialect, this.location, this.configCache, written, this.statements)),
      );
    } finally {
      if (!this.written) this.invalidate(written);
    }
  }

  /**
   * A Database bound to an open transaction that `rollback()` undoes (dry runs: "database changes
   * are rolled back at the end"). Until then the transaction holds its connection (on SQLite, the
   * only one): meant for one-shot commands, not for a serving process.
   */
  async rollbackScope(): Promise<{ db: Database; rollback(): Promise<void> }> {
    const trx = await this.knex.transaction();
    const written: WrittenTables = this.written ?? new Set();
    const outermost = !this.written;
    return {
      db: new Database(trx, this.dialect, this.location, this.configCache, written, this.statements),
      rollback: async () => {
        try {
          if (!trx.isCompleted()) await trx.rollback();
        } finally {
          if (outermost) this.invalidate(written);
        }
      },
    };
  }

  /** The WhatsApp instance with this id, or undefined. */
  async instanceById(id: number): Promise<InstanceRow | undefined> {
    const row = await this.get('instancias_whatsapp', { id });
    return row ? { ...gatewayInstanceFromRow(row), nome: String(row.nome) } : undefined;
  }

  async get(table: string, where?: Where, orderBy?: OrderBy[]): Promise<Row | null> {
    if (!this.caches(table)) return this.ops.get(table, where, orderBy);
    const [row] = await this.find(table, { where: where ?? {}, order_by: orderBy ?? [], limit: 1 });
    return row ?? null;
  }

  find(table: string, options?: FindOptions): Promise<Row[]> {
    if (!this.caches(table)) return this.ops.find(table, options);
    return this.configCache.find(table, options ?? {}, () => this.ops.find(table, options));
  }

  insert(table: string, values: Record<string, unknown>): Promise<Row> {
    return this.writing(table, () => this.ops.insert(table, values));
  }

  upsert(table: string, values: Record<string, unknown>, options: UpsertOptions): Promise<{ row: Row; inserted: boolean }> {
    return this.writing(table, () => this.ops.upsert(table, values, options));
  }

  update(table: string, where: Where, values: Record<string, unknown>): Promise<{ count: number; rows: Row[] }> {
    return this.writing(table, () => this.ops.update(table, where, values));
  }

  delete(table: string, where: Where): Promise<{ count: number }> {
    return this.writing(table, () => this.ops.delete(table, where));
  }

  /** Reads of `table` go through the cache: a cacheable table, and this Database is not bound to a transaction. */
  private caches(table: string): boolean {
    return !this.inTransaction && isCacheableTable(table);
  }

  /**
   * Runs a write; the cached reads of the cacheable tables it may change (tables.ts
   * `cacheableTablesChangedBy`) are dropped when it returns, or when the transaction it is in ends.
   */
  private async writing<T>(table: string, write: () => Promise<T>): Promise<T> {
    const changed = cacheableTablesChangedBy(table);
    if (changed.length === 0) return write();
    try {
      return await write();
    } finally {
      if (this.written) for (const t of changed) this.written.add(t);
      else this.invalidate(changed);
    }
  }

  private invalidate(tables: Iterable<string>): void {
    for (const table of tables) this.configCache.invalidate(table);
  }
}
