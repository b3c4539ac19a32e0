// adapters/db/activity-store.ts: rows written through the INSERT compiled once per row count read
// back as written, on both backends: one row, several with nulls and clipped texts, the same count
// again (the kept statement with other values), and more than one statement's worth (in a transaction).
import { expect, it } from 'vitest';
import { ACTIVITY_TABLE, type ActivityEvent, ActivityStore } from '../../adapters/db/activity-store.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';

const AT = Date.parse('2026-11-28T12:00:00.000Z');

function event(i: number, overrides: Partial<ActivityEvent> = {}): ActivityEvent {
  return {
    at: AT + i,
    kind: 'execution',
    clinica_id: i,
    label: `flow-${i}`,
    outcome: 'success',
    value: i * 10,
    execution_id: `e-${i}`,
    ...overrides,
  };
}

forEachDatabase('activity store inserts', (open) => {
  const t = useFreshDatabase(() => open());

  async function read(): Promise<Array<Record<string, unknown>>> {
    const rows = (await t.current.db.knex(ACTIVITY_TABLE).orderBy('id')) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      at: new Date(r.at as string | Date).toISOString(),
      kind: r.kind,
      clinica_id: r.clinica_id === null ? null : Number(r.clinica_id),
      label: r.label,
      outcome: r.outcome,
      value: r.value === null ? null : Number(r.value),
      value2: r.value2 === null ? null : Number(r.value2),
      execution_id: r.execution_id,
    }));
  }

  const expected = (e: ActivityEvent) => ({
    at: new Date(e.at).toISOString(),
    kind: e.kind,
    clinica_id: e.clinica_id,
    label: e.label ? e.label.slice(0, 200) : null,
    outcome: e.outcome ? e.outcome.slice(0, 32) : null,
    value: typeof e.value === 'number' && e.value >= 0 ? Math.round(e.value) : null,
    value2: typeof e.value2 === 'number' && e.value2 >= 0 ? Math.round(e.value2) : null,
    execution_id: e.execution_id ?? null,
  });

  it('writes each row as given, whatever the number of rows per call', async () => {
    const store = new ActivityStore(t.current.db);
    const calls: ActivityEvent[][] = [
      [event(1)],
      [
        event(2, { clinica_id: null, label: null, value2: 7.6, execution_id: null }),
        event(3, { kind: 'ai_call', label: 'x'.repeat(300), outcome: 'rate_limited', value: -1 }),
        event(4, { kind: 'first_contact', value: Number.NaN }),
      ],
      [event(5, { outcome: 'failed' })],
      Array.from({ length: 150 }, (_, i) => event(100 + i)),
    ];
    for (const events of calls) await store.insert(events);
    expect(await read()).toEqual(calls.flat().map(expected));
  });
});
