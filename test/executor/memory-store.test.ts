import { describe, expect, it } from 'vitest';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import {
  expectCancelById,
  expectCancelByKeyRemembersWho,
  expectContainingFilter,
  expectFlowVersionsContract,
  expectJournalContract,
  expectPruneContract,
  expectResolveIdContract,
  storeRecord,
  RECORDS_BASE_MS,
} from '../helpers/execution-records.js';
import { summaryOfRecord } from '../../engine/store/execution-summary.js';

const rec = storeRecord;

describe('MemoryExecutionStore', () => {
  it('lists newest first, honours limit (default 20) and filters by flow and status', async () => {
    const store = new MemoryExecutionStore();
    // Inserted out of creation order on purpose.
    await store.insert(rec('b', 'intake', 'failed', 2000));
    await store.insert(rec('a', 'intake', 'success', 1000));
    await store.insert(rec('d', 'agent', 'success', 4000));
    await store.insert(rec('c', 'intake', 'success', 3000));

    expect((await store.list()).map((r) => r.id)).toEqual(['d', 'c', 'b', 'a']);
    expect((await store.list({ limit: 2 })).map((r) => r.id)).toEqual(['d', 'c']);
    expect((await store.list({ flow: 'intake' })).map((r) => r.id)).toEqual(['c', 'b', 'a']);
    expect((await store.list({ status: 'success' })).map((r) => r.id)).toEqual(['d', 'c', 'a']);
    expect((await store.list({ flow: 'intake', status: 'success', limit: 1 })).map((r) => r.id)).toEqual(['c']);
    expect(await store.list({ flow: 'nope' })).toEqual([]);

    for (let i = 0; i < 25; i++) await store.insert(rec(`x${i}`, 'bulk', 'success', 10_000 + i));
    const page = await store.list();
    expect(page).toHaveLength(20);
    expect(page[0]!.id).toBe('x24');
  });

  it('lists only the records whose trigger, vars or key contain one of the texts, newest first, within the limit', async () => {
    await expectContainingFilter(new MemoryExecutionStore());
  });

  it('cancelByKey remembers who cancelled: the same canceller gets the same answer again', async () => {
    await expectCancelByKeyRemembersWho(new MemoryExecutionStore());
  });

  it('journal: a drive saved entry by entry reads back as the live record; a cancel is kept; the whole write replaces it', async () => {
    await expectJournalContract(new MemoryExecutionStore());
  });

  it('cancels one running or waiting execution by id; leaves the others alone; a claim never takes it after', async () => {
    await expectCancelById(new MemoryExecutionStore());
  });

  // The expectations the database store's tests share (test/helpers/execution-records.ts).
  it.each([
    [
      'prune deletes finished executions older than the retention, keeping recent, unfinished ones and children of waiting parents',
      expectPruneContract,
    ],
    [
      'flow versions: stored once, read back, listed by prefix, pruned when no unfinished execution runs on them and unused for a day',
      expectFlowVersionsContract,
    ],
    ['resolveId accepts a full id or a unique prefix', expectResolveIdContract],
  ])('%s', async (_title, expectContract) => {
    await expectContract(new MemoryExecutionStore());
  });

  it('listSummaries gives what list gives, summarised', async () => {
    const s = new MemoryExecutionStore();
    await s.insert(storeRecord('a', 'f', 'success', 0, { steps: [], finished_at: new Date(RECORDS_BASE_MS).toISOString() }));
    await s.insert(storeRecord('b', 'g', 'waiting', 1, { wake_at: 5, parent_id: 'a' }));
    for (const o of [{}, { flow: 'g' }, { status: 'success' as const }, { limit: 1 }])
      expect(await s.listSummaries(o), JSON.stringify(o)).toStrictEqual((await s.list(o)).map(summaryOfRecord));
  });

  it('lists records created in the same millisecond newest-inserted first', async () => {
    const store = new MemoryExecutionStore();
    await store.insert(rec('first', 'f', 'success', 5));
    await store.insert(rec('second', 'f', 'success', 5));
    await store.insert(rec('third', 'f', 'success', 5));
    expect((await store.list()).map((r) => r.id)).toEqual(['third', 'second', 'first']);
  });

  it('hands out copies: mutating a returned or inserted record does not change the store', async () => {
    const store = new MemoryExecutionStore();
    const original = rec('a', 'f', 'running', 0);
    await store.insert(original);
    original.status = 'failed';
    (original.trigger.body as { n: number }).n = 99;
    expect((await store.get('a'))?.status).toBe('running');

    const got = (await store.get('a'))!;
    got.status = 'success';
    got.steps.push({ key: 'x', id: 'x', type: 'set', status: 'success', attempt: 1, started_at: got.created_at, ms: 0 });
    (got.trigger.body as { n: number }).n = 42;
    const listed = (await store.list())[0]!;
    listed.vars.changed = true;

    const again = (await store.get('a'))!;
    expect(again.status).toBe('running');
    expect(again.steps).toEqual([]);
    expect(again.trigger).toEqual({ body: { n: 1 } });
    expect(again.vars).toEqual({});

    const updated = { ...again, status: 'waiting' as const, wake_at: 123 };
    await store.update(updated);
    updated.wake_at = 456;
    expect((await store.get('a'))?.wake_at).toBe(123);
  });

  it('refuses a duplicate insert, returns undefined for an unknown id, and lists waits', async () => {
    const store = new MemoryExecutionStore();
    await store.insert(rec('a', 'f', 'waiting', 0, { wake_at: 1000 }));
    await store.insert(rec('b', 'f', 'waiting', 1));
    await store.insert(rec('c', 'f', 'success', 2));
    await expect(store.insert(rec('a', 'f', 'running', 3))).rejects.toThrow(/already exists/);
    expect(await store.get('zzz')).toBeUndefined();
    expect((await store.listWaiting()).sort((x, y) => x.id.localeCompare(y.id))).toEqual([
      { id: 'a', wake_at: 1000 },
      { id: 'b', wake_at: null },
    ]);
  });
});
