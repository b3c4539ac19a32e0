// Flow test cases assert on the flows a case starts and cancels (flow.start / flow.cancel) like on
// outbound calls: recorded, not made, compared as an exact list of subsets; and on `cancelled`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFlowTests, type FlowTestRun } from '../../engine/testing/flow-tests.js';
import { defaultRegistry } from '../../nodes/index.js';

const dir = mkdtempSync(join(tmpdir(), 'leadflow-keys-cases-'));
const flowsDir = join(dir, 'flows');
const testsDir = join(dir, 'flows', 'tests');

const FOLLOWUP = `
name: followup
concurrency: { key: "{{ trigger.body.phone }}" }
trigger: { input: { type: object, required: [phone] } }
steps:
  - { id: pause, type: wait, params: { until: "{{ $fromMillis($toMillis(now) + 86400000) }}" } }
`;

const REPLY = `
name: reply
steps:
  - id: drop
    type: flow.cancel
    params: { flow: followup, key: "{{ trigger.body.phone }}", reason: answered }
  - id: plan
    type: flow.start
    params: { flow: followup, input: { phone: "{{ trigger.body.phone }}", text: "{{ trigger.body.text }}" } }
`;

const TESTS = `
flow: reply
cases:
  - name: records the cancel and the start, with the key from the started flow
    payload: { phone: "5511", text: oi }
    expect:
      status: success
      cancelled: [ { flow: followup, key: "5511", reason: answered } ]
      started: [ { flow: followup, key: "5511", input: { phone: "5511" } } ]
      steps:
        plan: { output: { execution_id: null, key: "5511" } }
  - name: a wrong expectation fails with the path
    payload: { phone: "5511" }
    expect:
      status: success
      started: [ { flow: followup, key: "other" }, { flow: followup } ]
      cancelled: []
`;

let run: FlowTestRun;

beforeAll(async () => {
  mkdirSync(testsDir, { recursive: true });
  writeFileSync(join(flowsDir, 'followup.yaml'), FOLLOWUP);
  writeFileSync(join(flowsDir, 'reply.yaml'), REPLY);
  writeFileSync(join(testsDir, 'reply.test.yaml'), TESTS);
  run = await runFlowTests({ testsDir, flowsDir, registry: defaultRegistry() });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('flow test cases: started and cancelled flows', () => {
  it('loads without problems', () => {
    expect(run.problems).toEqual([]);
  });

  it('passes when the recorded starts and cancels match', () => {
    expect(run.results[0]).toMatchObject({ passed: true, failures: [] });
  });

  it('names every mismatch', () => {
    expect(run.results[1]?.passed).toBe(false);
    expect(run.results[1]?.failures).toEqual([
      'started: expected 2 got 1 (followup [5511])',
      'started[0].key: expected "other" got "5511"',
      'started[1]: expected {"flow":"followup"} got nothing',
      'cancelled: expected 0 got 1 (followup [5511])',
    ]);
  });
});
