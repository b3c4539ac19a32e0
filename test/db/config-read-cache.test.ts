// The configuration read cache of a Database (adapters/db/config-read-cache.ts, database.ts) on
// SQLite and PostgreSQL: identical reads of clinics, protocols and instances cost one round trip per
// TTL, writes through the same Database are seen at once (each write kind, a clinic's cascading
// delete, a committed transaction), another Database's writes after the TTL at most, reads inside a
// transaction bypass it, callers get copies, the number of queries is bounded. Round trips are
// counted with knex's `query` event.
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_CACHE_TTL_MS, ConfigReadCache, type ConfigReadCacheOptions, queryKey } from '../../adapters/db/config-read-cache.js';
import { createDatabase, type Database } from '../../adapters/db/database.js';
import type { Row } from '../../adapters/db/table-ops.js';
import { DbInboundInstances } from '../../adapters/gateway/inbound-instances.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { clinicWithInstance } from './support.js';

const CLINICS = 'clinicas_com_atendentes';

forEachDatabase('configuration read cache', (open) => {
  const t = useFreshDatabase(open);
  const opened: Database[] = [];
  let clock = 1_000_000;

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
  });

  /** A second Database on the fresh data with a cache on the test's clock, and its SELECTs per table. */
  function cachedDatabase(cache: ConfigReadCacheOptions = {}): { db: Database; selects: (table: string) => number } {
    const db = createDatabase({ ...t.current.options, configCache: { now: () => clock, ...cache } });
    opened.push(db);
    const sql: string[] = [];
    db.knex.on('query', (q: { sql: string }) => sql.push(q.sql));
    const selects = (table: string) => sql.filter((s) => /^select/i.test(s) && new RegExp(`from [\`"]?${table}[\`"]?`).test(s)).length;
    return { db, selects };
  }

  it('identical reads of a cacheable table go to the database once per TTL; other queries and leads are read each time', async () => {
    const { clinicaId } = await clinicWithInstance(t.current.db);
    const { db, selects } = cachedDatabase();
    const first = await db.get(CLINICS, { id: clinicaId });
    expect(first).toMatchObject({ id: clinicaId, hunter_nome: 'Ana' });
    expect(await db.get(CLINICS, { id: clinicaId })).toEqual(first);
    // The same query as find (limit 1, default order), where keys in another order: one key.
    expect(await db.find(CLINICS, { where: { id: clinicaId }, order_by: [], limit: 1 })).toEqual([first]);
    expect(selects(CLINICS)).toBe(1);
    // Another where, another limit: queries of their own.
    await db.get(CLINICS, { id: clinicaId, nome: 'Clínica Teste' });
    await db.find(CLINICS, { where: { id: clinicaId } });
    expect(selects(CLINICS)).toBe(3);
    await db.get(CLINICS, { nome: 'Clínica Teste', id: clinicaId });
    expect(selects(CLINICS)).toBe(3);

    clock += CONFIG_CACHE_TTL_MS - 1;
    await db.get(CLINICS, { id: clinicaId });
    expect(selects(CLINICS)).toBe(3);
    clock += 1;
    await db.get(CLINICS, { id: clinicaId });
    expect(selects(CLINICS)).toBe(4);

    await db.insert('leads', { clinica_id: clinicaId, remotejid: '5511987654321' });
    await db.get('leads', { clinica_id: clinicaId });
    await db.get('leads', { clinica_id: clinicaId });
    expect(selects('leads')).toBe(2);
  });

  it('another Database (another process) changing a row is seen once the TTL has passed, not before', async () => {
    const { clinicaId } = await clinicWithInstance(t.current.db);
    const { db } = cachedDatabase();
    expect((await db.get(CLINICS, { id: clinicaId }))!.hunter_nome).toBe('Ana');
    await t.current.db.update(CLINICS, { id: clinicaId }, { hunter_nome: 'Bia' });
    clock += CONFIG_CACHE_TTL_MS - 1;
    expect((await db.get(CLINICS, { id: clinicaId }))!.hunter_nome).toBe('Ana');
    clock += 1;
    expect((await db.get(CLINICS, { id: clinicaId }))!.hunter_nome).toBe('Bia');
  });

  describe('a write through the same Database is seen by the next read at once', () => {
    const protocol = { clinica_id: 0, nome: 'Lentes', descricao: 'Porcelana', preco: 'R$ 1.200' };
    const cases: Array<[string, (db: Database, clinicaId: number) => Promise<unknown>, (rows: Row[]) => void]> = [
      [
        'insert',
        (db, clinicaId) => db.insert('protocolos', { ...protocol, clinica_id: clinicaId, nome: 'Facetas' }),
        (rows) => expect(rows).toHaveLength(2),
      ],
      [
        'upsert (update of the matched row)',
        (db, clinicaId) =>
          db.upsert('protocolos', { ...protocol, clinica_id: clinicaId, preco: 'R$ 990' }, { conflict: ['clinica_id', 'nome'] }),
        (rows) => expect(rows.map((r) => r.preco)).toEqual(['R$ 990']),
      ],
      [
        'upsert (insert)',
        (db, clinicaId) =>
          db.upsert('protocolos', { ...protocol, clinica_id: clinicaId, nome: 'Clareamento' }, { conflict: ['clinica_id', 'nome'] }),
        (rows) => expect(rows.map((r) => r.nome)).toEqual(['Lentes', 'Clareamento']),
      ],
      [
        'update',
        (db, clinicaId) => db.update('protocolos', { clinica_id: clinicaId }, { descricao: 'Resina' }),
        (rows) => expect(rows.map((r) => r.descricao)).toEqual(['Resina']),
      ],
      ['delete', (db, clinicaId) => db.delete('protocolos', { clinica_id: clinicaId }), (rows) => expect(rows).toEqual([])],
    ];
    it.each(cases)('%s', async (_kind, write, check) => {
      const { clinicaId } = await clinicWithInstance(t.current.db);
      const { db, selects } = cachedDatabase();
      await db.insert('protocolos', { ...protocol, clinica_id: clinicaId });
      const read = () => db.find('protocolos', { where: { clinica_id: clinicaId } });
      expect(await read()).toHaveLength(1);
      expect(await read()).toHaveLength(1);
      expect(selects('protocolos')).toBe(1);
      await write(db, clinicaId);
      check(await read());
      expect(selects('protocolos')).toBe(2);
    });
  });

  it('deleting a clinic drops the cached reads of its instances and protocols (ON DELETE CASCADE): its token stops working at once', async () => {
    const { clinicaId, instanciaId } = await clinicWithInstance(t.current.db);
    const { db } = cachedDatabase();
    await db.insert('protocolos', { clinica_id: clinicaId, nome: 'Lentes' });
    const instances = new DbInboundInstances(db);
    expect((await instances.byToken('uazapi', 'tok-Clínica Teste'))?.id).toBe(instanciaId);
    expect(await db.instanceById(instanciaId)).toBeDefined();
    expect(await db.get('protocolos', { clinica_id: clinicaId })).not.toBeNull();
    await db.delete(CLINICS, { id: clinicaId });
    expect(await instances.byToken('uazapi', 'tok-Clínica Teste')).toBeUndefined();
    expect(await db.instanceById(instanciaId)).toBeUndefined();
    expect(await db.get('protocolos', { clinica_id: clinicaId })).toBeNull();
  });

  it('the instance lookups read through the cache: a new instance is found as soon as this Database inserted it', async () => {
    const { clinicaId } = await clinicWithInstance(t.current.db);
    const { db, selects } = cachedDatabase();
    const instances = new DbInboundInstances(db);
    expect(await instances.byToken('uazapi', 'tok-Clínica Teste')).toBeDefined();
    expect(await instances.byToken('uazapi', 'wrong')).toBeUndefined();
    expect(await instances.byExternalId('evolution', 'sorriso')).toBeUndefined();
    expect(await instances.byExternalId('evolution', 'sorriso')).toBeUndefined();
    expect(selects('instancias_whatsapp')).toBe(2);
    const evo = await db.insert('instancias_whatsapp', {
      clinica_id: clinicaId,
      nome: 'evo',
      server_url: 'http://evo',
      token: 'evo-key',
      provider: 'evolution',
      external_id: 'sorriso',
      verify_token: 'verify-me',
    });
    expect((await instances.byExternalId('evolution', 'sorriso'))?.id).toBe(evo.id);
    expect((await instances.byToken('evolution', 'evo-key'))?.id).toBe(evo.id);
    expect((await instances.byVerifyToken('evolution', 'verify-me'))?.id).toBe(evo.id);
    expect(await instances.byToken('uazapi', 'evo-key')).toBeUndefined();
  });

  it('reads inside a transaction neither use nor fill the cache; its writes are seen once it commits, not after a rollback', async () => {
    const { clinicaId } = await clinicWithInstance(t.current.db);
    const { db, selects } = cachedDatabase();
    expect((await db.get(CLINICS, { id: clinicaId }))!.hunter_nome).toBe('Ana');
    expect(selects(CLINICS)).toBe(1);
    await db.transaction(async (tx) => {
      expect((await tx.get(CLINICS, { id: clinicaId }))!.hunter_nome).toBe('Ana');
      await tx.update(CLINICS, { id: clinicaId }, { hunter_nome: 'Bia' });
      expect((await tx.get(CLINICS, { id: clinicaId }))!.hunter_nome).toBe('Bia');
      // A read the cache has never seen, inside the transaction: not cached for later.
      await tx.get(CLINICS, { nome: 'Clínica Teste' });
      await tx.transaction(async (inner) => inner.update(CLINICS, { id: clinicaId }, { hunter_telefone: '5511900000009' }));
    });
    expect(selects(CLINICS)).toBe(4);
    expect(await db.get(CLINICS, { id: clinicaId })).toMatchObject({ hunter_nome: 'Bia', hunter_telefone: '5511900000009' });
    await db.get(CLINICS, { nome: 'Clínica Teste' });
    expect(selects(CLINICS)).toBe(6);

    const scope = await db.rollbackScope();
    await scope.db.update(CLINICS, { id: clinicaId }, { hunter_nome: 'Carla' });
    expect((await scope.db.get(CLINICS, { id: clinicaId }))!.hunter_nome).toBe('Carla');
    await scope.rollback();
    expect((await db.get(CLINICS, { id: clinicaId }))!.hunter_nome).toBe('Bia');

    await expect(
      db.transaction(async (tx) => {
        await tx.update(CLINICS, { id: clinicaId }, { hunter_nome: 'Dora' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await db.get(CLINICS, { id: clinicaId }))!.hunter_nome).toBe('Bia');
  });

  it('callers get copies: changing a returned row changes nothing for the next reader', async () => {
    const { clinicaId } = await clinicWithInstance(t.current.db);
    const { db, selects } = cachedDatabase();
    const missed = (await db.get(CLINICS, { id: clinicaId }))!;
    missed.hunter_nome = 'mudado na primeira';
    const hit = (await db.get(CLINICS, { id: clinicaId }))!;
    expect(hit.hunter_nome).toBe('Ana');
    hit.hunter_nome = 'mudado no acerto';
    delete hit.nome;
    expect(await db.get(CLINICS, { id: clinicaId })).toMatchObject({ hunter_nome: 'Ana', nome: 'Clínica Teste' });
    const rows = await db.find(CLINICS, { where: { id: clinicaId } });
    rows.pop();
    expect(await db.find(CLINICS, { where: { id: clinicaId } })).toHaveLength(1);
    expect(selects(CLINICS)).toBe(2);
  });

  it('holds at most maxEntries queries, dropping the least recently used', async () => {
    const { clinicaId } = await clinicWithInstance(t.current.db);
    const { db, selects } = cachedDatabase({ maxEntries: 2 });
    const a = () => db.get(CLINICS, { id: clinicaId });
    const b = () => db.get(CLINICS, { nome: 'Clínica Teste' });
    const c = () => db.find(CLINICS);
    await a();
    await b();
    await a(); // hit: a is now the most recent
    expect(selects(CLINICS)).toBe(2);
    await c(); // evicts b
    await a();
    expect(selects(CLINICS)).toBe(3);
    await b();
    expect(selects(CLINICS)).toBe(4);
  });

  it('ttlMs 0 caches nothing; migrate() empties the cache', async () => {
    const { clinicaId } = await clinicWithInstance(t.current.db);
    const off = cachedDatabase({ ttlMs: 0 });
    await off.db.get(CLINICS, { id: clinicaId });
    await off.db.get(CLINICS, { id: clinicaId });
    expect(off.selects(CLINICS)).toBe(2);
    const { db, selects } = cachedDatabase();
    await db.get(CLINICS, { id: clinicaId });
    expect(await db.migrate()).toEqual([]);
    await db.get(CLINICS, { id: clinicaId });
    expect(selects(CLINICS)).toBe(2);
  });

  it("a gateway message's configuration reads (token check, instance, clinic, protocol): the second message makes no round trip for them", async () => {
    const { clinicaId, instanciaId } = await clinicWithInstance(t.current.db);
    await t.current.db.insert('protocolos', { clinica_id: clinicaId, nome: 'Lentes' });
    const { db, selects } = cachedDatabase();
    const instances = new DbInboundInstances(db);
    const message = async () => {
      const instance = (await instances.byToken('uazapi', 'tok-Clínica Teste'))!;
      await db.instanceById(instance.id);
      await db.get(CLINICS, { id: instance.clinica_id });
      await db.get('protocolos', { clinica_id: instance.clinica_id });
      return instance.id;
    };
    const all = () => selects(CLINICS) + selects('protocolos') + selects('instancias_whatsapp');
    expect(await message()).toBe(instanciaId);
    expect(all()).toBe(4);
    expect(await message()).toBe(instanciaId);
    expect(all()).toBe(4);
  });
});

describe('ConfigReadCache', () => {
  const row = (id: number): Row => ({ id, nome: `r${id}` });

  it('does not keep what a read returned when the table was invalidated while the read was under way', async () => {
    const cache = new ConfigReadCache({ now: () => 0 });
    let release!: (rows: Row[]) => void;
    const inFlight = cache.find('protocolos', {}, () => new Promise<Row[]>((resolve) => (release = resolve)));
    cache.invalidate('protocolos');
    release([row(1)]);
    expect(await inFlight).toEqual([row(1)]);
    expect(cache.size).toBe(0);
    // A read of another table is unaffected by it.
    const other = cache.find('clinicas_com_atendentes', {}, () => new Promise<Row[]>((resolve) => (release = resolve)));
    cache.invalidate('protocolos');
    release([row(2)]);
    await other;
    expect(cache.size).toBe(1);
    // clear() drops reads under way of every table too.
    const third = cache.find('instancias_whatsapp', {}, () => new Promise<Row[]>((resolve) => (release = resolve)));
    cache.clear();
    release([row(3)]);
    await third;
    expect(cache.size).toBe(0);
  });

  it('copies rows in and out: flat ones as new objects, ones holding objects or arrays deeply', async () => {
    const cache = new ConfigReadCache({ now: () => 0 });
    const loaded: Row[] = [
      { id: 1, nome: 'a', ativo: true, vazio: null },
      { id: 2, extra: { horarios: ['08:00'] } },
    ];
    const first = await cache.find('protocolos', {}, async () => loaded);
    expect(first).toBe(loaded);
    loaded[0]!.nome = 'mudado pelo leitor';
    (loaded[1]!.extra as { horarios: string[] }).horarios.push('mudado pelo leitor');
    const hit = await cache.find('protocolos', {}, async () => []);
    expect(hit).toEqual([
      { id: 1, nome: 'a', ativo: true, vazio: null },
      { id: 2, extra: { horarios: ['08:00'] } },
    ]);
    hit[0]!.nome = 'mudado no acerto';
    (hit[1]!.extra as { horarios: string[] }).horarios.pop();
    expect(await cache.find('protocolos', {}, async () => [])).toEqual([
      { id: 1, nome: 'a', ativo: true, vazio: null },
      { id: 2, extra: { horarios: ['08:00'] } },
    ]);
  });

  it('keys a read by table, where (keys in any order, undefined as null), order_by and limit; values that are not JSON are not cached', async () => {
    expect(queryKey('protocolos', { where: { a: 1, b: 'x' } })).toBe(queryKey('protocolos', { where: { b: 'x', a: 1 } }));
    expect(queryKey('protocolos', { where: { a: undefined } })).toBe(queryKey('protocolos', { where: { a: null } }));
    expect(queryKey('protocolos', { where: { a: undefined } })).not.toBe(queryKey('protocolos', {}));
    expect(queryKey('protocolos', {})).toBe(queryKey('protocolos', { where: {}, order_by: [], limit: 100 }));
    expect(queryKey('protocolos', { where: { a: 1 } })).not.toBe(queryKey('clinicas_com_atendentes', { where: { a: 1 } }));
    expect(queryKey('protocolos', { where: { a: '1' } })).not.toBe(queryKey('protocolos', { where: { a: 1 } }));
    expect(queryKey('protocolos', { limit: 1 })).not.toBe(queryKey('protocolos', { limit: 2 }));
    const byName = { column: 'nome' };
    const byId = { column: 'id', direction: 'desc' as const };
    expect(queryKey('protocolos', { order_by: [byName, byId] })).not.toBe(queryKey('protocolos', { order_by: [byId, byName] }));
    expect(queryKey('protocolos', { where: { a: new Date(0) } })).toBeUndefined();
    expect(queryKey('protocolos', { where: { a: Number.NaN } })).toBeUndefined();
    expect(queryKey('protocolos', { where: { a: { in: [1, 10n] } } })).toBeUndefined();
    let loads = 0;
    const cache = new ConfigReadCache({ now: () => 0 });
    const load = async () => [row(++loads)];
    await cache.find('protocolos', { where: { a: new Date(0) } }, load);
    await cache.find('protocolos', { where: { a: new Date(0) } }, load);
    expect(loads).toBe(2);
  });
});
