import { afterEach, describe, expect, it } from 'vitest';
import { makeEngine, runFlow, shutdownEngines, stepRecord, waitForEnd } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

const guarded = `
name: guarded
trigger:
  webhook:
    path: /guarded
    auth: none
    respond: { mode: step }
steps:
  - id: group
    type: stop-if
    params:
      condition: "{{ trigger.body.group }}"
      reason: group message
      respond: { status: 200, body: { status: ignored, reason: "{{ trigger.body.why }}" } }
  - id: ack
    type: respond
    params: { body: { status: queued } }
`;

describe('stop-if', () => {
  it('when the condition holds: answers the caller, then ends the execution as stopped with the reason', async () => {
    const engine = makeEngine(guarded);
    const handle = await engine.start('guarded', { body: { group: true, why: 'group message' } });
    expect(await handle.responded).toEqual({ status: 200, body: { status: 'ignored', reason: 'group message' } });
    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('group message');
    expect(record.steps.map((s) => [s.id, s.status])).toEqual([['group', 'stopped']]);
  });

  it('when the condition is false: outputs {stopped: false} and the flow goes on', async () => {
    const engine = makeEngine(guarded);
    const handle = await engine.start('guarded', { body: { group: false } });
    expect(await handle.responded).toEqual({ status: 200, body: { status: 'queued' } });
    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('success');
    expect(stepRecord(record, 'group').output).toEqual({ stopped: false });
  });

  it('without respond it only stops; status defaults to 200 when respond gives a body only', async () => {
    const { record } = await runFlow(
      `
name: plain
steps:
  - id: halt
    type: stop-if
    params: { condition: "{{ trigger.body.n > 1 }}" }
  - id: after
    type: set
    params: { values: { ran: true } }
`,
      { body: { n: 2 } },
    );
    expect(record.status).toBe('stopped');
    expect(record.stop_reason).toBe('stopped');
    expect(record.response).toBeUndefined();

    const engine = makeEngine(guarded.replace('status: 200, body', 'body'));
    const handle = await engine.start('guarded', { body: { group: true, why: 'x' } });
    expect(await handle.responded).toEqual({ status: 200, body: { status: 'ignored', reason: 'x' } });
  });
});
