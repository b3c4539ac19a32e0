// A start with `deferInsert` (StartOptions; engine/run/run-saves.ts): the record is written by the
// drive's first write. Read-only steps only: one insert, as the drive ended. A step with an effect:
// the record (with the read-only steps before it) is inserted, running, before it starts. A respond
// step's answer is handed on only once the record is stored. A failed insert runs no effect and
// rejects the answer; `stored()` writes the record at once.
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeRegistry } from '../../engine/registry.js';
import type { Lease } from '../../engine/store/execution-store.js';
import type { JournalEntry } from '../../engine/store/journal.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { defineNode, type ExecutionRecord, type NodeDefinition } from '../../engine/types.js';
import { coreNodes } from '../../nodes/index.js';
import { makeEngine, shutdownEngines, waitForEnd } from '../helpers/run-flow.js';
import { slowReadNode } from '../helpers/slow-read-node.js';

afterEach(async () => {
  await shutdownEngines();
});

/** A store that lists its writes (kind and status written) and can refuse inserts. */
class WriteLog extends MemoryExecutionStore {
  readonly writes: string[] = [];
  refuseInserts = false;
  /** The memory store's insertLeased inserts through insert: one write, logged once. */
  private leasing = false;
  override async insert(record: ExecutionRecord): Promise<void> {
    if (this.refuseInserts) throw new Error('database away');
    if (!this.leasing) this.writes.push(`insert ${record.status}`);
    return super.insert(record);
  }
  override async insertLeased(record: ExecutionRecord, lease: Lease): Promise<void> {
    if (this.refuseInserts) throw new Error('database away');
    this.writes.push(`insertLeased ${record.status} ${record.steps.map((s) => s.key).join(',')}`);
    this.leasing = true;
    try {
      return await super.insertLeased(record, lease);
    } finally {
      this.leasing = false;
    }
  }
  override async update(record: ExecutionRecord): Promise<void> {
    this.writes.push(`update ${record.status}`);
    return super.update(record);
  }
  override async appendJournal(entry: JournalEntry) {
    this.writes.push(`append ${entry.steps.map((s) => s.key).join(',')}`);
    return super.appendJournal(entry);
  }
}

/** `test.effect`: an effect that notes, when it runs, what the store holds of its execution and whether the answer went out. */
function effectNode(
  seen: Array<{ stored: string | undefined; answered: boolean }>,
  store: WriteLog,
  answered: () => boolean,
): NodeDefinition {
  return defineNode({
    type: 'test.effect',
    description: 'An effect that notes what it saw.',
    params: Type.Object({}),
    output: { description: '{}' },
    examples: [],
    async run(_params, ctx) {
      seen.push({ stored: (await store.get(ctx.executionId))?.status, answered: answered() });
      return {};
    },
  }) as unknown as NodeDefinition;
}

const READ_ONLY = `
name: lookup
steps:
  - { id: a, type: set, params: { values: { x: 1 } } }
  - { id: answer, type: respond, params: { status: 200, body: { x: '{{ steps.a.x }}' } } }
`;

const WITH_EFFECT = `
name: act
steps:
  - { id: a, type: set, params: { values: { x: 1 } } }
  - { id: answer, type: respond, params: { status: 202, body: { ok: true } } }
  - { id: b, type: set, params: { values: { y: 2 } } }
  - { id: e, type: test.effect, params: {} }
`;

describe('deferInsert', () => {
  it('a drive of read-only steps only is written once, as it ended, and answered after that write', async () => {
    const store = new WriteLog();
    const engine = makeEngine(READ_ONLY, { store });
    const handle = await engine.start('lookup', { body: {} }, { deferInsert: true });
    expect(await store.get(handle.id)).toBeUndefined();
    const answer = await handle.responded;
    expect(answer).toEqual({ status: 200, body: { x: 1 } });
    expect((await store.get(handle.id))?.status).toBe('success');
    const record = await handle.settled;
    expect(record.steps.map((s) => [s.key, s.status])).toEqual([
      ['a', 'success'],
      ['answer', 'success'],
    ]);
    expect(await store.get(handle.id)).toStrictEqual(record);
    expect(store.writes).toEqual(['insert success']);
  });

  it('without it, the same drive is inserted before it runs and written again at its end', async () => {
    const store = new WriteLog();
    const engine = makeEngine(READ_ONLY, { store });
    const handle = await engine.start('lookup', { body: {} });
    await handle.settled;
    expect(store.writes).toEqual(['insertLeased running ', 'update success']);
  });

  it('the record, with the read-only steps before it, is inserted before a step with an effect starts; a held answer goes out then, before that step', async () => {
    const store = new WriteLog();
    const seen: Array<{ stored: string | undefined; answered: boolean }> = [];
    let answered = false;
    const registry = new NodeRegistry([...coreNodes, effectNode(seen, store, () => answered)]);
    const engine = makeEngine(WITH_EFFECT, { store, registry });
    const handle = await engine.start('act', { body: {} }, { deferInsert: true });
    void handle.responded.then(() => {
      answered = true;
    });
    expect(await handle.responded).toEqual({ status: 202, body: { ok: true } });
    const record = await handle.settled;
    expect(record.error).toBeUndefined();
    expect(record.status).toBe('success');
    // The held answer made the record stored before `b` (a step after the answer), so `e` found it.
    expect(store.writes).toEqual(['insertLeased running a,answer', 'append b,e', 'update success']);
    expect(seen).toEqual([{ stored: 'running', answered: true }]);
  });

  it('a failed insert runs no step with an effect, and the answer rejects with its error', async () => {
    const store = new WriteLog();
    store.refuseInserts = true;
    const seen: Array<{ stored: string | undefined; answered: boolean }> = [];
    const registry = new NodeRegistry([...coreNodes, effectNode(seen, store, () => false)]);
    const engine = makeEngine(WITH_EFFECT, { store, registry });
    const handle = await engine.start('act', { body: {} }, { deferInsert: true });
    await expect(handle.responded).rejects.toThrow(/database away/);
    await expect(handle.settled).rejects.toThrow(/database away/);
    expect(seen).toEqual([]);
    expect(await store.get(handle.id)).toBeUndefined();
  });

  it('stored() writes the record now while a read-only step runs; the drive then goes on with the journal', async () => {
    const store = new WriteLog();
    const registry = new NodeRegistry([...coreNodes, slowReadNode]);
    const engine = makeEngine(
      `
name: slow
steps:
  - { id: a, type: set, params: { values: { x: 1 } } }
  - { id: wait, type: test.slow-read, params: { ms: 200 } }
  - { id: answer, type: respond, params: { status: 200, body: {} } }
`,
      { store, registry },
    );
    const handle = await engine.start('slow', { body: {} }, { deferInsert: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await handle.stored!();
    const early = (await store.get(handle.id))!;
    expect(early.status).toBe('running');
    expect(early.steps.map((s) => [s.key, s.status])).toEqual([
      ['a', 'success'],
      ['wait', 'running'],
    ]);
    await handle.settled;
    const record = await waitForEnd(engine, handle.id);
    expect(record.steps.map((s) => [s.key, s.status])).toEqual([
      ['a', 'success'],
      ['wait', 'success'],
      ['answer', 'success'],
    ]);
    expect(store.writes).toEqual(['insertLeased running a,wait', 'update success']);
    // A start that is stored already resolves at once.
    await handle.stored!();
  });

  it('is ignored with a key, a dry run or mocks: those are inserted before their drive', async () => {
    const store = new WriteLog();
    const engine = makeEngine(READ_ONLY, { store });
    await (await engine.start('lookup', { body: {} }, { deferInsert: true, key: 'k' })).settled;
    await (await engine.start('lookup', { body: {} }, { deferInsert: true, dryRun: true })).settled;
    await (await engine.start('lookup', { body: {} }, { deferInsert: true, mocks: { a: { output: { x: 2 } } } })).settled;
    expect(store.writes.filter((w) => w.startsWith('insert'))).toEqual([
      'insertLeased running ',
      'insertLeased running ',
      'insertLeased running ',
    ]);
  });
});
