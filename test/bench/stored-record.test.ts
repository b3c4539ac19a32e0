// bench/lib/stored-record.ts: what the record floor of bench/ingest.ts writes per message is what
// LeadFlow's database store holds of one execution, its row's JSON and its journal entries.
import { expect, it } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import type { JournalEntry } from '../../engine/store/journal.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { storedRecordOf } from '../../bench/lib/stored-record.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';

function waiting(id: string, text: string): ExecutionRecord {
  const at = new Date().toISOString();
  return {
    id,
    flow: 'agent',
    status: 'waiting',
    trigger: { body: { message: { text } } },
    vars: { lead: { id: 7 } },
    steps: [{ key: 'msg', id: 'msg', type: 'gateway.parse', status: 'success', attempt: 1, started_at: at, ms: 1, output: { text } }],
    outbound: [],
    dry_run: false,
    created_at: at,
    updated_at: at,
    wake_at: Date.now() + 600_000,
  };
}

forEachDatabase('stored record of an execution', (open) => {
  const t = useFreshDatabase(open);

  it("holds the row's JSON and the journal entries of the middle waiting execution of the flow", async () => {
    const store = new DbExecutionStore(t.current.db);
    for (const [id, text] of [
      ['e1', 'first'],
      ['e2', 'second'],
      ['e3', 'third'],
    ] as const)
      await store.insert(waiting(id, text));
    const at = new Date().toISOString();
    const entry: JournalEntry = {
      id: 'e2',
      at,
      steps: [{ key: 'burst', id: 'burst', type: 'debounce', status: 'waiting', attempt: 1, started_at: at, ms: 0, params: { key: 'k' } }],
    };
    await store.appendJournal(entry);

    const stored = await storedRecordOf(t.current.db.knex, 'agent');
    expect(stored?.id).toBe('e2');
    const row = stored!.value.row as Record<string, unknown>;
    expect(row.trigger).toEqual({ body: { message: { text: 'second' } } });
    expect(row.vars).toEqual({ lead: { id: 7 } });
    expect(stored!.value.journal).toEqual([JSON.parse(JSON.stringify(entry))]);
    // Every JSON value read, no scalar column: at least the trigger, the vars, the steps and the entry.
    const least = ['trigger', 'vars'].reduce((n, c) => n + JSON.stringify(row[c]).length, JSON.stringify(entry).length);
    expect(stored!.chars).toBeGreaterThanOrEqual(least);
    expect(Object.values(row).every((v) => v !== null && typeof v === 'object')).toBe(true);
  });

  it('is undefined when the flow has no waiting execution', async () => {
    const store = new DbExecutionStore(t.current.db);
    await store.insert({ ...waiting('done', 'x'), status: 'success', wake_at: undefined });
    expect(await storedRecordOf(t.current.db.knex, 'agent')).toBeUndefined();
    expect(await storedRecordOf(t.current.db.knex, 'other')).toBeUndefined();
  });
});
