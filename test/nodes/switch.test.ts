import { afterEach, describe, expect, it } from 'vitest';
import { runFlow, shutdownEngines, stepRecord } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

const flow = (withDefault: boolean) => `
name: switch-flow
steps:
  - id: route
    type: switch
    params: { value: "{{ trigger.body.value }}" }
    cases:
      reset:
        - id: do_reset
          type: set
          params: { values: { did: reset } }
      "2":
        - id: do_two
          type: set
          params: { values: { did: two } }
      "true":
        - id: do_true
          type: set
          params: { values: { did: "true" } }
${
  withDefault
    ? `    default:
      - id: fallback
        type: set
        params: { values: { did: default } }
`
    : ''
}  - id: after
    type: set
    params: { values: { branch: "{{ steps.route.branch }}" } }
`;

describe('switch', () => {
  it('runs the matching case only', async () => {
    const { record } = await runFlow(flow(true), { body: { value: 'reset' } });
    expect(stepRecord(record, 'route').output).toEqual({ branch: 'reset', outputs: { do_reset: { did: 'reset' } } });
    expect(record.steps.map((s) => s.id)).toEqual(['route', 'do_reset', 'after']);
    expect(stepRecord(record, 'after').output).toEqual({ branch: 'reset' });
  });

  it('compares non-string values as text', async () => {
    const two = await runFlow(flow(true), { body: { value: 2 } });
    expect(stepRecord(two.record, 'route').output).toEqual({ branch: '2', outputs: { do_two: { did: 'two' } } });
    const yes = await runFlow(flow(true), { body: { value: true } });
    expect(stepRecord(yes.record, 'route').output).toMatchObject({ branch: 'true' });
  });

  it('is case-sensitive and falls back to default', async () => {
    const { record } = await runFlow(flow(true), { body: { value: 'RESET' } });
    expect(stepRecord(record, 'route').output).toEqual({ branch: 'default', outputs: { fallback: { did: 'default' } } });
    expect(record.steps.map((s) => s.id)).toEqual(['route', 'fallback', 'after']);
  });

  it('takes branch "none" without a match or default', async () => {
    const { record } = await runFlow(flow(false), { body: { value: 'other' } });
    expect(record.status).toBe('success');
    expect(stepRecord(record, 'route').output).toEqual({ branch: 'none', outputs: {} });
    expect(record.steps.map((s) => s.id)).toEqual(['route', 'after']);
  });

  it('matches a null value as the empty key', async () => {
    const { record } = await runFlow(flow(true), { body: { value: null } });
    expect(stepRecord(record, 'route').output).toMatchObject({ branch: 'default' });
  });
});
