// The database side of the ingest floor (bench/floor/ingest-floor.ts): the two reads every request
// makes and the one INSERT the durable floor adds, on PostgreSQL (node-postgres, a pool) or on the
// SQLite file LeadFlow's embedded mode uses (better-sqlite3, one connection, prepared statements,
// the same pragmas as adapters/db/database.ts). Nothing is cached: every call is one statement.
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The durable floor's table: one row per queued event, `body` the request's raw JSON text. */
export const FLOOR_EVENTS_TABLE = 'bench_floor_events';

/**
 * The effects floor's table: one row per message, as LeadFlow keeps an execution — inserted with the
 * event before anything else, then moved to `waiting` with a record and a wake time.
 */
export const FLOOR_EXECUTIONS_TABLE = 'bench_floor_executions';

/** The lead row the floor needs: the buffer's key is `<clinica_id>:<remotejid>`. */
export interface FloorLead {
  id: number;
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
  /** Creates FLOOR_EXECUTIONS_TABLE when it is missing (the effects floor calls it once, at start). */
  createExecutionsTable(): Promise<void>;
  /** One INSERT of a `running` row holding the raw event `body`, under `concurrencyKey`. */
  startExecution(id: string, concurrencyKey: string, body: string): Promise<void>;
  /** One UPDATE of the lead's last message and its time (ISO). */
  touchLead(leadId: number, text: string, at: string): Promise<void>;
  /** One UPDATE cancelling the `waiting` follow-up rows under `concurrencyKey`; resolves to how many. */
  cancelFollowups(concurrencyKey: string, at: string): Promise<number>;
  /** One UPDATE moving the row to `waiting` with its `record` (JSON text) and wake time (ISO). */
  suspendExecution(id: string, record: string, wakeAt: string): Promise<void>;
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
    async createExecutionsTable() {
      await pool.query(EXECUTIONS_DDL('timestamptz'));
      await pool.query(EXECUTIONS_INDEX);
    },
    async startExecution(id, concurrencyKey, body) {
      await pool.query(
        `insert into ${FLOOR_EXECUTIONS_TABLE} (id, flow, status, concurrency_key, trigger, created_at, updated_at) values ($1, 'agent', 'running', $2, $3, now(), now())`,
        [id, concurrencyKey, body],
      );
    },
    async touchLead(leadId, text, at) {
      await pool.query('update leads set ultima_mensagem = $1, ultima_mensagem_at = $2, updated_at = $2 where id = $3', [text, at, leadId]);
    },
    async cancelFollowups(concurrencyKey, at) {
      const result = await pool.query(
        `update ${FLOOR_EXECUTIONS_TABLE} set status = 'cancelled', updated_at = $1 where concurrency_key = $2 and flow = 'followup' and status = 'waiting' returning id`,
        [at, concurrencyKey],
      );
      return result.rows.length;
    },
    async suspendExecution(id, record, wakeAt) {
      await pool.query(
        `update ${FLOOR_EXECUTIONS_TABLE} set status = 'waiting', record = $1, wake_at = $2, updated_at = now() where id = $3`,
        [record, wakeAt, id],
      );
    },
    close: () => pool.end(),
  };
}

/** The effects floor's table, with the timestamp type of the dialect. */
const EXECUTIONS_DDL = (timestamp: string) =>
  `create table if not exists ${FLOOR_EXECUTIONS_TABLE} (id varchar(36) primary key, flow varchar(64) not null, status varchar(16) not null, concurrency_key varchar(255), trigger text not null, record text, wake_at ${timestamp}, created_at ${timestamp} not null, updated_at ${timestamp} not null)`;
const EXECUTIONS_INDEX = `create index if not exists ${FLOOR_EXECUTIONS_TABLE}_key on ${FLOOR_EXECUTIONS_TABLE} (concurrency_key, status)`;

// better-sqlite3 ships no type declarations: the part of it used here.
interface SqliteStatement {
  get(...values: unknown[]): unknown;
  run(...values: unknown[]): { changes: number };
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
  /** The effects floor's statements, prepared once its table exists. */
  let effects: Record<'start' | 'touch' | 'cancel' | 'suspend', SqliteStatement> | undefined;
  const effect = (name: 'start' | 'touch' | 'cancel' | 'suspend') => {
    if (!effects) throw new Error(`${FLOOR_EXECUTIONS_TABLE}: createExecutionsTable() was not called`);
    return effects[name];
  };
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
    async createExecutionsTable() {
      db.exec(EXECUTIONS_DDL('datetime'));
      db.exec(EXECUTIONS_INDEX);
      effects = {
        start: db.prepare(
          `insert into ${FLOOR_EXECUTIONS_TABLE} (id, flow, status, concurrency_key, trigger, created_at, updated_at) values (?, 'agent', 'running', ?, ?, ?, ?)`,
        ),
        touch: db.prepare('update leads set ultima_mensagem = ?, ultima_mensagem_at = ?, updated_at = ? where id = ?'),
        cancel: db.prepare(
          `update ${FLOOR_EXECUTIONS_TABLE} set status = 'cancelled', updated_at = ? where concurrency_key = ? and flow = 'followup' and status = 'waiting'`,
        ),
        suspend: db.prepare(
          `update ${FLOOR_EXECUTIONS_TABLE} set status = 'waiting', record = ?, wake_at = ?, updated_at = ? where id = ?`,
        ),
      };
    },
    async startExecution(id, concurrencyKey, body) {
      const now = new Date().toISOString();
      effect('start').run(id, concurrencyKey, body, now, now);
    },
    async touchLead(leadId, text, at) {
      effect('touch').run(text, at, at, leadId);
    },
    async cancelFollowups(concurrencyKey, at) {
      return effect('cancel').run(at, concurrencyKey).changes;
    },
    async suspendExecution(id, record, wakeAt) {
      effect('suspend').run(record, wakeAt, new Date().toISOString(), id);
    },
    async close() {
      db.close();
    },
  };
}
