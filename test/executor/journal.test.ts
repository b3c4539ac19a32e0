// The execution journal (engine/store/journal.ts) as the run uses it: each save appends only what
// changed since the previous one, a read-only or repeatable step is stored with the next step that
// is neither, the record read back equals the run's at every save, and the drive's end writes it whole.
import { Type } from '@sinclair/typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeRegistry } from '../../engine/registry.js';
import type { JournalEntry } from '../../engine/store/journal.js';
import { applyJournal, JournalCursor } from '../../engine/store/journal.js';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { defineNode, type ExecutionRecord, type NodeDefinition } from '../../engine/types.js';
import dbUpdate from '../../nodes/data/db-update.js';
import { coreNodes } from '../../nodes/index.js';
import { storeRecord } from '../helpers/execution-records.js';
import { makeEngine, shutdownEngines, waitForEnd } from '../helpers/run-flow.js';

afterEach(async () => {
  await shutdownEngines();
});

describe('JournalCursor', () => {
  it('an entry holds only the steps new or still open since the previous one, and the parts that changed', () => {
    const live = storeRecord('x', 'f', 'running', 0, { vars: { a: 1 } });
    const cursor = new JournalCursor(live);
    const step = (key: string, status: 'running' | 'success') => ({
      key,
      id: key,
      type: 'set',
      status,
      attempt: 1,
      started_at: live.created_at,
      ms: 0,
    });
    live.steps.push(step('one', 'success'), step('loop', 'running'));
    const first = cursor.next(live, live.created_at);
    expect(first.steps.map((s) => s.key)).toEqual(['one', 'loop']);
    // An open step is copied: the run still changes it.
    expect(first.steps[1]).not.toBe(live.steps[1]);
    (live.steps[1] as { status: string }).status = 'error';
    expect(first.steps[1]!.status).toBe('running');
    (live.steps[1] as { status: string }).status = 'running';
    expect(first.vars).toBeUndefined();

    live.steps.push(step('two', 'success'));
    live.vars = { a: 2 };
    const second = cursor.next(live, live.created_at);
    // `one` was saved finished: not sent again; `loop` is still open: sent again.
    expect(second.steps.map((s) => s.key)).toEqual(['loop', 'two']);
    expect(second.vars).toEqual({ a: 2 });

    live.steps[1] = step('loop', 'success');
    live.outbound.push({ step: 'two', kind: 'http', performed: true } as never);
    const third = cursor.next(live, live.created_at);
    expect(third.steps.map((s) => s.key)).toEqual(['loop']);
    expect(third.vars).toBeUndefined();
    expect(third.outbound).toEqual({ from: 0, items: [{ step: 'two', kind: 'http', performed: true }] });
    expect(cursor.next(live, live.created_at).steps).toEqual([]);

    // The entries are copies of what the run may still change (the vars); a finished step record,
    // which the run never changes, is shared.
    live.vars.a = 3;
    expect(second.vars).toEqual({ a: 2 });
    live.vars.a = 2;
    expect(first.steps[0]).toBe(live.steps[0]);
    // Applied in order to the record as it was, they give the record as it is.
    const base = storeRecord('x', 'f', 'running', 0, { vars: { a: 1 } });
    const rebuilt = applyJournal(base, [first, second, third]);
    expect(rebuilt.steps.map((s) => [s.key, s.status])).toEqual([
      ['one', 'success'],
      ['loop', 'success'],
      ['two', 'success'],
    ]);
    expect(rebuilt.vars).toEqual({ a: 2 });
    expect(rebuilt.outbound).toHaveLength(1);
    // Applying an entry twice changes nothing more (a tail says where its items go).
    expect(applyJournal(structuredClone(rebuilt), [third])).toStrictEqual(rebuilt);
  });
});

/** A store that tells what the run wrote: each journal entry, and the record read back after it. */
class RecordingStore extends MemoryExecutionStore {
  readonly entries: JournalEntry[] = [];
  readonly readBack: ExecutionRecord[] = [];
  override async appendJournal(entry: JournalEntry) {
    this.entries.push(structuredClone(entry));
    const status = await super.appendJournal(entry);
    this.readBack.push((await this.get(entry.id))!);
    return status;
  }
}

function effectNode(type: string, extra: { repeatable?: boolean | ((params: { n: number }) => boolean) } = {}): NodeDefinition {
  return defineNode({
    type,
    description: `A node with an effect (${type}).`,
    params: Type.Object({ n: Type.Integer() }),
    output: { description: '{n}' },
    examples: [],
    async run(params) {
      return { n: params.n };
    },
    ...extra,
  }) as unknown as NodeDefinition;
}

describe('repeatable nodes', () => {
  it('db.update is repeatable only when `where` names none of the columns it writes (the same rows match again)', () => {
    const check = dbUpdate.repeatable as (params: unknown) => boolean;
    expect(check({ table: 'leads', where: { id: 3 }, values: { ultima_mensagem: 'oi' } })).toBe(true);
    expect(check({ table: 'leads', where: { id: 3, transferido: false }, values: { transferido: true } })).toBe(false);
  });
});

describe('the run saves through the journal', () => {
  it('a save after each step with an effect; read-only and repeatable steps go with the next save; the end writes the whole record', async () => {
    const registry = new NodeRegistry([
      ...coreNodes,
      effectNode('test.effect'),
      effectNode('test.repeatable', { repeatable: true }),
      effectNode('test.repeatable-when', { repeatable: (params: { n: number }) => params.n > 10 }),
    ]);
    const store = new RecordingStore();
    const engine = makeEngine(
      `
name: journaled
steps:
  - { id: a, type: set, params: { values: { x: 1 } } }
  - { id: b, type: test.repeatable, params: { n: 1 } }
  - { id: c, type: test.effect, params: { n: 2 } }
  - { id: d, type: test.repeatable-when, params: { n: 20 } }
  - { id: e, type: test.repeatable-when, params: { n: 3 } }
  - { id: f, type: set, params: { values: { y: 2 } } }
`,
      { registry, store },
    );
    const handle = await engine.start('journaled', { body: {} });
    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('success');
    // Saved after c (with a and b) and after e (with d); f goes with the end.
    expect(store.entries.map((e) => e.steps.map((s) => s.key))).toEqual([
      ['a', 'b', 'c'],
      ['d', 'e'],
    ]);
    // Each read back is the record as the run had it then: the steps so far, in order.
    expect(store.readBack.map((r) => r.steps.map((s) => s.key))).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'c', 'd', 'e'],
    ]);
    expect((await store.get(handle.id))!.steps.map((s) => s.key)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });
});
