// Flow test cases may assert a step's params as its expressions resolved them (`steps.<id>.params`),
// a mocked step's included: what a mocked write would have written.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFlowTests, type FlowTestRun } from '../../engine/testing/flow-tests.js';
import { defaultRegistry } from '../../nodes/index.js';

const dir = mkdtempSync(join(tmpdir(), 'leadflow-params-cases-'));
const flowsDir = join(dir, 'flows');
const testsDir = join(dir, 'flows', 'tests');

const FLOW = `
name: remember
steps:
  - id: write
    type: db.insert
    params:
      table: wf_chat_histories
      values: { content: "{{ $trim(trigger.body.text) }}", size: "{{ $length($trim(trigger.body.text)) }}" }
  - id: skipped
    type: stop-if
    params: { condition: "{{ true }}", reason: done }
  - id: never
    type: set
    params: { values: { x: 1 } }
`;

const TESTS = `
flow: remember
cases:
  - name: the mocked write's params as resolved
    payload: { text: "  oi " }
    mocks: { write: { output: { id: 1 } } }
    expect:
      status: stopped
      steps:
        write: { params: { table: wf_chat_histories, values: { content: oi, size: 2 } } }
  - name: a wrong param and a step that never ran are named
    payload: { text: "oi" }
    mocks: { write: { output: { id: 1 } } }
    expect:
      status: stopped
      steps:
        write: { params: { values: { content: tchau } } }
        never: { params: { values: { x: 1 } } }
`;

let run: FlowTestRun;

beforeAll(async () => {
  mkdirSync(testsDir, { recursive: true });
  writeFileSync(join(flowsDir, 'remember.yaml'), FLOW);
  writeFileSync(join(testsDir, 'remember.test.yaml'), TESTS);
  run = await runFlowTests({ testsDir, flowsDir, registry: defaultRegistry() });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('flow test cases: step params', () => {
  it('loads without problems', () => {
    expect(run.problems.map((p) => p.message)).toEqual([]);
  });

  it('passes when the resolved params hold the expected subset', () => {
    expect(run.results[0]).toMatchObject({ passed: true, failures: [] });
  });

  it('names each mismatch with its path, and a step that never ran', () => {
    expect(run.results[1]?.passed).toBe(false);
    expect(run.results[1]?.failures).toEqual([
      'steps.write.params.values.content: expected "tchau" got "oi"',
      'steps.never: expected it to run, it never ran',
    ]);
  });
});
