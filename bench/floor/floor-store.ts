// The database side of the ingest floor (bench/floor/ingest-floor.ts): the two reads every request
// makes and the one INSERT the durable floor adds, on PostgreSQL (node-postgres, a pool) or on the
// SQLite file LeadFlow's embedded mode uses (better-sqlite3, one connection, prepared statements,
// the same pragmas as adapters/db/database.ts). Nothing is cached: every call is one statement.
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The durable floor's table: one row per queued event, `body` the request's raw JSON text. */
export const FLOOR_EVENTS_TABLE = 'bench_floor_events';

/** The lead row the floor needs: the buffer's key is `<clinica_id>:<remotejid>`. */
export interface FloorLead {
  clinica_id: number;
  remotejid: string;
}

export interface FloorStore {
  /** `postgresql` or `sqlite`. */
  readonly dialect: 'postgresql' | 'sqlite';
  /** The clinic of the instance whose `token` this is (indexed column), or undefined when none has it. */
  clinicOfToken(token: string): Promise<number | undefined>;
  /** The clinic's lead whose `remotejid` is one of `remotejids` (at least one), or undefined. */
  findLead(clinicId: number, remotejids: string[]): Promise<FloorLead | undefined>;
  /** Creates FLOOR_EVENTS_TABLE when it is missing (the durable floor calls it once, at start). */
  createEventsTable(): Promise<void>;
  /** One INSERT of `body` into FLOOR_EVENTS_TABLE; resolves once the database has committed it. */
  recordEvent(body: string): Promise<void>;
  close(): Promise<void>;
}

const require = createRequire(import.meta.url);

// node-postgres ships no type declarations: the part of its Pool used here.
interface PgPool {
  query<R>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  end(): Promise<void>;
}

/** PostgreSQL at `url` (search_path included when the URL carries it), at most `poolMax` connections. */
export function openPostgresFloorStore(url: string, poolMax: number): FloorStore {
  const pg = require('pg') as { Pool: new (config: { connectionString: string; max: number }) => PgPool };
  const pool = new pg.Pool({ connectionString: url, max: Math.max(2, poolMax) });
  return {
    dialect: 'postgresql',
    async clinicOfToken(token) {
      const result = await pool.query<{ clinica_id: number }>('select id, clinica_id from instancias_whatsapp where token = $1 limit 1', [
        token,
      ]);
      return result.rows[0]?.clinica_id;
    },
    async findLead(clinicId, remotejids) {
      const list = remotejids.map((_, i) => `$${i + 2}`).join(', ');
      const result = await pool.query<FloorLead>(`select * from leads where clinica_id = $1 and remotejid in (${list}) limit 1`, [
        clinicId,
        ...remotejids,
      ]);
      return result.rows[0];
    },
    async createEventsTable() {
      await pool.query(`create table if not exists ${FLOOR_EVENTS_TABLE} (id bigserial primary key, body text not null)`);
    },
    async recordEvent(body) {
      await pool.query(`insert into ${FLOOR_EVENTS_TABLE} (body) values ($1)`, [body]);
    },
    close: () => pool.end(),
  };
}

// better-sqlite3 ships no type declarations: the part of it used here.
interface SqliteStatement {
  get(...values: unknown[]): unknown;
  run(...values: unknown[]): unknown;
}
interface SqliteDatabase {
  pragma(sql: string): unknown;
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  close(): void;
}

/** How long SQLite waits for another connection's write lock, ms (LeadFlow's value). */
const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/** The SQLite file LeadFlow's embedded mode uses: `<dataDir>/leadflow.sqlite` (adapters/db/database.ts). */
export function sqliteFile(dataDir: string): string {
  return join(dataDir, 'leadflow.sqlite');
}

/**
 * The SQLite file at `filename` (it must exist, migrated), with LeadFlow's pragmas: WAL, foreign
 * keys on, busy timeout; `synchronous` is left at better-sqlite3's default (NORMAL in WAL), as
 * LeadFlow leaves it. better-sqlite3 is synchronous: each call runs to completion on the event loop.
 */
export function openSqliteFloorStore(filename: string): FloorStore {
  const Sqlite = require('better-sqlite3') as new (file: string, options: { fileMustExist: boolean }) => SqliteDatabase;
  const db = new Sqlite(filename, { fileMustExist: true });
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  const tokenQuery = db.prepare('select id, clinica_id from instancias_whatsapp where token = ? limit 1');
  /** The lead query per number of remotejids (a chat phone has one or two Brazilian variants). */
  const leadQueries = new Map<number, SqliteStatement>();
  let insertEvent: SqliteStatement | undefined;
  return {
    dialect: 'sqlite',
    async clinicOfToken(token) {
      return (tokenQuery.get(token) as { clinica_id: number } | undefined)?.clinica_id;
    },
    async findLead(clinicId, remotejids) {
      let query = leadQueries.get(remotejids.length);
      if (!query) {
        query = db.prepare(`select * from leads where clinica_id = ? and remotejid in (${remotejids.map(() => '?').join(', ')}) limit 1`);
        leadQueries.set(remotejids.length, query);
      }
      return query.get(clinicId, ...remotejids) as FloorLead | undefined;
    },
    async createEventsTable() {
      db.exec(`create table if not exists ${FLOOR_EVENTS_TABLE} (id integer primary key, body text not null)`);
      insertEvent = db.prepare(`insert into ${FLOOR_EVENTS_TABLE} (body) values (?)`);
    },
    async recordEvent(body) {
      if (!insertEvent) throw new Error(`${FLOOR_EVENTS_TABLE}: createEventsTable() was not called`);
      insertEvent.run(body);
    },
    async close() {
      db.close();
    },
  };
}
