import { afterEach, describe, expect, it } from 'vitest';
import { makeEngine, runFlow, shutdownEngines, stepRecord, waitForEnd } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

describe('stop', () => {
  it('ends the execution as stopped with its reason; later steps do not run', async () => {
    const { record, handle } = await runFlow(
      `
name: stop-flow
steps:
  - id: first
    type: set
    params: { values: { a: 1 } }
  - id: gate
    type: if
    params: { condition: "{{ trigger.body.stop }}" }
    then:
      - id: halt
        type: stop
        params: { reason: "not a lead: {{ trigger.body.who }}" }
  - id: last
    type: set
    params: { values: { c: 1 } }
`,
      { body: { stop: true, who: 'bot' } },
    );
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('not a lead: bot');
    expect(record.error).toBeUndefined();
    expect(record.finished_at).toBeDefined();
    expect(record.steps.map((s) => [s.id, s.status])).toEqual([
      ['first', 'success'],
      ['gate', 'stopped'],
      ['halt', 'stopped'],
    ]);
    expect(stepRecord(record, 'halt').output).toEqual({ reason: 'not a lead: bot' });
    expect(await handle.responded).toBeUndefined();
  });

  it('does nothing when its branch is not taken', async () => {
    const { record } = await runFlow(
      `
name: stop-skipped
steps:
  - id: gate
    type: if
    params: { condition: "{{ trigger.body.stop }}" }
    then:
      - id: halt
        type: stop
  - id: last
    type: set
    params: { values: { c: 1 } }
`,
      { body: { stop: false } },
    );
    expect(record.status).toBe('success');
    expect(record.stop_reason).toBeUndefined();
    expect(stepRecord(record, 'last').output).toEqual({ c: 1 });
  });

  it('uses the default reason "stopped"', async () => {
    const { record } = await runFlow(`
name: stop-default
steps:
  - id: halt
    type: stop
`);
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('stopped');
  });

  it('a stop inside a foreach iteration ends the whole execution', async () => {
    const { record } = await runFlow(`
name: stop-loop
steps:
  - id: each
    type: foreach
    params: { items: [1, 2, 3] }
    do:
      - id: check
        type: switch
        params: { value: "{{ item }}" }
        cases:
          "2":
            - id: halt
              type: stop
              params: { reason: "item {{ item }}" }
      - id: mark
        type: set
        params: { values: { item: "{{ item }}" } }
  - id: after
    type: set
    params: { values: { ran: true } }
`);
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('item 2');
    const keys = record.steps.map((s) => s.key);
    expect(keys).toContain('each[0]/mark');
    expect(keys).toContain('each[1]/halt');
    expect(keys).not.toContain('each[1]/mark');
    expect(keys.some((k) => k.startsWith('each[2]'))).toBe(false);
    expect(keys).not.toContain('after');
  });

  it('a stop inside a parallel branch ends the whole execution', async () => {
    const { record } = await runFlow(`
name: stop-par
steps:
  - id: both
    type: parallel
    branches:
      a:
        - id: halt
          type: stop
          params: { reason: "enough" }
      b:
        - id: other
          type: set
          params: { values: { ok: true } }
  - id: after
    type: set
    params: { values: { ran: true } }
`);
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('enough');
    expect(stepRecord(record, 'both').status).toBe('stopped');
    expect(record.steps.some((s) => s.id === 'after')).toBe(false);
  });

  it('a stop after a wait ends the resumed execution', async () => {
    const engine = makeEngine(`
name: stop-after-wait
steps:
  - id: pause
    type: wait
    params: { ms: 50 }
  - id: gate
    type: if
    params: { condition: true }
    then:
      - id: halt
        type: stop
        params: { reason: "after the wait" }
  - id: after
    type: set
    params: { values: { ran: true } }
`);
    await engine.startScheduler();
    const handle = await engine.start('stop-after-wait', { body: {} });
    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('after the wait');
    expect(record.steps.some((s) => s.id === 'after')).toBe(false);
  });
});
