import { afterEach, describe, expect, it } from 'vitest';
import { makeEngine, runFlow, shutdownEngines, stepRecord, waitForEnd } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

describe('respond', () => {
  it('answers the webhook (handle.responded) while later steps still run', async () => {
    const engine = makeEngine(`
name: ack
trigger:
  webhook:
    path: /ack
    auth: none
    respond: { mode: step }
steps:
  - id: ack
    type: respond
    params: { status: 201, body: { queued: true, id: "{{ execution.id }}", name: "{{ trigger.body.name }}" } }
  - id: pause
    type: wait
    params: { ms: 200 }
  - id: after
    type: set
    params: { values: { done: true } }
`);
    await engine.startScheduler();
    const handle = await engine.start('ack', { body: { name: 'Ana' } });
    const response = await handle.responded;
    expect(response).toEqual({ status: 201, body: { queued: true, id: handle.id, name: 'Ana' } });
    // Answered before the execution ended.
    const during = await engine.store.get(handle.id);
    expect(['running', 'waiting']).toContain(during?.status);
    expect(during?.steps.some((s) => s.id === 'after')).toBe(false);

    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('success');
    expect(stepRecord(record, 'after').output).toEqual({ done: true });
    expect(record.response).toEqual(response);
    expect(stepRecord(record, 'ack').output).toEqual({ status: 201, body: { queued: true, id: handle.id, name: 'Ana' } });
  });

  it('fills defaults and passes extra headers', async () => {
    const { record, handle } = await runFlow(`
name: ack-defaults
steps:
  - id: ack
    type: respond
    params: { headers: { x-request-id: "{{ execution.id }}" } }
`);
    expect(await handle.responded).toEqual({ status: 200, body: {}, headers: { 'x-request-id': handle.id } });
    expect(stepRecord(record, 'ack').params).toEqual({ status: 200, body: {}, headers: { 'x-request-id': handle.id } });
  });

  it('a second respond fails the step; the first answer stands', async () => {
    const { record, handle } = await runFlow(`
name: ack-twice
steps:
  - id: first
    type: respond
    params: { status: 202, body: { n: 1 } }
  - id: second
    type: respond
    params: { status: 500, body: { n: 2 } }
    on_error: continue
  - id: after
    type: set
    params: { values: { message: "{{ steps.second.error.message }}" } }
`);
    expect(await handle.responded).toEqual({ status: 202, body: { n: 1 } });
    expect(record.status).toBe('success');
    expect(stepRecord(record, 'second').status).toBe('error');
    expect((stepRecord(record, 'after').output as { message: string }).message).toMatch(/already answered/);
    expect(record.response).toEqual({ status: 202, body: { n: 1 } });
  });

  it('a second respond after a resume still fails (the answer is stored with the execution)', async () => {
    const engine = makeEngine(`
name: ack-resume
steps:
  - id: first
    type: respond
    params: { body: { n: 1 } }
  - id: pause
    type: wait
    params: { ms: 50 }
  - id: second
    type: respond
    params: { body: { n: 2 } }
`);
    await engine.startScheduler();
    const handle = await engine.start('ack-resume', { body: {} });
    const record = await waitForEnd(engine, handle.id);
    expect(record.status).toBe('failed');
    expect(record.error?.step).toBe('second');
    expect(record.error?.message).toMatch(/already answered/);
    expect(record.response).toEqual({ status: 200, body: { n: 1 } });
  });

  it('responded resolves with undefined when the execution ends without a respond step', async () => {
    const { handle, record } = await runFlow(`
name: no-ack
steps:
  - id: only
    type: set
    params: { values: { x: 1 } }
`);
    expect(record.status).toBe('success');
    expect(await handle.responded).toBeUndefined();
    expect(record.response).toBeUndefined();
  });
});
