// Structured reads and writes on the allow-listed tables (tables.ts), the same on SQLite and
// PostgreSQL. Every table, column, operator and value is checked before any SQL is built; values are
// always bound as parameters. Rows come back as JSON (see values.ts).
//
// `where`: an object of column -> condition, all conditions must hold:
//   value                      equality (`{ clinica_id: 3 }`)
//   null                       IS NULL
//   { eq | ne | gt | gte | lt | lte: value }   comparison; several operators in one object all hold.
//                              `ne` keeps NULLs (a NULL column is "not equal" to any value);
//                              `{ eq: null }` is IS NULL, `{ ne: null }` IS NOT NULL.
//   { in: [values] }           one of the values (at most 1000; an empty list matches nothing)
// Text is compared and ordered byte-wise (PostgreSQL uses COLLATE "C", as SQLite does by default);
// NULLs order last ascending and first descending on both. JSON columns cannot be filtered on.
//
// Each operation's SQL is compiled once per shape (table, columns, the kind of each condition, order,
// limit) and kept in the Database's StatementCache (compiled-statements.ts): a shape's key below names
// everything its text depends on besides the bound values.
import type { Knex } from 'knex';
import type { JsonValue } from '../../engine/types.js';
import { standIns, type Param, type StatementCache } from './compiled-statements.js';
import { DbQueryError } from './db-query-error.js';
import { runStatement, type StatementResult } from './run-statement.js';
import { isTableName, TABLE_NAMES, tableSpec, type ColumnType, type TableSpec } from './tables.js';
import { fromDb, toDb, toIsoTimestamp, type Dialect } from './values.js';

/** A row as flows see it: column name to JSON value (values.ts conversions applied). */
export type Row = Record<string, JsonValue>;
/**
 * A row filter: column to a value (equality; null: IS NULL) or to `{eq|ne|gt|gte|lt|lte|in: value}`,
 * conditions joined by AND.
 */
export type Where = Record<string, unknown>;
/** One sort key of a query: a column of the table, ascending by default. */
export interface OrderBy {
  column: string;
  direction?: 'asc' | 'desc';
}
/** A `find` query: its filter, order (default id ascending) and most rows. */
export interface FindOptions {
  where?: Where;
  order_by?: OrderBy[];
  /** Most rows returned: default 100, at most 1000. */
  limit?: number;
}
/** How an upsert matches an existing row (a unique key of the table) and what it does then. */
export interface UpsertOptions {
  /** Columns of one of the table's unique keys; the row is matched on them. */
  conflict: string[];
  /** On a match: `update` writes the other given columns (default), `keep` leaves the row as it is. */
  on_conflict?: 'update' | 'keep';
}

/** What the db.* node types need; `Database` implements it. */
export interface TableOperations {
  /** The first matching row (by `order_by`, default id ascending), or null. */
  get(table: string, where?: Where, orderBy?: OrderBy[]): Promise<Row | null>;
  find(table: string, options?: FindOptions): Promise<Row[]>;
  insert(table: string, values: Record<string, unknown>): Promise<Row>;
  /** Inserts, or on a unique-key match updates (or keeps) the row; race-free. */
  upsert(table: string, values: Record<string, unknown>, options: UpsertOptions): Promise<{ row: Row; inserted: boolean }>;
  /** `where` must name at least one column. */
  update(table: string, where: Where, values: Record<string, unknown>): Promise<{ count: number; rows: Row[] }>;
  /** `where` must name at least one column. */
  delete(table: string, where: Where): Promise<{ count: number }>;
}

/** Rows a `find` returns when no limit is given. */
export const DEFAULT_FIND_LIMIT = 100;
/** Most rows one `find` may return; a larger limit is an error. */
export const MAX_FIND_LIMIT = 1000;
/** Most values one `in` condition may list; more is an error. */
export const MAX_IN_VALUES = 1000;
/** Attempts of an upsert whose matched row disappears between its insert and its update. */
const UPSERT_ATTEMPTS = 5;

const OPERATORS = new Set(['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in']);
const COMPARE: Record<string, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** Runs one operation's SQL; inside a transaction it gets a savepoint, so a failed statement does not abort the transaction (PostgreSQL) and both dialects behave alike. */
export type Runner = <T>(fn: (knex: Knex) => Promise<T>) => Promise<T>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** A validated `where`: what its SQL depends on, the values it binds, and how it is added to a query. */
interface WhereClause {
  /** Everything its SQL depends on besides the bound values (part of a statement's key). */
  shape: string;
  /** The values it binds; `apply` binds `value(i)` for the i-th. */
  values: unknown[];
  apply(query: Knex.QueryBuilder, value: Param): void;
}

/** A validated `order_by`: its shape (part of a statement's key) and how it is added to a query (it binds nothing). */
interface OrderClause {
  shape: string;
  apply(query: Knex.QueryBuilder): void;
}

/**
 * The table operations (TableOperations) on the allow-listed tables: checks every table, column and
 * operator, converts values (values.ts), and compiles each query's shape once (StatementCache).
 */
export class TableOps implements TableOperations {
  constructor(
    private readonly dialect: Dialect,
    private readonly run: Runner,
    private readonly statements: StatementCache,
  ) {}

  /** Runs the statement of `key` (compiled from `build` on first use) with `values`, through the runner. */
  private runCompiled(
    key: string,
    build: (knex: Knex, value: Param) => Knex.QueryBuilder,
    values: readonly unknown[],
  ): Promise<StatementResult> {
    return this.run((knex) =>
      runStatement(
        knex,
        this.statements.get(key, (value) => build(knex, value)),
        values,
      ),
    );
  }

  async get(table: string, where: Where = {}, orderBy: OrderBy[] = []): Promise<Row | null> {
    const rows = await this.find(table, { where, order_by: orderBy, limit: 1 });
    return rows[0] ?? null;
  }

  async find(table: string, options: FindOptions = {}): Promise<Row[]> {
    const spec = this.spec(table);
    const limit = options.limit ?? DEFAULT_FIND_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_FIND_LIMIT)
      throw new DbQueryError(`limit must be an integer from 1 to ${MAX_FIND_LIMIT}, got ${limit}`);
    const where = this.whereClause(table, spec, options.where ?? {});
    const order = this.orderClause(table, spec, options.order_by ?? []);
    const { rows } = await this.runCompiled(
      `find ${table} where ${where.shape} order ${order.shape} limit ${limit}`,
      (knex, value) => {
        const query = knex(table).select('*');
        where.apply(query, value);
        order.apply(query);
        return query.limit(limit);
      },
      where.values,
    );
    return rows.map((r) => this.rowOut(spec, r));
  }

  async insert(table: string, values: Record<string, unknown>): Promise<Row> {
    const spec = this.spec(table);
    const row = this.valuesIn(table, spec, values, 'insert');
    const columns = Object.keys(row);
    const { rows } = await this.runCompiled(
      `insert ${table} ${columns.join(',')}`,
      (knex, value) => knex(table).insert(standIns(columns, value)).returning('*'),
      Object.values(row),
    );
    return this.rowOut(spec, rows[0]!);
  }

  async upsert(table: string, values: Record<string, unknown>, options: UpsertOptions): Promise<{ row: Row; inserted: boolean }> {
    const spec = this.spec(table);
    const conflict = this.conflictKey(table, spec, options.conflict);
    const row = this.valuesIn(table, spec, values, 'insert');
    for (const column of conflict) {
      if (row[column] === null || row[column] === undefined)
        throw new DbQueryError(`upsert into ${table}: conflict column ${column} needs a value`);
    }
    const matched = conflict.map((c) => row[c]);
    const changes = Object.fromEntries(Object.entries(this.valuesIn(table, spec, values, 'update')).filter(([c]) => !conflict.includes(c)));
    const keep = options.on_conflict === 'keep' || Object.keys(changes).every((c) => c === spec.updatedAt);
    const columns = Object.keys(row);
    const changed = Object.keys(changes);
    const on = conflict.join(',');
    // Insert-or-nothing, then update (or read) the existing row: exactly one of any number of
    // concurrent identical upserts inserts, on both dialects. A row deleted in between: try again.
    for (let attempt = 1; attempt <= UPSERT_ATTEMPTS; attempt++) {
      const created = await this.runCompiled(
        `upsert-insert ${table} ${columns.join(',')} on ${on}`,
        (knex, value) => knex(table).insert(standIns(columns, value)).onConflict(conflict).ignore().returning('*'),
        Object.values(row),
      );
      if (created.rows[0]) return { row: this.rowOut(spec, created.rows[0]), inserted: true };
      const existing = keep
        ? await this.runCompiled(
            `upsert-read ${table} on ${on}`,
            (knex, value) => knex(table).where(standIns(conflict, value)).select('*'),
            matched,
          )
        : await this.runCompiled(
            `upsert-update ${table} ${changed.join(',')} on ${on}`,
            (knex, value) =>
              knex(table)
                .where(standIns(conflict, value, changed.length))
                .update(standIns(changed, value))
                .returning('*'),
            [...Object.values(changes), ...matched],
          );
      if (existing.rows[0]) return { row: this.rowOut(spec, existing.rows[0]), inserted: false };
    }
    throw new Error(`upsert into ${table}: the matching row kept disappearing (${UPSERT_ATTEMPTS} attempts)`);
  }

  async update(table: string, where: Where, values: Record<string, unknown>): Promise<{ count: number; rows: Row[] }> {
    const spec = this.spec(table);
    const clause = this.whereClause(table, spec, where, true);
    const changes = this.valuesIn(table, spec, values, 'update');
    if (!Object.values(values).some((v) => v !== undefined))
      throw new DbQueryError(`update of ${table}: values must name at least one column`);
    const changed = Object.keys(changes);
    const { rows } = await this.runCompiled(
      `update ${table} set ${changed.join(',')} where ${clause.shape}`,
      (knex, value) => {
        const query = knex(table);
        clause.apply(query, (i) => value(changed.length + i));
        return query.update(standIns(changed, value)).returning('*');
      },
      [...Object.values(changes), ...clause.values],
    );
    return { count: rows.length, rows: rows.map((r) => this.rowOut(spec, r)) };
  }

  async delete(table: string, where: Where): Promise<{ count: number }> {
    const spec = this.spec(table);
    const clause = this.whereClause(table, spec, where, true);
    const { count } = await this.runCompiled(
      `delete ${table} where ${clause.shape}`,
      (knex, value) => {
        const query = knex(table);
        clause.apply(query, value);
        return query.del();
      },
      clause.values,
    );
    return { count: Number(count) };
  }

  private spec(table: string): TableSpec {
    if (!isTableName(table)) throw new DbQueryError(`unknown table "${table}" (tables: ${TABLE_NAMES.join(', ')})`);
    return tableSpec(table);
  }

  private columnType(table: string, spec: TableSpec, column: string): ColumnType {
    const type = Object.hasOwn(spec.columns, column) ? spec.columns[column] : undefined;
    if (!type) throw new DbQueryError(`unknown column "${column}" in ${table} (columns: ${Object.keys(spec.columns).join(', ')})`);
    return type;
  }

  /** Converted values to write; `id` is never written; timestamps of the table are filled in. */
  private valuesIn(table: string, spec: TableSpec, values: Record<string, unknown>, mode: 'insert' | 'update'): Record<string, unknown> {
    if (!isPlainObject(values)) throw new DbQueryError(`values for ${table} must be an object of column -> value`);
    const out: Record<string, unknown> = {};
    for (const [column, value] of Object.entries(values)) {
      const type = this.columnType(table, spec, column);
      if (type === 'id') throw new DbQueryError(`${table}.${column} is generated by the database and cannot be written`);
      if (value === undefined) continue;
      out[column] = toDb(this.dialect, table, column, type, value);
    }
    const now = new Date().toISOString();
    if (mode === 'insert' && spec.createdAt && out[spec.createdAt] == null) out[spec.createdAt] = now;
    if (spec.updatedAt && out[spec.updatedAt] == null) out[spec.updatedAt] = now;
    return out;
  }

  private conflictKey(table: string, spec: TableSpec, conflict: string[]): string[] {
    if (!Array.isArray(conflict) || conflict.length === 0)
      throw new DbQueryError(`upsert into ${table}: conflict must list the columns of a unique key`);
    for (const column of conflict) this.columnType(table, spec, column);
    const wanted = [...new Set(conflict)].sort().join(',');
    const key = spec.uniqueKeys.find((k) => [...k].sort().join(',') === wanted);
    if (!key) {
      const keys = spec.uniqueKeys.map((k) => `[${k.join(', ')}]`).join(' or ') || 'none';
      throw new DbQueryError(`upsert into ${table}: [${conflict.join(', ')}] is not a unique key (unique keys: ${keys})`);
    }
    return key;
  }

  /** Validates `where` now and returns what adds it to a query later, with its shape and values. */
  private whereClause(table: string, spec: TableSpec, where: Where, required = false): WhereClause {
    if (!isPlainObject(where)) throw new DbQueryError(`where for ${table} must be an object of column -> condition`);
    if (required && Object.keys(where).length === 0)
      throw new DbQueryError(`where for ${table} must name at least one column (refusing to touch every row)`);
    const shapes: string[] = [];
    const values: unknown[] = [];
    const parts: Array<(q: Knex.QueryBuilder, value: Param) => void> = [];
    /** Adds a part; `kind` names its SQL (with the column, part of the shape). */
    const add = (column: string, kind: string, apply: (q: Knex.QueryBuilder, value: Param) => void) => {
      shapes.push(`${column}:${kind}`);
      parts.push(apply);
    };
    /** Binds `bound` as the next value; returns its index (a part binds `value(index)` when applied). */
    const bindAt = (bound: unknown): number => values.push(bound) - 1;
    for (const [column, condition] of Object.entries(where)) {
      const type = this.columnType(table, spec, column);
      if (type === 'json') throw new DbQueryError(`${table}.${column} is a JSON column and cannot be filtered on`);
      const bind = (value: unknown) => toDb(this.dialect, table, column, type, value);
      const ref = type === 'text' && this.dialect === 'postgres' ? `?? COLLATE "C"` : '??';
      /** Equality, IS NULL when the bound value is null. */
      const equal = (bound: unknown) => {
        if (bound === null) return add(column, 'null', (q) => q.whereNull(column));
        const at = bindAt(bound);
        add(column, 'eq', (q, value) => q.where(column, value(at)));
      };
      if (condition === null || condition === undefined) {
        add(column, 'null', (q) => q.whereNull(column));
      } else if (Array.isArray(condition)) {
        throw new DbQueryError(`where ${table}.${column}: use { in: [...] } to match one of several values`);
      } else if (isPlainObject(condition)) {
        const ops = Object.entries(condition);
        if (ops.length === 0) throw new DbQueryError(`where ${table}.${column}: empty condition object`);
        for (const [op, value] of ops) {
          if (!OPERATORS.has(op))
            throw new DbQueryError(`where ${table}.${column}: unknown operator "${op}" (operators: ${[...OPERATORS].join(', ')})`);
          if (op === 'in') {
            if (!Array.isArray(value)) throw new DbQueryError(`where ${table}.${column}: in needs a list of values`);
            if (value.length > MAX_IN_VALUES) throw new DbQueryError(`where ${table}.${column}: in takes at most ${MAX_IN_VALUES} values`);
            if (value.some((v) => v === null || v === undefined))
              throw new DbQueryError(`where ${table}.${column}: in cannot hold null; use { ${column}: null }`);
            const at = value.map((v) => bindAt(bind(v)));
            add(column, `in${at.length}`, (q, stand) =>
              q.whereIn(
                column,
                at.map((i) => stand(i)),
              ),
            );
          } else if (op === 'eq') {
            equal(bind(value));
          } else if (op === 'ne') {
            const bound = bind(value);
            if (bound === null) {
              add(column, 'notnull', (q) => q.whereNotNull(column));
            } else {
              const at = bindAt(bound);
              add(column, 'ne', (q, stand) => q.where((w) => w.where(column, '<>', stand(at)).orWhereNull(column)));
            }
          } else {
            if (value === null || value === undefined) throw new DbQueryError(`where ${table}.${column}: ${op} needs a value`);
            const at = bindAt(bind(value));
            add(column, op, (q, stand) => q.whereRaw(`${ref} ${COMPARE[op]} ?`, [column, stand(at)]));
          }
        }
      } else {
        equal(bind(condition));
      }
    }
    return {
      shape: shapes.join(','),
      values,
      apply: (query, value) => {
        for (const part of parts) part(query, value);
      },
    };
  }

  private orderClause(table: string, spec: TableSpec, orderBy: OrderBy[]): OrderClause {
    if (!Array.isArray(orderBy)) throw new DbQueryError(`order_by for ${table} must be a list of { column, direction }`);
    const terms = orderBy.map((o) => {
      const column = isPlainObject(o) && typeof o.column === 'string' ? o.column : undefined;
      if (column === undefined) throw new DbQueryError(`order_by for ${table}: each entry needs a column`);
      const type = this.columnType(table, spec, column);
      const direction = o.direction ?? 'asc';
      if (direction !== 'asc' && direction !== 'desc') throw new DbQueryError(`order_by ${table}.${column}: direction must be asc or desc`);
      return { column, type, direction };
    });
    // Ties are broken by id, so the order is the same on both dialects.
    if (!terms.some((t) => t.column === 'id')) terms.push({ column: 'id', type: 'id', direction: 'asc' });
    return {
      shape: terms.map((t) => `${t.column}:${t.direction}`).join(','),
      apply: (query) => {
        for (const t of terms) {
          const collate = t.type === 'text' && this.dialect === 'postgres' ? ' COLLATE "C"' : '';
          query.orderByRaw(`??${collate} ${t.direction} nulls ${t.direction === 'asc' ? 'last' : 'first'}`, [t.column]);
        }
      },
    };
  }

  private rowOut(spec: TableSpec, row: Record<string, unknown>): Row {
    const out: Row = {};
    for (const [column, value] of Object.entries(row)) {
      const type = spec.columns[column];
      out[column] = (type ? fromDb(this.dialect, type, value) : value instanceof Date ? toIsoTimestamp(value) : value) as JsonValue;
    }
    return out;
  }
}
