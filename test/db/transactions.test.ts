// Transactions and the rollback scope of dry runs.
import { expect, it } from 'vitest';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { clinicWithInstance } from './support.js';

forEachDatabase('transactions', (open) => {
  const t = useFreshDatabase(open);

  it('rollbackScope: writes are visible inside the scope and gone after rollback', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const scope = await db.rollbackScope();
    expect(scope.db.inTransaction).toBe(true);
    await scope.db.insert('leads', { clinica_id: clinicaId, remotejid: '5511987654321', nome: 'Maria' });
    await scope.db.upsert('leads', { clinica_id: clinicaId, remotejid: '5511900000002' }, { conflict: ['clinica_id', 'remotejid'] });
    await scope.db.update('clinicas_com_atendentes', { id: clinicaId }, { hunter_nome: 'Outro' });
    await scope.db.delete('instancias_whatsapp', { clinica_id: clinicaId });
    expect(await scope.db.find('leads')).toHaveLength(2);
    await scope.rollback();
    await scope.rollback(); // a second rollback is a no-op
    expect(await db.find('leads')).toEqual([]);
    expect((await db.get('clinicas_com_atendentes', { id: clinicaId }))!.hunter_nome).toBe('Ana');
    expect(await db.find('instancias_whatsapp')).toHaveLength(1);
  });

  it('a failed statement inside the scope does not spoil later ones (savepoint per operation)', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const scope = await db.rollbackScope();
    try {
      await scope.db.insert('leads', { clinica_id: clinicaId, remotejid: '5511987654321' });
      await expect(scope.db.insert('leads', { clinica_id: clinicaId, remotejid: '5511987654321' })).rejects.toThrow(/unique/i);
      await expect(scope.db.insert('leads', { clinica_id: 9999, remotejid: '5511900000001' })).rejects.toThrow(/foreign key/i);
      const after = await scope.db.insert('leads', { clinica_id: clinicaId, remotejid: '5511900000002' });
      expect(after.remotejid).toBe('5511900000002');
      expect(await scope.db.find('leads')).toHaveLength(2);
    } finally {
      await scope.rollback();
    }
    expect(await db.find('leads')).toEqual([]);
  });

  it('transaction commits when fn resolves and rolls everything back when it throws', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const id = await db.transaction(async (tx) => (await tx.insert('leads', { clinica_id: clinicaId, remotejid: '5511900000001' })).id);
    expect((await db.get('leads', { id }))!.remotejid).toBe('5511900000001');
    await expect(
      db.transaction(async (tx) => {
        await tx.insert('leads', { clinica_id: clinicaId, remotejid: '5511900000002' });
        await tx.update('leads', { id }, { nome: 'mudado' });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect((await db.find('leads')).map((r) => [r.remotejid, r.nome])).toEqual([['5511900000001', null]]);
  });

  it('a nested transaction inside a scope rolls back alone; the scope still rolls back everything', async () => {
    const { db } = t.current;
    const { clinicaId } = await clinicWithInstance(db);
    const scope = await db.rollbackScope();
    await scope.db.insert('leads', { clinica_id: clinicaId, remotejid: '5511900000001' });
    await expect(
      scope.db.transaction(async (tx) => {
        await tx.insert('leads', { clinica_id: clinicaId, remotejid: '5511900000002' });
        throw new Error('inner');
      }),
    ).rejects.toThrow('inner');
    expect((await scope.db.find('leads')).map((r) => r.remotejid)).toEqual(['5511900000001']);
    await scope.rollback();
    expect(await db.find('leads')).toEqual([]);
  });

  it('ping answers; close() of a transaction-bound database leaves the connection open', async () => {
    const { db } = t.current;
    await db.ping();
    const scope = await db.rollbackScope();
    await scope.db.close();
    await scope.db.ping();
    await scope.rollback();
    await db.ping();
  });
});
