// DbExecutionStore: records read back exactly, list order/limit/filters, waits, prune (and the
// retention `serve` prunes with), id prefixes. Erasure (`erasePayloads`, excluir) is in erasing-store.test.ts.
import { describe, expect, it } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { retentionDays } from '../../cli/runtime.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import {
  expectCancelByKeyRemembersWho,
  expectContainingFilter,
  expectFlowVersionsContract,
  expectJournalContract,
  expectPruneContract,
  expectResolveIdContract,
  RECORDS_BASE_MS,
  storeRecord,
} from '../helpers/execution-records.js';
import { CompiledErasure } from '../../engine/store/erasure.js';
import { summaryOfRecord } from '../../engine/store/execution-summary.js';

const BASE = RECORDS_BASE_MS;

const rec = storeRecord;

/** A record using every field, with awkward values (JSON null output, unicode, nested arrays). */
function fullRecord(): ExecutionRecord {
  return {
    id: '0b9f3c1e-8a43-4c3e-9d1e-6f1a2b3c4d5e',
    flow: 'intake',
    status: 'failed',
    trigger: {
      body: { nome: 'Ção ✅', telefone: '+55 (11) 98765-4321', respostas: { a: [1, 2.5, null, true, { b: '' }] } },
      headers: { 'user-agent': 'x' },
      query: {},
    },
    vars: { phone: '5511987654321', tries: 2, flag: false, nothing: null },
    steps: [
      {
        key: 'fields',
        id: 'fields',
        type: 'set',
        status: 'success',
        params: { values: { x: 1 } },
        output: { x: 1 },
        attempt: 1,
        started_at: '2025-01-01T00:00:00.001Z',
        ms: 3,
      },
      {
        key: 'notify',
        id: 'notify',
        type: 'http.request',
        status: 'error',
        params: { url: 'http://x' },
        error: { name: 'HttpStatusError', message: 'HTTP 500', status: 500, body: { erro: 'falhou' }, code: 'http' },
        attempt: 3,
        started_at: '2025-01-01T00:00:00.010Z',
        ms: 1500,
        state: { wake: 1 },
      },
    ],
    outbound: [
      {
        step: 'notify',
        kind: 'http',
        method: 'POST',
        url: 'http://x',
        headers: { token: '***' },
        body: { text: 'oi' },
        performed: true,
        status: 500,
      },
    ],
    wake_at: 1_735_689_600_123,
    dry_run: true,
    parent_id: 'parent-1',
    response: { status: 202, body: { execution_id: 'x' }, headers: { 'x-a': 'b' } },
    output: null,
    error: { name: 'StepFailedError', message: 'step notify failed', step: 'notify', status: 500 },
    stop_reason: 'not used here',
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:01.500Z',
    finished_at: '2025-01-01T00:00:01.500Z',
  };
}

forEachDatabase('DbExecutionStore', (open) => {
  const t = useFreshDatabase(open);
  const store = () => new DbExecutionStore(t.current.db);

  it('lists only the records whose trigger, vars or key contain one of the texts, newest first, within the limit', async () => {
    await expectContainingFilter(store());
  });

  it('cancelByKey remembers who cancelled (cancelled_by): the same canceller gets the same answer again', async () => {
    await expectCancelByKeyRemembersWho(store());
  });

  it('cancelByKey with a canceller and nothing to cancel writes nothing: one statement, a read (PostgreSQL: its one statement)', async () => {
    const s = store();
    await s.insert(rec('done', 'followup', 'success', 0, { concurrency_key: 'lead-1' }));
    const ran: string[] = [];
    const onQuery = (q: { sql: string }) => void ran.push(q.sql.trim().split(/\s+/)[0]!.toLowerCase());
    t.current.db.knex.on('query', onQuery);
    try {
      expect(await s.cancelByKey('followup', 'lead-1', 'a new message', 'agent-1')).toEqual([]);
    } finally {
      t.current.db.knex.off('query', onQuery);
    }
    expect(ran).toEqual([t.current.db.dialect === 'sqlite' ? 'select' : 'with']);
    expect((await s.get('done'))?.status).toBe('success');
  });

  it('journal: a drive saved entry by entry reads back as the live record; a cancel is kept; the whole write replaces it and drops the entries', async () => {
    await expectJournalContract(store());
    const rows = await t.current.db.knex('execution_journal').where({ execution_id: 'j1' }).count({ n: '*' });
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it('journal: entries holding a person are scrubbed by erasePayloads unless spared; prune deletes the entries of deleted executions', async () => {
    const s = store();
    const db = t.current.db;
    await s.insert(rec('eraser', 'agent', 'running', 1));
    await s.insert(rec('other', 'agent', 'running', 2));
    const step = {
      key: 'lead',
      id: 'lead',
      type: 'db.get',
      status: 'success' as const,
      attempt: 1,
      started_at: new Date(BASE).toISOString(),
      ms: 1,
    };
    for (const id of ['eraser', 'other'])
      await s.appendJournal({
        id,
        at: new Date(BASE + 5).toISOString(),
        steps: [{ ...step, output: { remotejid: '5511987654321', nome: 'Maria Souza' } }],
      });
    const erasure = {
      needles: ['5511987654321'],
      replace: [
        { pattern: '5511987654321', with: '55119****4321' },
        { pattern: 'Maria Souza', with: '[nome]' },
      ],
    };
    const result = await s.erasePayloads(erasure, (r) => r.id === 'other');
    expect(result.erased).toContain('eraser');
    expect(result.spared).toContain('other');
    const compiled = new CompiledErasure(erasure);
    expect(compiled.matches((await s.get('eraser'))!)).toBe(false);
    expect(JSON.stringify((await s.get('eraser'))!.steps)).not.toContain('Maria Souza');
    expect(JSON.stringify((await s.get('other'))!.steps)).toContain('5511987654321');
    // A deleted execution's entries go with the next prune.
    await db.knex('executions').where({ id: 'other' }).del();
    await s.prune(30);
    expect((await db.knex('execution_journal').select('execution_id')).map((r: { execution_id: string }) => r.execution_id)).toEqual([
      'eraser',
    ]);
  });

  it('reads a record back exactly: JSON parts, booleans, numbers, optional fields present or absent', async () => {
    const s = store();
    const full = fullRecord();
    await s.insert(full);
    expect(await s.get(full.id)).toStrictEqual(full);
    const minimal = rec('m', 'f', 'running', 5);
    await s.insert(minimal);
    const back = await s.get('m');
    expect(back).toStrictEqual(minimal);
    expect(Object.keys(back!).sort()).toEqual(Object.keys(minimal).sort());
    // JSON null output is kept, as opposed to no output at all.
    expect('output' in (await s.get(full.id))!).toBe(true);
    expect('output' in back!).toBe(false);
  });

  it('update writes every change (and clears fields removed from the record); insert refuses a duplicate id', async () => {
    const s = store();
    const r = rec('a', 'f', 'waiting', 0, { wake_at: 1000 });
    await s.insert(r);
    await expect(s.insert(rec('a', 'f', 'running', 1))).rejects.toThrow(/already exists/);
    const { wake_at: _, ...rest } = r;
    const done: ExecutionRecord = {
      ...rest,
      status: 'success',
      output: { ok: true },
      finished_at: '2025-01-01T00:00:09.000Z',
      updated_at: '2025-01-01T00:00:09.000Z',
      steps: [{ key: 's', id: 's', type: 'set', status: 'success', output: 1, attempt: 1, started_at: r.created_at, ms: 1 }],
    };
    await s.update(done);
    expect(await s.get('a')).toStrictEqual(done);
    // update of an unknown record stores it, as the memory store does.
    await s.update(rec('new', 'f', 'running', 2));
    expect((await s.get('new'))?.status).toBe('running');
    expect(await s.get('zzz')).toBeUndefined();
  });

  it('update leaves the columns fixed at insert (flow, parent, flow version, created_at) as inserted: their indexes are not rewritten', async () => {
    const s = store();
    const r = rec('fixed', 'f', 'running', 0, { parent_id: 'p-1', flow_version: 'v1' });
    await s.insert(r);
    await s.update({
      ...r,
      flow: 'other',
      parent_id: 'p-2',
      flow_version: 'v2',
      created_at: '2030-01-01T00:00:00.000Z',
      status: 'success',
      output: 7,
      finished_at: '2025-01-01T00:00:09.000Z',
      updated_at: '2025-01-01T00:00:09.000Z',
    });
    expect(await s.get('fixed')).toStrictEqual({
      ...r,
      status: 'success',
      output: 7,
      finished_at: '2025-01-01T00:00:09.000Z',
      updated_at: '2025-01-01T00:00:09.000Z',
    });
    // A row not there is inserted whole, those columns included.
    const absent = rec('absent', 'g', 'running', 3, { parent_id: 'p-3', flow_version: 'v3' });
    await s.update(absent);
    expect(await s.get('absent')).toStrictEqual(absent);
  });

  it('lists newest first with limit (default 20) and flow/status filters; same-millisecond records newest-inserted first', async () => {
    const s = store();
    await s.insert(rec('b', 'intake', 'failed', 2000));
    await s.insert(rec('a', 'intake', 'success', 1000));
    await s.insert(rec('d', 'agent', 'success', 4000));
    await s.insert(rec('c', 'intake', 'success', 3000));
    const ids = async (o?: Parameters<DbExecutionStore['list']>[0]) => (await s.list(o)).map((r) => r.id);
    expect(await ids()).toEqual(['d', 'c', 'b', 'a']);
    expect(await ids({ limit: 2 })).toEqual(['d', 'c']);
    expect(await ids({ flow: 'intake' })).toEqual(['c', 'b', 'a']);
    expect(await ids({ status: 'success' })).toEqual(['d', 'c', 'a']);
    expect(await ids({ flow: 'intake', status: 'success', limit: 1 })).toEqual(['c']);
    expect(await ids({ flow: 'nope' })).toEqual([]);
    for (const id of ['same1', 'same2', 'same3']) await s.insert(rec(id, 'tie', 'success', 5000));
    expect(await ids({ flow: 'tie' })).toEqual(['same3', 'same2', 'same1']);
    for (let i = 0; i < 25; i++) await s.insert(rec(`x${i}`, 'bulk', 'success', 10_000 + i));
    const page = await s.list();
    expect(page).toHaveLength(20);
    expect(page[0]!.id).toBe('x24');
  });

  it('listSummaries gives what list gives, summarised (every filter, a drive with journal entries), without reading the payloads', async () => {
    const s = store();
    const step = { type: 'set', status: 'success' as const, attempt: 1, started_at: new Date(BASE).toISOString(), ms: 1 };
    await s.insert({ ...fullRecord(), flow_version: 'ab12cd', concurrency_key: 'k-5511987654321', replaced_by: 'newer' });
    await s.insert(rec('b', 'intake', 'failed', 2000, { error: { name: 'StepFailedError', message: 'boom', step: 'x' } }));
    await s.insert(
      rec('c', 'intake', 'success', 3000, { steps: [{ ...step, key: 's1', id: 's1' }], finished_at: new Date(BASE + 3500).toISOString() }),
    );
    await s.insert(rec('live', 'agent', 'running', 4000, { steps: [{ ...step, key: 'a', id: 'a' }] }));
    // A drive in progress: one step rewritten, two appended, by its journal.
    await s.appendJournal({
      id: 'live',
      at: new Date(BASE + 4100).toISOString(),
      steps: [
        { ...step, key: 'a', id: 'a', ms: 9 },
        { ...step, key: 'b', id: 'b' },
      ],
    });
    await s.appendJournal({ id: 'live', at: new Date(BASE + 4200).toISOString(), steps: [{ ...step, key: 'c', id: 'c' }] });
    const options = [
      undefined,
      { limit: 2 },
      { flow: 'intake' },
      { status: 'running' as const },
      { version: 'ab1' },
      { containing: ['5511987654321'] },
    ];
    for (const o of options) expect(await s.listSummaries(o), JSON.stringify(o)).toStrictEqual((await s.list(o)).map(summaryOfRecord));
    const live = (await s.listSummaries({ flow: 'agent' }))[0]!;
    expect([live.step_count, live.updated_at]).toEqual([3, new Date(BASE + 4200).toISOString()]);
    expect((await s.listSummaries({ flow: 'intake' })).map((x) => x.step_count)).toEqual([1, 0, 2]);
    // Payloads are not read: a record whose payload columns do not parse is still summarised.
    await t.current.db.knex('executions').where({ id: 'c' }).update({ trigger: '{not json', vars: '{', outbound: '[' });
    await expect(s.list({ flow: 'intake' })).rejects.toThrow();
    expect((await s.listSummaries({ flow: 'intake' })).map((x) => x.id)).toEqual(['c', 'b', fullRecord().id]);
  });

  it('listWaiting gives every waiting execution with its wake time (null: woken by another execution)', async () => {
    const s = store();
    await s.insert(rec('a', 'f', 'waiting', 0, { wake_at: 1_735_689_600_123 }));
    await s.insert(rec('b', 'f', 'waiting', 1));
    await s.insert(rec('c', 'f', 'success', 2));
    expect((await s.listWaiting()).sort((x, y) => x.id.localeCompare(y.id))).toEqual([
      { id: 'a', wake_at: 1_735_689_600_123 },
      { id: 'b', wake_at: null },
    ]);
  });

  it('prune deletes finished executions older than the retention, keeping recent, unfinished ones and children of waiting parents', async () => {
    await expectPruneContract(store());
  });

  it('flow versions: stored once, read back, listed by prefix, pruned when no unfinished execution runs on them and unused for a day', async () => {
    await expectFlowVersionsContract(store());
  });

  it('resolveId accepts a full id or a unique prefix', async () => {
    await expectResolveIdContract(store());
  });
});

describe('retentionDays (LEADFLOW_EXECUTIONS_RETAIN_DAYS, what `serve` prunes with)', () => {
  it('reads the variable; unset, blank, negative or not a number is the default 30 (never 0 by accident)', () => {
    expect(retentionDays({})).toBe(30);
    expect(retentionDays({ LEADFLOW_EXECUTIONS_RETAIN_DAYS: '7' })).toBe(7);
    expect(retentionDays({ LEADFLOW_EXECUTIONS_RETAIN_DAYS: ' 0.5 ' })).toBe(0.5);
    expect(retentionDays({ LEADFLOW_EXECUTIONS_RETAIN_DAYS: '0' })).toBe(0);
    for (const bad of ['', '  ', '-1', 'abc', 'Infinity']) expect(retentionDays({ LEADFLOW_EXECUTIONS_RETAIN_DAYS: bad }), bad).toBe(30);
  });
});
