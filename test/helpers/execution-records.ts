// A plain execution record for store tests: no steps, a small trigger body, created `createdMs`
// after 2025-01-01T00:00:00Z (so order by creation is controlled), `extra` over it; and the
// expectations every store shares (`expectContainingFilter`, `expectJournalContract`).
import { expect } from 'vitest';
import type { ExecutionStore } from '../../engine/store/execution-store.js';
import { JournalCursor } from '../../engine/store/journal.js';
import type { ExecutionRecord, ExecutionStatus, StepRecord } from '../../engine/types.js';

/** 2025-01-01T00:00:00Z, ms since epoch: the time records made by `storeRecord` count from. */
export const RECORDS_BASE_MS = Date.UTC(2025, 0, 1);

/** A record `id` of `flow` in `status`, created and updated RECORDS_BASE_MS + `createdMs`. */
export function storeRecord(
  id: string,
  flow: string,
  status: ExecutionStatus,
  createdMs: number,
  extra: Partial<ExecutionRecord> = {},
): ExecutionRecord {
  const at = new Date(RECORDS_BASE_MS + createdMs).toISOString();
  return {
    id,
    flow,
    status,
    trigger: { body: { n: 1 } },
    vars: {},
    steps: [],
    outbound: [],
    dry_run: false,
    created_at: at,
    updated_at: at,
    ...extra,
  };
}

/**
 * The `containing` filter of ExecutionStore.list, the same on every store: records whose trigger,
 * vars or key hold one of the texts, newest first, within the limit; texts taken literally.
 */
export async function expectContainingFilter(s: ExecutionStore): Promise<void> {
  await s.insert(
    storeRecord('agent-new', 'agent', 'success', 3, { trigger: { body: { message: { chatid: '551187654321@s.whatsapp.net' } } } }),
  );
  await s.insert(storeRecord('followup', 'followup', 'waiting', 2, { concurrency_key: '1:5511987654321' }));
  await s.insert(storeRecord('action', 'lead-action', 'success', 1, { vars: { lead: { remotejid: '5511987654321' } } }));
  await s.insert(
    storeRecord('other', 'agent', 'success', 4, { trigger: { body: { message: { chatid: '5511900001111@s.whatsapp.net' } } } }),
  );
  await s.insert(storeRecord('odd', 'agent', 'success', 5, { trigger: { body: { text: '55%1_' } } }));
  const ids = async (containing: string[], limit?: number) => (await s.list({ containing, ...(limit ? { limit } : {}) })).map((r) => r.id);
  expect(await ids(['5511987654321', '551187654321'])).toEqual(['agent-new', 'followup', 'action']);
  expect(await ids(['5511987654321', '551187654321'], 2)).toEqual(['agent-new', 'followup']);
  expect(await ids(['5511987654321'])).toEqual(['followup', 'action']);
  // Taken literally: LIKE's wildcards match only themselves.
  expect(await ids(['55%1'])).toEqual(['odd']);
  expect(await ids(['5_11'])).toEqual([]);
  expect(await ids(['', 'nowhere'])).toEqual([]);
  expect((await ids([])).length).toBe(5);
}

/**
 * ExecutionStore.cancelById, the same on every store: a waiting and a running execution are
 * cancelled (status, stop reason, finished_at, no wake time), resolving to the status they had; a
 * final one, a cancelled one and an unknown id are left alone (undefined); a claim never takes a
 * cancelled one, and a write of it by its driver keeps the cancellation.
 */
export async function expectCancelById(s: ExecutionStore): Promise<void> {
  const wakeAt = Date.now() + 60_000;
  await s.insert(storeRecord('waits', 'followup', 'waiting', 1, { wake_at: wakeAt }));
  await s.insert(storeRecord('runs', 'agent', 'running', 2));
  await s.insert(storeRecord('done', 'agent', 'success', 3, { finished_at: new Date(RECORDS_BASE_MS + 3).toISOString() }));
  expect(await s.cancelById('waits', 'not needed any more')).toBe('waiting');
  expect(await s.cancelById('runs', 'stop it')).toBe('running');
  expect(await s.cancelById('done', 'late')).toBeUndefined();
  expect(await s.cancelById('waits', 'twice')).toBeUndefined();
  expect(await s.cancelById('nobody', 'x')).toBeUndefined();

  const waits = (await s.get('waits'))!;
  expect(waits).toMatchObject({ status: 'cancelled', stop_reason: 'not needed any more' });
  expect(waits.wake_at).toBeUndefined();
  expect(Date.parse(waits.finished_at!)).toBeGreaterThan(Date.now() - 60_000);
  expect(waits.replaced_by).toBeUndefined();
  expect((await s.get('runs'))!).toMatchObject({ status: 'cancelled', stop_reason: 'stop it' });
  expect((await s.get('done'))!).toMatchObject({ status: 'success' });
  expect((await s.get('done'))!.stop_reason).toBeUndefined();
  expect((await s.listWaiting()).map((w) => w.id)).not.toContain('waits');

  if (s.claim) expect(await s.claim('waits', { owner: 'me', until: Date.now() + 30_000 })).toEqual({});
  // The driver of the running one writes it again (a step it finished): its cancellation stays.
  const runs = (await s.get('runs'))!;
  const step = { key: 's', id: 's', type: 'set', status: 'success' as const, attempt: 1, started_at: runs.created_at, ms: 1 };
  await s.update({ ...runs, status: 'waiting', wake_at: wakeAt, steps: [step] });
  const written = (await s.get('runs'))!;
  expect(written).toMatchObject({ status: 'cancelled', stop_reason: 'stop it' });
  expect(written.wake_at).toBeUndefined();
  expect(written.steps.map((x) => x.id)).toEqual(['s']);
}

/**
 * The journal contract of a store with `appendJournal` (engine/store/journal.ts), the same on every
 * store: a drive in progress saved entry by entry reads back exactly as the live record, through get
 * and list (and `containing` finds what only an entry holds); a cancellation stored meanwhile is kept
 * and reported; the whole write at the drive's end replaces everything; an unknown id appends nothing.
 */
export async function expectJournalContract(store: ExecutionStore): Promise<void> {
  const append = store.appendJournal!.bind(store);
  const live = storeRecord('j1', 'agent', 'running', 10, { vars: { a: 1 } });
  await store.insert(structuredClone(live));
  const cursor = new JournalCursor(live);
  const at = (ms: number) => new Date(RECORDS_BASE_MS + ms).toISOString();
  const save = async (ms: number) => {
    live.updated_at = at(ms);
    return append(cursor.next(live, at(ms)));
  };
  const step = (key: string, status: StepRecord['status'], extra: Partial<StepRecord> = {}): StepRecord => ({
    key,
    id: key.split('/').at(-1)!,
    type: 'set',
    status,
    attempt: 1,
    started_at: at(11),
    ms: 1,
    ...extra,
  });

  // A control step open while its child runs; a child done; vars, outbound and a started flow changed.
  live.steps.push(step('lock', 'running'), step('remember', 'success', { output: { id: 7 } }));
  live.vars = { a: 1, lead: { nome: 'Somente-no-diario' } };
  live.outbound.push({ step: 'remember', kind: 'http', method: 'POST', url: 'http://x', performed: true } as never);
  live.started_flows = [{ step: 'remember', flow: 'followup', input: {}, execution_id: 'f1', performed: true } as never];
  expect(await save(20)).toBe('running');
  expect(await store.get('j1')).toStrictEqual(live);

  // The open step finishes, a new one with params, a response, a cancel recorded, one more outbound.
  live.steps[0] = { ...live.steps[0]!, status: 'success', output: null };
  live.steps.push(step('reply', 'success', { params: { text: 'oi' }, output: 'oi' }));
  live.response = { status: 200, body: { status: 'queued' } };
  live.cancelled_flows = [{ step: 'reply', flow: 'followup', key: 'k', reason: 'r', cancelled: null, performed: true } as never];
  live.outbound.push({ step: 'reply', kind: 'http', method: 'POST', url: 'http://y', performed: true } as never);
  expect(await save(30)).toBe('running');
  expect(await store.get('j1')).toStrictEqual(live);
  expect((await store.list({ flow: 'agent' }))[0]).toStrictEqual(live);
  expect((await store.list({ containing: ['Somente-no-diario'] })).map((r) => r.id)).toEqual(['j1']);

  // Cancelled meanwhile: the next entry is kept, so is the cancellation, and the append says so.
  expect(await store.cancelById('j1', 'stop it')).toBe('running');
  live.steps.push(step('after', 'success', { output: 1 }));
  expect(await save(40)).toBe('cancelled');
  const cancelled = (await store.get('j1'))!;
  expect(cancelled.status).toBe('cancelled');
  expect(cancelled.stop_reason).toBe('stop it');
  expect(cancelled.steps.map((s) => s.key)).toEqual(['lock', 'remember', 'reply', 'after']);

  // The drive's end: the whole record replaces row and entries (its cancellation kept).
  const final: ExecutionRecord = { ...structuredClone(live), steps: [step('only', 'success', { output: 2 })], vars: { end: true } };
  await store.update(final);
  const back = (await store.get('j1'))!;
  expect(back.steps.map((s) => s.key)).toEqual(['only']);
  expect(back.vars).toEqual({ end: true });
  expect(back.status).toBe('cancelled');

  expect(await append({ id: 'nope', at: at(50), steps: [] })).toBeUndefined();
  expect(await store.get('nope')).toBeUndefined();
}

/**
 * cancelByKey with `by` (a flow.cancel step run again after a crash gives the same answer), the same
 * on every store: the ids `by` cancelled under the flow and key when nothing is left unfinished,
 * nothing for another canceller, and a newer execution under the key is cancelled, not the old answer.
 */
export async function expectCancelByKeyRemembersWho(store: ExecutionStore): Promise<void> {
  const cancel = store.cancelByKey!.bind(store);
  await store.insert(storeRecord('w1', 'followup', 'waiting', 1, { concurrency_key: 'k', wake_at: 5 }));
  expect(await cancel('followup', 'k', 'the lead answered', 'agent-1')).toEqual(['w1']);
  expect((await store.get('w1'))?.status).toBe('cancelled');
  expect(await cancel('followup', 'k', 'the lead answered', 'agent-1')).toEqual(['w1']);
  expect(await cancel('followup', 'k', 'the lead answered', 'agent-2')).toEqual([]);
  expect(await cancel('followup', 'k', 'the lead answered')).toEqual([]);
  expect(await cancel('followup', 'other', 'the lead answered', 'agent-1')).toEqual([]);
  await store.insert(storeRecord('w2', 'followup', 'waiting', 2, { concurrency_key: 'k', wake_at: 5 }));
  expect(await cancel('followup', 'k', 'again', 'agent-1')).toEqual(['w2']);
}

/** prune deletes finished executions older than the retention, keeping recent, unfinished ones and children of waiting parents: the same on every store (ExecutionStore.prune). */
export async function expectPruneContract(s: ExecutionStore): Promise<void> {
  const BASE = RECORDS_BASE_MS;
  const rec = storeRecord;
  const now = BASE + 30 * 86_400_000;
  const finishedAt = (daysAgo: number) => ({
    finished_at: new Date(now - daysAgo * 86_400_000).toISOString(),
    updated_at: new Date(now - daysAgo * 86_400_000).toISOString(),
  });
  await s.insert(rec('old-success', 'f', 'success', 0, finishedAt(10)));
  await s.insert(rec('old-failed', 'f', 'failed', 0, finishedAt(8)));
  await s.insert(rec('old-stopped', 'f', 'stopped', 0, finishedAt(7.5)));
  await s.insert(rec('recent', 'f', 'success', 0, finishedAt(6)));
  await s.insert(rec('old-waiting', 'f', 'waiting', 0, { updated_at: new Date(now - 20 * 86_400_000).toISOString() }));
  await s.insert(rec('parent', 'f', 'waiting', 0));
  await s.insert(rec('child-of-waiting', 'g', 'success', 0, { ...finishedAt(9), parent_id: 'parent' }));
  await s.insert(rec('child-of-finished', 'g', 'success', 0, { ...finishedAt(9), parent_id: 'old-success' }));
  expect(await s.prune(7, now)).toBe(4);
  expect((await s.list({ limit: 100 })).map((r) => r.id).sort()).toEqual(['child-of-waiting', 'old-waiting', 'parent', 'recent']);
  expect(await s.prune(7, now)).toBe(0);
  await expect(s.prune(-1)).rejects.toThrow(/olderThanDays/);
}

/** flow versions: stored once, read back, listed by prefix, pruned when no unfinished execution runs on them and unused for a day: the same on every store. */
export async function expectFlowVersionsContract(s: ExecutionStore): Promise<void> {
  const BASE = RECORDS_BASE_MS;
  const rec = storeRecord;
  const [v1, v2, v3] = ['1'.repeat(64), '2'.repeat(64), '3'.repeat(64)];
  for (const version of [v1, v2, v3]) await s.saveFlowVersion({ flow: 'f', version, source: `{"text":"${version.slice(0, 4)}"}` });
  await s.saveFlowVersion({ flow: 'f', version: v1, source: 'ignored: same version, same source' });
  expect(await s.getFlowVersion('f', v1)).toBe('{"text":"1111"}');
  expect(await s.getFlowVersion('g', v1)).toBeUndefined();
  await s.insert(rec('waits-on-v1', 'f', 'waiting', 0, { flow_version: v1 }));
  await s.insert(rec('ended-on-v2', 'f', 'success', 1, { flow_version: v2, finished_at: new Date(BASE + 1).toISOString() }));
  await s.insert(rec('before-versions', 'f', 'waiting', 2));
  expect((await s.get('waits-on-v1'))!.flow_version).toBe(v1);
  expect((await s.get('before-versions'))!.flow_version).toBeUndefined();
  expect((await s.list({ version: '111' })).map((r) => r.id)).toEqual(['waits-on-v1']);
  expect((await s.list({ version: v2 })).map((r) => r.id)).toEqual(['ended-on-v2']);

  // Used within the day (a process may be about to start an execution on it): kept.
  expect(await s.pruneFlowVersions(Date.now())).toBe(0);
  // A day later: the versions nobody runs on go (v2's execution has ended), v1 stays.
  await s.prune(30_000, Date.now() + 2 * 86_400_000);
  expect(await s.getFlowVersion('f', v1)).toBe('{"text":"1111"}');
  expect(await s.getFlowVersion('f', v2)).toBeUndefined();
  expect(await s.getFlowVersion('f', v3)).toBeUndefined();
  // Once its execution has ended, v1 goes too.
  await s.update({ ...(await s.get('waits-on-v1'))!, status: 'success' });
  expect(await s.pruneFlowVersions(Date.now() + 2 * 86_400_000)).toBe(1);
}

/** resolveId accepts a full id or a unique prefix: the same on every store (ExecutionStore.resolveId). */
export async function expectResolveIdContract(s: ExecutionStore): Promise<void> {
  const rec = storeRecord;
  await s.insert(rec('3f2a0000-aaaa', 'f', 'success', 0));
  await s.insert(rec('3f2b0000-bbbb', 'f', 'success', 1));
  expect(await s.resolveId('3f2a')).toBe('3f2a0000-aaaa');
  expect(await s.resolveId('3f2b0000-bbbb')).toBe('3f2b0000-bbbb');
  expect(await s.resolveId('3f2')).toBeUndefined();
  expect(await s.resolveId('zz')).toBeUndefined();
  expect(await s.resolveId("3f2a' or 1=1 --")).toBeUndefined();
}
