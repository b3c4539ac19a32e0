// Erasure (`excluir`) on the database execution store, SQLite and PostgreSQL: the shared suite of
// test/executor/erasure.contract.ts (its "another process" is a second DbExecutionStore on a second
// connection pool to the same database), then what only a database shows: after an erasure whose
// executions ended in another process, the phone is in no column of any table, the erasure ledger
// (`execution_erasures`) included; pruning; errors that never carry the person's data.
import { afterEach, expect, it } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { brazilianVariants, leadErasure } from '../../adapters/phones/index.js';
import { withErasure } from '../../engine/store/erasing-store.js';
import type { ExecutionRecord, ExecutionStatus } from '../../engine/types.js';
import { erasureContract } from '../executor/erasure.contract.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { shutdownEngines } from '../helpers/run-flow.js';
import { textOfEveryTable } from './support.js';

afterEach(shutdownEngines);

const PHONE = '5521987651234';
const erasure = () => leadErasure({ phones: [PHONE], names: ['Joana Prado'] });
/** The phone's digit forms found in `text`. */
const phonesIn = (text: string) => brazilianVariants(PHONE).filter((v) => text.includes(v));

function leadRecord(id: string, status: ExecutionStatus, extra: Partial<ExecutionRecord> = {}): ExecutionRecord {
  const at = '2025-01-01T00:00:00.000Z';
  return {
    id,
    flow: 'agent',
    status,
    trigger: {
      body: {
        message: { chatid: `${PHONE}@s.whatsapp.net`, text: 'Quero clarear os dentes', senderName: 'Joana Prado' },
        number: Number(PHONE),
      },
    },
    vars: { lead: { remotejid: PHONE, telefone: '(21) 98765-1234', nome: 'Joana Prado' } },
    steps: [
      {
        key: 'send',
        id: 'send',
        type: 'gateway.send',
        status: 'success',
        params: { number: PHONE, messages: ['Olá, Joana!'] },
        output: { sent: 1 },
        attempt: 1,
        started_at: at,
        ms: 1,
      },
    ],
    outbound: [
      {
        step: 'send',
        kind: 'gateway',
        method: 'POST',
        url: 'http://gw/send/text',
        body: { number: PHONE, text: 'Olá, Joana!' },
        performed: true,
        status: 200,
      },
    ],
    dry_run: false,
    created_at: at,
    updated_at: at,
    ...extra,
  };
}

forEachDatabase('erasure on DbExecutionStore', (open) => {
  const t = useFreshDatabase(open);
  erasureContract(() => new DbExecutionStore(t.current.db), { peer: () => new DbExecutionStore(t.current.openAnother()) });

  it("another process: a lead's execution that B runs ends scrubbed after A erased the lead, and then the phone is in no table at all", async () => {
    // Two processes: each its own connection pool, store and erasing store (B's memory knows nothing).
    const a = withErasure(new DbExecutionStore(t.current.db));
    const b = withErasure(new DbExecutionStore(t.current.openAnother()));
    await b.insert(leadRecord('lead-run', 'running'));
    await a.insert(leadRecord('excluir', 'running'));
    await a.insert(leadRecord('older', 'success'));
    expect(await a.eraseExecutions('excluir', erasure())).toEqual({ erased: 2, pending: 1 });
    // While lead-run runs, the ledger holds the erasure (so the dump below does see that table).
    const during = await textOfEveryTable(t.current.db);
    expect(
      during
        .split('\n')
        .filter((line) => phonesIn(line).length > 0)
        .map((line) => line.slice(0, line.indexOf(':'))),
    ).toEqual(['execution_erasures', 'executions']);

    await b.update(leadRecord('lead-run', 'success', { finished_at: '2025-01-01T00:00:03.000Z' }));
    const ended = (await b.get('lead-run'))!;
    expect([ended.status, phonesIn(JSON.stringify(ended)), ended.trigger]).toEqual([
      'success',
      [],
      {
        body: {
          message: { chatid: '5521*******34@s.whatsapp.net', text: '[texto apagado]', senderName: '[texto apagado]' },
          number: '5521*******34',
        },
      },
    ]);
    // The excluir execution still runs: the entry stays until it ends.
    expect(Number((await t.current.db.knex('execution_erasures').count({ n: '*' }).first())!.n)).toBe(1);
    await a.update(leadRecord('excluir', 'stopped', { stop_reason: 'command excluir', finished_at: '2025-01-01T00:00:04.000Z' }));
    expect(Number((await t.current.db.knex('execution_erasures').count({ n: '*' }).first())!.n)).toBe(0);

    const after = await textOfEveryTable(t.current.db);
    expect(after).toContain('executions: ');
    expect(phonesIn(after)).toEqual([]);
    expect(after).not.toMatch(/joana|prado|clarear/i);
  });

  it("after a restart: the eraser's final record, written by a new store on a new connection, is scrubbed", async () => {
    const a = withErasure(new DbExecutionStore(t.current.db));
    await a.insert(leadRecord('excluir', 'running'));
    expect(await a.eraseExecutions('excluir', erasure())).toEqual({ erased: 1, pending: 0 });
    const restarted = withErasure(new DbExecutionStore(t.current.openAnother()));
    await restarted.update(leadRecord('excluir', 'stopped', { finished_at: '2025-01-01T00:00:05.000Z' }));
    expect(phonesIn(JSON.stringify(await restarted.get('excluir')))).toEqual([]);
    expect(phonesIn(await textOfEveryTable(t.current.db))).toEqual([]);
  });

  it("prune deletes expired ledger entries; the erasing store's prune also settles entries whose executions have all ended", async () => {
    const inner = new DbExecutionStore(t.current.db);
    const now = Date.now();
    const entry = (id: string, expires_at: number, ids: string[]) => ({
      id,
      erasure: erasure(),
      eraser_id: ids[0]!,
      execution_ids: ids,
      created_at: now - 1000,
      expires_at,
    });
    const recent = new Date(now - 1000).toISOString();
    await inner.insert(leadRecord('ended', 'success', { updated_at: recent, finished_at: recent }));
    await inner.insert(leadRecord('running', 'running', { updated_at: recent }));
    await inner.recordErasure(entry('expired', now - 1, ['gone']));
    await inner.recordErasure(entry('all-ended', now + 60_000, ['ended']));
    await inner.recordErasure(entry('still-running', now + 60_000, ['running']));
    expect((await inner.liveErasures(now)).map((e) => e.id).sort()).toEqual(['all-ended', 'still-running']);

    // The store's own prune: the expired entry only.
    expect(await inner.prune(30, now)).toBe(0);
    expect((await t.current.db.knex('execution_erasures').select('id').orderBy('id')).map((r) => r.id)).toEqual([
      'all-ended',
      'still-running',
    ]);
    // Through the erasing store (what `serve` prunes with): an entry whose executions all ended has
    // them scrubbed once more (here a write that missed the entry) and goes; one still running stays.
    expect(await withErasure(inner).prune(30, now)).toBe(0);
    expect((await t.current.db.knex('execution_erasures').select('id')).map((r) => r.id)).toEqual(['still-running']);
    expect(phonesIn(JSON.stringify(await inner.get('ended')))).toEqual([]);
    expect(phonesIn(JSON.stringify(await inner.get('running')))).not.toEqual([]);
  });

  it("errors of the ledger and of the erasure pass never carry the person's data", async () => {
    const inner = new DbExecutionStore(t.current.db);
    const entry = { id: 'e1', erasure: erasure(), eraser_id: 'x', execution_ids: ['x'], created_at: 1, expires_at: Date.now() + 60_000 };
    await inner.recordErasure(entry);
    const duplicate = await inner.recordErasure(entry).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(duplicate).toBeInstanceOf(Error);
    expect(duplicate!.message).toMatch(/^recording the erasure failed: database error/);
    expect(phonesIn(`${duplicate!.message} ${JSON.stringify(duplicate)}`)).toEqual([]);

    await t.current.db.knex.schema.dropTable('executions');
    const broken = await inner.erasePayloads(erasure()).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(broken!.message).toMatch(/^looking for the records to erase failed: database error/);
    expect(phonesIn(`${broken!.message} ${JSON.stringify(broken)}`)).toEqual([]);
  });
});
