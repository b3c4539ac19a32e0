import { afterEach, describe, expect, it } from 'vitest';
import { runFlow, shutdownEngines, stepRecord } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

const flow = (withElse: boolean) => `
name: if-flow
steps:
  - id: check
    type: if
    params: { condition: "{{ trigger.body.value }}" }
    then:
      - id: yes
        type: set
        params: { values: { took: then } }
${
  withElse
    ? `    else:
      - id: no
        type: set
        params: { values: { took: else } }
`
    : ''
}  - id: after
    type: set
    params: { values: { branch: "{{ steps.check.branch }}", yes: "{{ steps.yes.took }}" } }
`;

describe('if', () => {
  it('runs then when the condition is true; its step outputs are visible after the if', async () => {
    const { record } = await runFlow(flow(true), { body: { value: 'x' } });
    expect(stepRecord(record, 'check').output).toEqual({ branch: 'then', outputs: { yes: { took: 'then' } } });
    expect(record.steps.map((s) => s.id)).toEqual(['check', 'yes', 'after']);
    expect(stepRecord(record, 'after').output).toEqual({ branch: 'then', yes: 'then' });
  });

  it('runs else when the condition is false', async () => {
    const { record } = await runFlow(flow(true), { body: { value: false } });
    expect(stepRecord(record, 'check').output).toEqual({ branch: 'else', outputs: { no: { took: 'else' } } });
    expect(record.steps.map((s) => s.id)).toEqual(['check', 'no', 'after']);
    expect(stepRecord(record, 'after').output).toEqual({ branch: 'else' });
  });

  it('takes branch "none" when false without else', async () => {
    const { record } = await runFlow(flow(false), { body: { value: 0 } });
    expect(record.status).toBe('success');
    expect(stepRecord(record, 'check').output).toEqual({ branch: 'none', outputs: {} });
    expect(record.steps.map((s) => s.id)).toEqual(['check', 'after']);
  });

  it.each([
    [false, 'else'],
    [null, 'else'],
    [0, 'else'],
    ['', 'else'],
    [[], 'else'],
    [{}, 'else'],
    [true, 'then'],
    [1, 'then'],
    ['no', 'then'],
    [[0, 1], 'then'],
    [{ a: 1 }, 'then'],
  ])('treats %j as %s', async (value, branch) => {
    const { record } = await runFlow(flow(true), { body: { value } });
    expect((stepRecord(record, 'check').output as { branch: string }).branch).toBe(branch);
  });

  it('records the resolved condition as its params', async () => {
    const { record } = await runFlow(flow(true), { body: { value: 'x' } });
    expect(stepRecord(record, 'check').params).toEqual({ condition: 'x' });
  });
});

describe('if on a missing field', () => {
  it('treats a condition whose expression finds nothing as false', async () => {
    const { record } = await runFlow(
      `
name: absent-condition
steps:
  - id: check
    type: if
    params: { condition: "{{ trigger.body.isGroup }}" }
    then:
      - id: yes
        type: set
        params: { values: { v: 1 } }
    else:
      - id: no
        type: set
        params: { values: { v: 0 } }
`,
      { body: { other: true } },
    );
    expect(record.status).toBe('success');
    expect(record.steps.find((s) => s.id === 'check')?.output).toMatchObject({ branch: 'else' });
  });
});
