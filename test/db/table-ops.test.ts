// Table operations of the db.* node types: the same values and rows on SQLite and PostgreSQL,
// structured where with bound values, allow-listed tables and columns, race-free upsert.
import { expect, it } from 'vitest';
import { DbQueryError } from '../../adapters/db/db-query-error.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { clinicWithInstance } from './support.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

forEachDatabase('table operations', (open) => {
  const t = useFreshDatabase(open);

  it('round-trips booleans, JSON, integers and timestamps to the same values', async () => {
    const { db } = t.current;
    const { clinicaId, instanciaId } = await clinicWithInstance(db);
    const respostas = {
      procedimento: 'Lentes',
      nested: { list: [1, 'dois', null, true], vazio: {} },
      texto: 'aspas " e \\ barra',
      unicode: 'Ção ✅',
    };
    const inserted = await db.insert('leads', {
      clinica_id: String(clinicaId), // numeric strings are accepted for integer columns
      instancia_id: instanciaId,
      remotejid: '5511987654321',
      nome: 'Maria',
      respostas,
      transferido: true,
      handoff_at: '2025-03-04T05:06:07.089Z',
      ultima_mensagem_at: Date.UTC(2025, 0, 2, 3, 4, 5, 6),
      pausado_ate: '2025-03-04T02:06:07-03:00',
    });
    const expected = {
      id: expect.any(Number),
      clinica_id: clinicaId,
      instancia_id: instanciaId,
      remotejid: '5511987654321',
      nome: 'Maria',
      telefone: null,
      orcamento: null,
      respostas,
      transferido: true,
      handoff_enviado: false,
      handoff_at: '2025-03-04T05:06:07.089Z',
      ultima_mensagem: null,
      ultima_mensagem_at: '2025-01-02T03:04:05.006Z',
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      pausado_ate: '2025-03-04T05:06:07.000Z',
      optout_at: null,
      sem_resposta_at: null,
    };
    expect(inserted).toEqual(expected);
    const read = await db.get('leads', { id: inserted.id });
    expect(read).toEqual(inserted);
    expect(typeof read!.transferido).toBe('boolean');
    // A JSON string that looks like a number stays a string; JSON null is null.
    const other = await db.insert('leads', { clinica_id: clinicaId, remotejid: '5511900000002', respostas: '123' });
    expect((await db.get('leads', { id: other.id }))!.respostas).toBe('123');
  });

  it('filters with equality, null, in, ne, gt/gte/lt/lte, several operators at once', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const at = (day: number) => `2025-01-${String(day).padStart(2, '0')}T12:00:00.000Z`;
    for (const [i, nome] of ['Ana', 'Bruno', 'Carla', 'Davi'].entries()) {
      await db.insert('leads', {
        clinica_id: clinicaId,
        remotejid: `551190000000${i}`,
        nome,
        transferido: i % 2 === 1,
        handoff_at: i === 3 ? null : at(i + 1),
      });
    }
    const names = async (where: Record<string, unknown>) => (await db.find('leads', { where })).map((r) => r.nome);
    expect(await names({ transferido: true })).toEqual(['Bruno', 'Davi']);
    expect(await names({ transferido: false, clinica_id: clinicaId })).toEqual(['Ana', 'Carla']);
    expect(await names({ handoff_at: null })).toEqual(['Davi']);
    expect(await names({ handoff_at: { eq: null } })).toEqual(['Davi']);
    expect(await names({ handoff_at: { ne: null } })).toEqual(['Ana', 'Bruno', 'Carla']);
    expect(await names({ nome: { in: ['Carla', 'Ana', 'Zé'] } })).toEqual(['Ana', 'Carla']);
    expect(await names({ nome: { in: [] } })).toEqual([]);
    // ne keeps rows whose column is NULL.
    expect(await names({ handoff_at: { ne: at(1) } })).toEqual(['Bruno', 'Carla', 'Davi']);
    expect(await names({ handoff_at: { gt: at(1) } })).toEqual(['Bruno', 'Carla']);
    expect(await names({ handoff_at: { gte: at(2), lt: at(3) } })).toEqual(['Bruno']);
    expect(await names({ handoff_at: { lte: '2025-01-02T12:00:00Z' } })).toEqual(['Ana', 'Bruno']);
    expect(await names({ nome: { gt: 'B', lte: 'Carla' } })).toEqual(['Bruno', 'Carla']);
  });

  it('orders text byte-wise and NULLs last ascending / first descending, ties by id; limit caps rows', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    for (const [i, nome] of ['beta', 'Alfa', null, 'alfa', 'Beta'].entries())
      await db.insert('leads', { clinica_id: clinicaId, remotejid: `55119000000${i}0`, nome });
    const order = async (direction: 'asc' | 'desc', limit?: number) =>
      (await db.find('leads', { order_by: [{ column: 'nome', direction }], limit })).map((r) => r.nome);
    expect(await order('asc')).toEqual(['Alfa', 'Beta', 'alfa', 'beta', null]);
    expect(await order('desc')).toEqual([null, 'beta', 'alfa', 'Beta', 'Alfa']);
    expect(await order('asc', 2)).toEqual(['Alfa', 'Beta']);
    expect((await db.get('leads', {}, [{ column: 'id', direction: 'desc' }]))!.nome).toBe('Beta');
    expect(await db.get('leads', { nome: 'ninguém' })).toBeNull();
    await expect(db.find('leads', { limit: 1001 })).rejects.toThrow(/limit must be an integer from 1 to 1000/);
  });

  it('binds values as parameters: SQL in a value is stored and matched verbatim', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const evil = "x'); DROP TABLE leads; --";
    const lead = await db.insert('leads', {
      clinica_id: clinicaId,
      remotejid: '5511987654321',
      nome: evil,
      ultima_mensagem: '" OR 1=1 --',
    });
    expect(lead.nome).toBe(evil);
    expect((await db.get('leads', { nome: evil }))!.id).toBe(lead.id);
    expect(await db.find('leads', { where: { nome: { in: [evil] } } })).toHaveLength(1);
    expect(await db.find('leads', { where: { ultima_mensagem: "' OR '1'='1" } })).toEqual([]);
    await db.update('leads', { nome: evil }, { orcamento: evil });
    expect((await db.get('leads', { id: lead.id }))!.orcamento).toBe(evil);
    expect(Number((await db.knex('leads').count({ n: '*' }).first())!.n)).toBe(1);
  });

  it('rejects unknown tables, columns, operators and bad values before any SQL runs', async () => {
    const { db } = t.current;
    const queries: string[] = [];
    const listener = (q: { sql: string }) => queries.push(q.sql);
    db.knex.on('query', listener);
    try {
      const cases: Array<[Promise<unknown>, RegExp]> = [
        [db.find('executions'), /unknown table "executions"/],
        [db.get('knex_migrations'), /unknown table/],
        [db.insert('leads; drop table leads', { nome: 'x' }), /unknown table/],
        [db.find('leads', { where: { 'nome; --': 'x' } }), /unknown column "nome; --" in leads/],
        [db.insert('leads', { remotejid: '1', clinica_id: 1, apelido: 'x' }), /unknown column "apelido"/],
        [db.find('leads', { order_by: [{ column: 'nome desc; --' }] }), /unknown column/],
        [db.find('leads', { where: { nome: { like: '%a%' } } }), /unknown operator "like"/],
        [db.find('leads', { where: { nome: ['a', 'b'] } }), /use \{ in: \[\.\.\.\] \}/],
        [db.find('leads', { where: { respostas: { a: 1 } } }), /JSON column and cannot be filtered/],
        [db.find('leads', { where: { clinica_id: 'abc' } }), /leads\.clinica_id expects an integer, got "abc"/],
        [db.find('leads', { where: { transferido: 'yes' } }), /expects true or false/],
        [db.find('leads', { where: { handoff_at: { gt: 'ontem' } } }), /expects a timestamp/],
        [db.insert('leads', { id: 5, remotejid: '1', clinica_id: 1 }), /generated by the database/],
        [db.update('leads', {}, { nome: 'x' }), /must name at least one column/],
        [db.update('protocolos', { id: 1 }, { nome: undefined }), /values must name at least one column/],
        [db.delete('leads', {}), /must name at least one column/],
        [
          db.upsert('leads', { remotejid: '1', clinica_id: 1 }, { conflict: ['remotejid'] }),
          /not a unique key \(unique keys: \[clinica_id, remotejid\]\)/,
        ],
        [db.upsert('clinicas_com_atendentes', { nome: 'x' }, { conflict: ['id'] }), /not a unique key \(unique keys: \[nome\]\)/],
      ];
      for (const [promise, message] of cases) {
        const err = await promise.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err, String(message)).toBeInstanceOf(DbQueryError);
        expect((err as Error).message).toMatch(message);
      }
      expect(queries).toEqual([]);
      await db.find('leads', { where: { nome: 'x' } });
      expect(queries).toHaveLength(1);
    } finally {
      db.knex.off('query', listener);
    }
  });

  it('SQL is compiled once per shape: other values of a shape read their own rows; a null, an IN list of another length, another limit are shapes of their own', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    for (const [i, nome] of ['Ana', 'Bia', null].entries())
      await db.insert('leads', { clinica_id: clinicaId, remotejid: `551190000000${i}`, nome });
    const names = async (where: Record<string, unknown>, limit?: number) =>
      (await db.find('leads', { where, ...(limit ? { limit } : {}) })).map((r) => r.nome);
    const compiled = db.statements.size;
    expect(await names({ nome: 'Ana' })).toEqual(['Ana']);
    expect(await names({ nome: 'Bia' })).toEqual(['Bia']);
    expect(db.statements.size).toBe(compiled + 1);
    expect(await names({ nome: null })).toEqual([null]);
    expect(await names({ nome: { eq: null } })).toEqual([null]);
    expect(await names({ nome: { eq: 'Bia' } })).toEqual(['Bia']);
    expect(await names({ nome: { ne: 'Ana' } })).toEqual(['Bia', null]);
    expect(await names({ nome: { ne: null } })).toEqual(['Ana', 'Bia']);
    expect(await names({ nome: { in: ['Bia'] } })).toEqual(['Bia']);
    expect(await names({ nome: { in: ['Ana', 'Bia'] } })).toEqual(['Ana', 'Bia']);
    expect(await names({ nome: { in: [] } })).toEqual([]);
    expect(await names({ clinica_id: clinicaId }, 2)).toEqual(['Ana', 'Bia']);
    expect(await names({ clinica_id: clinicaId }, 1)).toEqual(['Ana']);
    expect(await names({ clinica_id: clinicaId, nome: { gt: 'Ana' } })).toEqual(['Bia']);
    expect(await names({ clinica_id: clinicaId, nome: { gt: 'Bia' } })).toEqual([]);
    expect((await db.update('leads', { nome: null }, { nome: 'Cia', orcamento: null })).rows.map((r) => r.nome)).toEqual(['Cia']);
    expect((await db.update('leads', { nome: 'Ana' }, { nome: 'Dani', orcamento: 'x' })).rows.map((r) => r.nome)).toEqual(['Dani']);
    expect(await db.delete('leads', { nome: 'Bia' })).toEqual({ count: 1 });
    expect(await db.delete('leads', { nome: 'Bia' })).toEqual({ count: 0 });
    expect(await names({})).toEqual(['Dani', 'Cia']);
  });

  it('update returns the count and the rows; delete returns the count; updated_at of leads moves', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const old = '2020-01-01T00:00:00.000Z';
    const a = await db.insert('leads', { clinica_id: clinicaId, remotejid: '5511900000001', created_at: old, updated_at: old });
    await db.insert('leads', { clinica_id: clinicaId, remotejid: '5511900000002' });
    expect(a.updated_at).toBe(old);
    const result = await db.update('leads', { remotejid: '5511900000001' }, { transferido: true, respostas: { motivo: 'quer agendar' } });
    expect(result.count).toBe(1);
    expect(result.rows).toEqual([
      expect.objectContaining({ id: a.id, transferido: true, respostas: { motivo: 'quer agendar' }, created_at: old }),
    ]);
    expect(Date.parse(result.rows[0]!.updated_at as string)).toBeGreaterThan(Date.parse(old));
    expect(await db.update('leads', { remotejid: 'nobody' }, { nome: 'x' })).toEqual({ count: 0, rows: [] });
    expect(await db.delete('leads', { clinica_id: clinicaId, transferido: false })).toEqual({ count: 1 });
    expect((await db.find('leads')).map((r) => r.id)).toEqual([a.id]);
  });

  it('upsert inserts, then updates the matched row (or keeps it), and reports which', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const key = { clinica_id: clinicaId, remotejid: '5511987654321' };
    const first = await db.upsert('leads', { ...key, nome: 'Maria', orcamento: 'Até R$ 3.000' }, { conflict: ['clinica_id', 'remotejid'] });
    expect(first).toEqual({ inserted: true, row: expect.objectContaining({ ...key, nome: 'Maria', orcamento: 'Até R$ 3.000' }) });
    const kept = await db.upsert('leads', { ...key, nome: 'Outra' }, { conflict: ['remotejid', 'clinica_id'], on_conflict: 'keep' });
    expect(kept).toEqual({ inserted: false, row: first.row });
    const updated = await db.upsert('leads', { ...key, nome: 'Maria Silva' }, { conflict: ['clinica_id', 'remotejid'] });
    expect(updated.inserted).toBe(false);
    expect(updated.row).toEqual({ ...first.row, nome: 'Maria Silva', updated_at: expect.stringMatching(ISO) });
    expect(await db.find('leads')).toHaveLength(1);
    await expect(db.upsert('leads', { clinica_id: clinicaId, nome: 'x' }, { conflict: ['clinica_id', 'remotejid'] })).rejects.toThrow(
      /conflict column remotejid needs a value/,
    );
  });

  it('20 concurrent identical upserts make one row, and exactly one reports inserted', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        db.upsert(
          'leads',
          { clinica_id: clinicaId, remotejid: '5511987654321', ultima_mensagem: `msg ${i}` },
          { conflict: ['clinica_id', 'remotejid'] },
        ),
      ),
    );
    expect(results.filter((r) => r.inserted)).toHaveLength(1);
    expect(new Set(results.map((r) => r.row.id)).size).toBe(1);
    expect(await db.find('leads')).toHaveLength(1);
  });

  it('concurrent upserts from separate connections (processes) make one row too', async () => {
    const { clinicaId } = await clinicWithInstance(t.current.db);
    const others = [t.current.openAnother(), t.current.openAnother()];
    const all = [t.current.db, ...others];
    const results = await Promise.all(
      Array.from({ length: 21 }, (_, i) =>
        all[i % 3]!.upsert(
          'leads',
          { clinica_id: clinicaId, remotejid: '5511900000009', nome: `n${i}` },
          { conflict: ['clinica_id', 'remotejid'], on_conflict: 'keep' },
        ),
      ),
    );
    expect(results.filter((r) => r.inserted)).toHaveLength(1);
    expect(await t.current.db.find('leads')).toHaveLength(1);
  });

  it('instanceById returns the instance row with its provider columns (uazapi by default), or undefined', async () => {
    const { db } = t.current;
    const { clinicaId, instanciaId } = await clinicWithInstance(db, 'Clínica X');
    expect(await db.instanceById(instanciaId)).toEqual({
      id: instanciaId,
      clinica_id: clinicaId,
      nome: 'principal',
      provider: 'uazapi',
      server_url: 'http://127.0.0.1:8081',
      token: 'tok-Clínica X',
      external_id: null,
      app_secret: null,
      verify_token: null,
      templates: null,
    });
    expect(await db.instanceById(instanciaId + 100)).toBeUndefined();
    const cloud = await db.insert('instancias_whatsapp', {
      clinica_id: clinicaId,
      nome: 'oficial',
      provider: 'cloud',
      server_url: 'https://graph.facebook.com/v23.0',
      token: 'EAAG-access',
      external_id: '106540352242922',
      app_secret: 'app-secret',
      verify_token: 'verify-me',
      templates: '{"primeiro_contato":{"name":"primeiro_contato","language":"pt_BR"}}',
    });
    expect(await db.instanceById(cloud.id as number)).toMatchObject({
      provider: 'cloud',
      external_id: '106540352242922',
      app_secret: 'app-secret',
      verify_token: 'verify-me',
      templates: { primeiro_contato: { name: 'primeiro_contato', language: 'pt_BR' } },
    });
  });
});
