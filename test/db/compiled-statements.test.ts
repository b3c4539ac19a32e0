// SQL compiled once per shape (adapters/db/compiled-statements.ts) and run through knex's client
// (adapters/db/run-statement.ts): the text and values bound are exactly what knex compiles for the
// values themselves, on both dialects; a shape is compiled once, the least recently used goes past
// the bound; a builder that changes a value instead of binding it is refused. Run on a database: rows
// and counts, knex's 'query' event and error messages, and a transaction's connection.
import knexFactory, { type Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { type Param, StatementCache, standIns } from '../../adapters/db/compiled-statements.js';
import { runStatement } from '../../adapters/db/run-statement.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';

/** Query shapes of the table operations and the execution store, each with values (nulls, booleans, an IN list, a repeated value). */
const SHAPES: Array<{ name: string; values: unknown[]; build: (knex: Knex, value: Param) => Knex.QueryBuilder | Knex.Raw }> = [
  {
    name: 'select with equality, IN, comparison, order and limit',
    values: [3, 'a@s.whatsapp.net', 'b', '2025-01-01T00:00:00.000Z'],
    build: (knex, v) =>
      knex('leads')
        .select('*')
        .where('clinica_id', v(0))
        .whereIn('remotejid', [v(1), v(2)])
        .whereRaw('?? > ?', ['created_at', v(3)])
        .whereNull('optout_at')
        .orderByRaw('?? asc nulls last', ['id'])
        .limit(1),
  },
  {
    name: 'update of nulls and booleans, returning the rows',
    values: ['texto', null, true, 7],
    build: (knex, v) =>
      knex('leads')
        .where({ id: v(3) })
        .update(standIns(['ultima_mensagem', 'pausado_ate', 'transferido'], v))
        .returning('*'),
  },
  {
    name: 'insert of a row with a null',
    values: ['x', null, 1],
    build: (knex, v) => knex('executions').insert(standIns(['id', 'parent_id', 'dry_run'], v)),
  },
  {
    name: 'insert or merge on conflict',
    values: ['x', 'running', null],
    build: (knex, v) =>
      knex('executions')
        .insert(standIns(['id', 'status', 'wake_at'], v))
        .onConflict('id')
        .merge(standIns(['status', 'wake_at'], v, 1)),
  },
  {
    name: 'an update with a WITH of raw SQL binding a value twice, and constants of the shape',
    values: ['id-1', 'waiting'],
    build: (knex, v) =>
      knex('executions')
        .where({ id: v(0) })
        .with('dropped', knex.raw('delete from execution_journal where execution_id = ?', [v(0)]))
        .whereNot('status', 'cancelled')
        .update({ status: v(1), lease_owner: null }),
  },
  {
    name: 'raw SQL',
    values: ['id-1', '{"a":1}'],
    build: (knex, v) => knex.raw('insert into execution_journal (execution_id, entry) values (?, ?) returning ?', [v(0), v(1), v(0)]),
  },
];

describe('StatementCache', () => {
  for (const client of ['pg', 'better-sqlite3']) {
    // Compiling needs no connection.
    const knex = knexFactory({ client, useNullAsDefault: true });

    for (const shape of SHAPES) {
      it(`${client}: ${shape.name} binds the text and values knex compiles for the values themselves`, () => {
        const statement = new StatementCache().get('k', (value) => shape.build(knex, value));
        const direct = shape.build(knex, (i) => shape.values[i] as Knex.Value).toSQL();
        expect(statement.native).toBe(direct.toNative().sql);
        expect(statement.bind(shape.values)).toEqual(direct.toNative().bindings);
        expect(statement.method).toBe(direct.method);
        // What knex's client is handed numbers to the same native text.
        expect(knex.client.positionBindings(statement.sql)).toBe(statement.native);
      });
    }
  }

  it('compiles a key once; keeps the most recently used up to the bound', () => {
    const knex = knexFactory({ client: 'pg' });
    const cache = new StatementCache(2);
    const built: string[] = [];
    const get = (key: string) =>
      cache.get(key, (v) => {
        built.push(key);
        return knex('leads').where({ id: v(0) });
      });
    const a = get('a');
    expect(get('a')).toBe(a);
    get('b');
    get('a'); // used again: now the most recent
    get('c'); // past the bound: b goes
    get('a');
    get('b');
    expect(built).toEqual(['a', 'b', 'c', 'b']);
    expect(cache.size).toBe(2);
  });

  it('refuses a shape whose builder changes a value, or writes it into the text, instead of binding it', () => {
    const knex = knexFactory({ client: 'pg' });
    expect(() => new StatementCache().get('like', (v) => knex('leads').whereRaw('nome like ?', [`%${String(v(0))}%`]))).toThrow(
      /changed a value's stand-in/,
    );
    expect(() => new StatementCache().get('spliced', (v) => knex('leads').whereRaw(`nome = '${String(v(0))}'`))).toThrow(
      /wrote a value into the text/,
    );
  });
});

forEachDatabase('runStatement', (open, dialect) => {
  const t = useFreshDatabase(open);

  /** A clinic for the leads of a test; returns its id. */
  async function clinic(): Promise<number> {
    const row = await t.current.db.insert('clinicas_com_atendentes', { nome: 'C', hunter_nome: 'A', hunter_telefone: '5511900000001' });
    return row.id as number;
  }

  it('returns rows and counts, and emits knex’s query event with the text run', async () => {
    const { db } = t.current;
    const clinicaId = await clinic();
    const cache = new StatementCache();
    const sql: string[] = [];
    db.knex.on('query', (q: { sql: string }) => sql.push(q.sql));
    const insert = cache.get('insert', (v) => db.knex('leads').insert(standIns(['clinica_id', 'remotejid', 'nome'], v)));
    expect(await runStatement(db.knex, insert, [clinicaId, '1@s', 'Ana'])).toEqual({ rows: [], count: 1 });
    await runStatement(db.knex, insert, [clinicaId, '2@s', 'Bia']);
    const select = cache.get('select', (v) =>
      db
        .knex('leads')
        .select('nome')
        .where({ clinica_id: v(0) })
        .orderBy('id'),
    );
    expect(await runStatement(db.knex, select, [clinicaId])).toEqual({ rows: [{ nome: 'Ana' }, { nome: 'Bia' }], count: 2 });
    const update = cache.get('update', (v) =>
      db
        .knex('leads')
        .where({ clinica_id: v(0) })
        .update({ nome: v(1) }),
    );
    expect(await runStatement(db.knex, update, [clinicaId, 'X'])).toEqual({ rows: [], count: 2 });
    const returning = cache.get('returning', (v) =>
      db
        .knex('leads')
        .where({ remotejid: v(0) })
        .update({ nome: v(1) })
        .returning(['remotejid', 'nome']),
    );
    expect(await runStatement(db.knex, returning, ['1@s', 'Y'])).toEqual({ rows: [{ remotejid: '1@s', nome: 'Y' }], count: 1 });
    const del = cache.get('delete', (v) =>
      db
        .knex('leads')
        .where({ clinica_id: v(0) })
        .del(),
    );
    expect(await runStatement(db.knex, del, [clinicaId])).toEqual({ rows: [], count: 2 });
    expect(sql).toEqual([insert.native, insert.native, select.native, update.native, returning.native, del.native]);
  });

  it('fails as knex does: the text run before the driver’s message, with its code', async () => {
    const { db } = t.current;
    const clinicaId = await clinic();
    const cache = new StatementCache();
    const insert = cache.get('insert', (v) => db.knex('leads').insert(standIns(['clinica_id', 'remotejid'], v)));
    await runStatement(db.knex, insert, [clinicaId, '1@s']);
    const built = await db
      .knex('leads')
      .insert({ clinica_id: clinicaId, remotejid: '1@s' })
      .then(
        () => undefined,
        (e: Error & { code?: string }) => e,
      );
    const compiled = await runStatement(db.knex, insert, [clinicaId, '1@s']).then(
      () => undefined,
      (e: Error & { code?: string }) => e,
    );
    expect(built).toBeInstanceOf(Error);
    expect(compiled).toBeInstanceOf(Error);
    expect(compiled!.message).toBe(built!.message);
    expect(compiled!.code).toBe(built!.code);
    expect(compiled!.message).toMatch(
      dialect === 'postgres' ? /^insert into "leads" .* - duplicate key/ : /^insert into `leads` .* - UNIQUE constraint/,
    );
  });

  it('in a transaction runs on its connection: a rollback undoes it', async () => {
    const { db } = t.current;
    const clinicaId = await clinic();
    const cache = new StatementCache();
    const insert = cache.get('insert', (v) => db.knex('leads').insert(standIns(['clinica_id', 'remotejid'], v)));
    const count = cache.get('count', (v) =>
      db
        .knex('leads')
        .count({ n: '*' })
        .where({ clinica_id: v(0) }),
    );
    const n = async (knex: Knex) => Number((await runStatement(knex, count, [clinicaId])).rows[0]!.n);
    await expect(
      db.knex.transaction(async (trx) => {
        await runStatement(trx, insert, [clinicaId, '1@s']);
        expect(await n(trx)).toBe(1);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await n(db.knex)).toBe(0);
  });
});
