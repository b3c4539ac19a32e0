import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { loadFlowDirectory } from '../../engine/load/loader.js';
import { runFlowTests, type FlowTestCaseResult, type FlowTestRun } from '../../engine/testing/flow-tests.js';
import { defaultRegistry } from '../../nodes/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const fixtures = join(here, '..', 'fixtures', 'flow-tests');
const flowsDir = join(fixtures, 'flows');
const testsDir = join(fixtures, 'tests');
const shown = (name: string) => relative(process.cwd(), join(testsDir, name));

describe('runFlowTests over the fixture tests', () => {
  let run: FlowTestRun;
  const result = (name: string): FlowTestCaseResult => {
    const found = run.results.find((r) => r.name === name);
    expect(found, `no result for "${name}"`).toBeDefined();
    return found!;
  };
  const problemsOf = (file: string) =>
    run.problems.filter((p) => p.file === shown(file)).map(({ line, col, code, message }) => ({ line, col, code, message }));

  beforeAll(async () => {
    run = await runFlowTests({ testsDir, flowsDir, registry: defaultRegistry() });
  });

  it('runs every case of the valid files, in file then case order', () => {
    expect(run.results.map((r) => [relative(testsDir, join(process.cwd(), r.file)), r.name])).toEqual([
      ['failing.test.yaml', 'failing: wrong output'],
      ['failing.test.yaml', 'failing: wrong status'],
      ['failing.test.yaml', 'failing: step that should not have run'],
      ['failing.test.yaml', 'failing: missing outbound'],
      ['failing.test.yaml', "failing: payload rejected by the flow's input schema"],
      ['intake.test.yaml', 'new lead with normal budget gets a first message'],
      ['intake.test.yaml', 'a known lead is stopped before any message'],
      ['intake.test.yaml', 'a gateway error fails the execution at send_first'],
      ['intake.test.yaml', 'the greeting comes from the env override'],
      ['intake.test.yaml', 'without the delay override the execution is still waiting at the timeout'],
      ['notify.test.yaml', 'outbound calls are recorded, not performed'],
    ]);
    for (const r of run.results) expect(r.ms).toBeGreaterThanOrEqual(0);
  });

  it('passes a case whose expectations hold (step outputs, skipped steps, exact outbound list)', () => {
    expect(result('new lead with normal budget gets a first message')).toMatchObject({ passed: true, failures: [] });
  });

  it('applies output mocks: a mocked lookup decides the branch', () => {
    expect(result('a known lead is stopped before any message')).toMatchObject({ passed: true, failures: [] });
  });

  it('applies error mocks: the step fails with the mocked message, status and body', () => {
    expect(result('a gateway error fails the execution at send_first')).toMatchObject({ passed: true, failures: [] });
  });

  it('applies env overrides for the case only', () => {
    expect(result('the greeting comes from the env override')).toMatchObject({ passed: true, failures: [] });
    expect(process.env.FLOWTEST_GREETING).toBeUndefined();
    expect(process.env.FLOWTEST_INTAKE_DELAY_MS).toBeUndefined();
  });

  it('reports an execution still waiting at timeout_ms as waiting instead of hanging', () => {
    const r = result('without the delay override the execution is still waiting at the timeout');
    expect(r).toMatchObject({ passed: true, failures: [] });
    expect(r.ms).toBeGreaterThanOrEqual(290);
    expect(r.ms).toBeLessThan(5000);
  });

  it('records outbound calls in dry-run without performing them', () => {
    expect(result('outbound calls are recorded, not performed')).toMatchObject({ passed: true, failures: [] });
  });

  it('reports a wrong output with the path, the expected and the found value', () => {
    expect(result('failing: wrong output')).toMatchObject({
      passed: false,
      failures: [
        'steps.normalize.output.phone: expected "5500000000000" got "5511987654321"',
        'steps.normalize.output.extra: expected 1 got nothing',
        'outbound[1].body.number: expected "5500000000000" got "5511987654321"',
      ],
    });
  });

  it('reports a wrong status with the stop reason', () => {
    expect(result('failing: wrong status')).toMatchObject({
      passed: false,
      failures: ['status: expected "success" got "stopped" (reason "already a lead")'],
    });
  });

  it('reports a step that ran although it should not have, and one that never ran', () => {
    expect(result('failing: step that should not have run')).toMatchObject({
      passed: false,
      failures: ['steps.send_first.ran: expected false got true (status "success")', 'steps.already: expected it to run, it never ran'],
    });
  });

  it('reports missing outbound calls', () => {
    expect(result('failing: missing outbound')).toMatchObject({
      passed: false,
      failures: [
        'outbound: expected 1 call(s) got 0',
        'outbound[0]: expected {"method":"POST","url":"https://gw.example/send/text"} got nothing',
      ],
    });
  });

  it('reports a payload the flow refuses as a failure, not a crash', () => {
    expect(result("failing: payload rejected by the flow's input schema")).toMatchObject({
      passed: false,
      failures: ['start: expected the execution to start got an error: input of flow "intake" is invalid: telefone is required'],
    });
  });

  it('reports a malformed test file as positioned problems and runs none of its cases', () => {
    expect(problemsOf('malformed.test.yaml')).toEqual([
      { line: 4, col: 5, code: 'unknown-field', message: 'unknown field "payloud" in cases.0 (did you mean "payload"?)' },
      {
        line: 6,
        col: 15,
        code: 'invalid-value',
        message: 'cases.0.expect.status must be one of: success, failed, stopped, cancelled, waiting',
      },
    ]);
    expect(run.results.some((r) => r.name === 'typo in a field and a bad status')).toBe(false);
  });

  it('reports YAML syntax errors of test files in subfolders', () => {
    const problems = problemsOf(join('nested', 'syntax.test.yaml'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'yaml-syntax', line: 5, col: 1 });
  });

  it('reports unknown step ids in mocks and expect, and undeclared env names, at their keys', () => {
    expect(problemsOf('unknown-refs.test.yaml')).toEqual([
      {
        line: 5,
        col: 12,
        code: 'invalid-value',
        message:
          'env: "FLOWTEST_GREETNG" is not declared by flow "intake" or the flows it calls, so it would change nothing (declared: FLOWTEST_GREETING, FLOWTEST_INTAKE_DELAY_MS)',
      },
      { line: 7, col: 7, code: 'unknown-step', message: 'mocks: flow "intake" has no step "lookup_leed"' },
      { line: 11, col: 9, code: 'unknown-step', message: 'expect.steps: flow "intake" has no step "sendfirst"' },
    ]);
    expect(run.results.some((r) => r.name === 'references that do not exist')).toBe(false);
  });

  it('reports an unknown flow', () => {
    expect(problemsOf('unknown-flow.test.yaml')).toEqual([
      { line: 1, col: 7, code: 'invalid-value', message: 'unknown flow "intak" (loaded flows: intake, notify)' },
    ]);
    expect(run.results.some((r) => r.name === 'never runs')).toBe(false);
  });

  it('reports no problem for the valid files', () => {
    const files = new Set(run.problems.map((p) => p.file));
    for (const ok of ['intake.test.yaml', 'notify.test.yaml', 'failing.test.yaml']) expect(files.has(shown(ok))).toBe(false);
  });
});

describe('runFlowTests options and edges', () => {
  it('runs only the cases whose name contains the filter', async () => {
    const run = await runFlowTests({ testsDir, flowsDir, registry: defaultRegistry(), filter: 'known lead' });
    expect(run.results.map((r) => r.name)).toEqual(['a known lead is stopped before any message']);
    expect(run.problems.length).toBeGreaterThan(0);
  });

  it('reports a missing tests directory as a problem', async () => {
    const missing = join(fixtures, 'no-such-dir');
    const run = await runFlowTests({ testsDir: missing, flowsDir, registry: defaultRegistry() });
    expect(run.results).toEqual([]);
    expect(run.problems).toHaveLength(1);
    expect(run.problems[0]!.message).toMatch(/^cannot read the tests directory/);
  });

  it('the notify hook really is unreachable: performed for real, the same flow fails', async () => {
    const { flows, problems } = loadFlowDirectory(flowsDir, defaultRegistry());
    expect(problems).toEqual([]);
    const engine = new Engine({ registry: defaultRegistry(), flows });
    try {
      const handle = await engine.start('notify', { body: { targets: ['a'] } });
      const record = await engine.waitForEnd(handle.id);
      expect(record.status).toBe('failed');
      expect(record.outbound).toMatchObject([{ url: 'http://127.0.0.1:1/hook/a', performed: true }]);
    } finally {
      await engine.shutdown();
    }
  });
});
