// Loading flows. Problems: one fixture per problem code (test/fixtures/load-errors), each asserted
// with its exact code, line and column, plus the text the position points at. Then what a valid
// flow becomes: steps, compiled values and the defaults the loader fills in.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateValue, stepRefsOf } from '../engine/expressions.js';
import { loadFlowDirectory, loadFlowFile, loadFlowText } from '../engine/load/loader.js';
import { formatProblem } from '../engine/load/yaml-source.js';
import type { LoadProblem, LoadProblemCode } from '../engine/types.js';
import { defaultRegistry } from '../nodes/index.js';

const FIXTURES = join(import.meta.dirname, 'fixtures/load-errors');
const registry = defaultRegistry();

/** Every problem code; a new code fails type-checking here until it gets a fixture. */
const ALL_CODES: Record<LoadProblemCode, true> = {
  'unreadable-file': true,
  'yaml-syntax': true,
  'unknown-node-type': true,
  'unknown-field': true,
  'missing-field': true,
  'wrong-type': true,
  'invalid-value': true,
  'bad-expression': true,
  'unknown-step': true,
  'duplicate-step-id': true,
  'unreachable-step': true,
  'duplicate-route': true,
  'duplicate-flow': true,
  'unknown-flow': true,
};

/** Codes whose fixture is a directory of their own (below) rather than one `<code>*.yaml` file. */
const DIRECTORY_FIXTURES = ['unreadable-file', 'duplicate-route', 'duplicate-flow', 'unknown-flow'];

interface Expected {
  code: LoadProblemCode;
  line: number;
  col: number;
  /** The fixture text starting at (line, col). */
  at: string;
  message: RegExp;
}

/** Fixture file -> the problems it must produce, in order. Each single-code fixture has exactly one. */
const FIXTURE_PROBLEMS: Record<string, Expected[]> = {
  'yaml-syntax.yaml': [{ code: 'yaml-syntax', line: 6, col: 15, at: 'Note: not a lead', message: /nested mappings are not allowed/i }],
  'unknown-node-type.yaml': [
    { code: 'unknown-node-type', line: 4, col: 11, at: 'sett', message: /unknown node type "sett" \(did you mean "set"\?\)/ },
  ],
  'unknown-field-top.yaml': [
    {
      code: 'unknown-field',
      line: 2,
      col: 1,
      at: 'desciption:',
      message: /unknown field "desciption" in the flow \(did you mean "description"\?\)/,
    },
  ],
  'unknown-field-step.yaml': [
    {
      code: 'unknown-field',
      line: 7,
      col: 5,
      at: 'retries:',
      message: /unknown field "retries" in steps\.0 .*allowed: id, type, name, params, retry, on_error/,
    },
  ],
  'unknown-field-param.yaml': [
    {
      code: 'unknown-field',
      line: 7,
      col: 7,
      at: 'header:',
      message: /unknown field "header" in steps\.0\.params \(did you mean "headers"\?\)/,
    },
  ],
  'missing-field-param.yaml': [
    { code: 'missing-field', line: 5, col: 5, at: 'params:', message: /missing required field "url" in steps\.0\.params/ },
  ],
  'missing-field-type.yaml': [
    { code: 'missing-field', line: 6, col: 5, at: 'id: forgotten', message: /missing required field "type" in steps\.1/ },
  ],
  'wrong-type-param.yaml': [{ code: 'wrong-type', line: 5, col: 19, at: '"abc"', message: /steps\.0\.params\.ms must be integer/ }],
  'wrong-type-items.yaml': [{ code: 'wrong-type', line: 6, col: 14, at: '5', message: /steps\.0\.params\.items must be array/ }],
  'invalid-value.yaml': [
    { code: 'invalid-value', line: 6, col: 15, at: 'FETCH', message: /method must be one of: GET, POST, PUT, PATCH, DELETE/ },
  ],
  'bad-expression-syntax.yaml': [{ code: 'bad-expression', line: 7, col: 43, at: '! }}', message: /unknown operator: "!"/i }],
  'bad-expression-metric.yaml': [{ code: 'bad-expression', line: 6, col: 27, at: ' }}', message: /unexpected end of expression/i }],
  'invalid-value-metric-buckets.yaml': [
    { code: 'invalid-value', line: 7, col: 14, at: '[1, 10, 5]', message: /metrics buckets must be strictly ascending/ },
  ],
  'invalid-value-metric-counter.yaml': [
    {
      code: 'invalid-value',
      line: 3,
      col: 11,
      at: 'leadflow_optouts',
      message: /counter "leadflow_optouts" must end in _total \(Prometheus convention\), e\.g\. "leadflow_optouts_total"/,
    },
    { code: 'invalid-value', line: 7, col: 14, at: '[1, 5]', message: /a counter has no buckets/ },
  ],
  'invalid-value-schedule-cron.yaml': [
    { code: 'invalid-value', line: 4, col: 11, at: '"0 25 * * 1-5"', message: /bad cron pattern "0 25 \* \* 1-5": .*hour: 25/ },
  ],
  'invalid-value-schedule-timezone.yaml': [
    { code: 'invalid-value', line: 5, col: 15, at: 'America/Sao_Pablo', message: /unknown time zone "America\/Sao_Pablo"/ },
  ],
  'bad-expression-unclosed.yaml': [{ code: 'bad-expression', line: 7, col: 21, at: '{{ trigger.body.name', message: /unclosed "\{\{"/ }],
  'bad-expression-forbidden.yaml': [
    { code: 'bad-expression', line: 7, col: 32, at: 'constructor }}', message: /"constructor" is not allowed/ },
  ],
  'unknown-step-expression.yaml': [{ code: 'unknown-step', line: 7, col: 28, at: 'nope.x }}', message: /unknown step "nope"/ }],
  'unknown-step-goto.yaml': [
    { code: 'unknown-step', line: 6, col: 23, at: 'nope }', message: /on_error\.goto "nope" is not a step of the same list/ },
  ],
  'duplicate-step-id.yaml': [{ code: 'duplicate-step-id', line: 10, col: 13, at: 'reply', message: /duplicate step id "reply"/ }],
  'unreachable-step-stop.yaml': [{ code: 'unreachable-step', line: 6, col: 9, at: 'never', message: /step "never" can never run/ }],
  'unreachable-step-if.yaml': [{ code: 'unreachable-step', line: 14, col: 9, at: 'never', message: /step "never" can never run/ }],
  'many-problems.yaml': [
    { code: 'invalid-value', line: 6, col: 11, at: 'Password', message: /auth must match pattern/ },
    { code: 'unknown-node-type', line: 9, col: 11, at: 'sett', message: /unknown node type "sett"/ },
    { code: 'wrong-type', line: 12, col: 19, at: 'soon', message: /ms must be integer/ },
    { code: 'bad-expression', line: 16, col: 48, at: '! }}', message: /unknown operator/i },
    { code: 'unknown-field', line: 17, col: 5, at: 'colour:', message: /unknown field "colour"/ },
    { code: 'duplicate-step-id', line: 18, col: 9, at: 'greet', message: /duplicate step id "greet"/ },
    { code: 'unknown-step', line: 21, col: 32, at: 'ghost.name', message: /unknown step "ghost"/ },
    { code: 'unreachable-step', line: 24, col: 9, at: 'after', message: /step "after" can never run/ },
    { code: 'missing-field', line: 26, col: 5, at: 'params:', message: /missing required field "url"/ },
  ],
};

function textAt(file: string, line: number, col: number): string {
  const lines = readFileSync(join(FIXTURES, file), 'utf8').split('\n');
  return (lines[line - 1] ?? '').slice(col - 1);
}

function positions(problems: Array<Pick<LoadProblem, 'code' | 'line' | 'col'>>): Array<Pick<LoadProblem, 'code' | 'line' | 'col'>> {
  return problems.map(({ code, line, col }) => ({ code, line, col }));
}

describe('load-problem fixtures', () => {
  it('cover every fixture file and every problem code', () => {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.yaml'));
    expect(files.sort()).toEqual(Object.keys(FIXTURE_PROBLEMS).sort());
    // Problems that span files (or are not about a file's text) have a directory fixture (below).
    const covered = new Set<string>([
      ...DIRECTORY_FIXTURES,
      ...Object.values(FIXTURE_PROBLEMS)
        .flat()
        .map((p) => p.code),
    ]);
    expect([...covered].sort()).toEqual(Object.keys(ALL_CODES).sort());
  });

  for (const [file, expected] of Object.entries(FIXTURE_PROBLEMS)) {
    it(`${file}: ${expected.map((p) => `${p.code}@${p.line}:${p.col}`).join(', ')}`, () => {
      const result = loadFlowFile(join(FIXTURES, file), registry, file);
      expect(result.flow).toBeUndefined();
      expect(positions(result.problems)).toEqual(positions(expected));
      result.problems.forEach((problem, i) => {
        const want = expected[i]!;
        expect(problem.file).toBe(file);
        expect(problem.message).toMatch(want.message);
        expect(
          textAt(file, problem.line, problem.col).startsWith(want.at),
          `${file}:${problem.line}:${problem.col} points at "${textAt(file, problem.line, problem.col)}"`,
        ).toBe(true);
      });
    });
  }

  it('many-problems.yaml reports every problem at once, of many different codes, in file order', () => {
    const { problems } = loadFlowFile(join(FIXTURES, 'many-problems.yaml'), registry);
    expect(new Set(problems.map((p) => p.code)).size).toBeGreaterThanOrEqual(8);
    const order = problems.map((p) => p.line * 1000 + p.col);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it('problems carry the JSON path of the offending value', () => {
    const { problems } = loadFlowFile(join(FIXTURES, 'many-problems.yaml'), registry);
    expect(problems.map((p) => p.path)).toEqual([
      ['trigger', 'webhook', 'auth'],
      ['steps', 0, 'type'],
      ['steps', 1, 'params', 'ms'],
      ['steps', 2, 'params', 'values', 'text'],
      ['steps', 2, 'colour'],
      ['steps', 3, 'id'],
      ['steps', 3, 'params', 'values', 'who'],
      ['steps', 5, 'id'],
      ['steps', 5, 'params'],
    ]);
  });
});

describe('loadFlowDirectory', () => {
  const load = (dir: string) => loadFlowDirectory(join(FIXTURES, dir), registry, FIXTURES);

  it('duplicate-route: a second flow serving the same method and path, at its path', () => {
    const result = load('duplicate-route');
    const problem = result.problems.find((p) => p.file === 'duplicate-route/second.yaml');
    expect(problem).toMatchObject({ code: 'duplicate-route', line: 5, col: 11, path: ['trigger', 'webhook', 'path'] });
    expect(problem?.message).toBe('route POST /leads is already served by duplicate-route/first.yaml');
    // The same path with another method, calling a loaded flow, is fine.
    expect(result.problems).toHaveLength(1);
    expect([...result.flows.keys()].sort()).toEqual(['first', 'third']);
    expect(result.flows.get('third')?.trigger.webhook).toMatchObject({ method: 'GET', path: '/leads' });
    expect(result.files.map((f) => f.slice(FIXTURES.length + 1))).toEqual([
      'duplicate-route/first.yaml',
      'duplicate-route/second.yaml',
      'duplicate-route/third.yaml',
    ]);
  });

  it('duplicate-flow: a flow name used twice, at the name', () => {
    const result = load('duplicate-flow');
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({
      file: 'duplicate-flow/second.yaml',
      code: 'duplicate-flow',
      line: 2,
      col: 7,
      path: ['name'],
    });
    expect(result.problems[0]?.message).toBe('flow name "first" is already used by duplicate-flow/first.yaml');
    expect([...result.flows.keys()]).toEqual(['first']);
  });

  it('unknown-flow: a call-flow to a flow that does not exist, at its flow parameter', () => {
    const result = load('unknown-flow');
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({
      file: 'unknown-flow/caller.yaml',
      code: 'unknown-flow',
      line: 12,
      col: 21,
      path: ['steps', 1, 'params', 'flow'],
    });
    expect(result.problems[0]?.message).toBe('call-flow target "nowhere" is not a loaded flow');
  });
});

describe('formatProblem', () => {
  it('prints FILE:LINE:COL message [code]', () => {
    const { problems } = loadFlowFile(join(FIXTURES, 'unknown-node-type.yaml'), registry, 'flows/intake.yaml');
    expect(problems.map(formatProblem)).toEqual([
      'flows/intake.yaml:4:11 unknown node type "sett" (did you mean "set"?); see `leadflow nodes` [unknown-node-type]',
    ]);
  });
});

describe('positions inside strings', () => {
  const flow = (values: string) => `name: x\nsteps:\n  - id: a\n    type: set\n    params:\n      values:\n${values}\n`;
  const problemsOf = (values: string) => loadFlowText('f.yaml', flow(values), registry).problems;
  /** Column (1-based) of `needle` on the only line of `values`. */
  const colOf = (values: string, needle: string) => values.indexOf(needle) + 1;

  it.each([
    ['plain', '        t: hi {{ steps.nope.x }}'],
    ['double-quoted with escapes before', '        t: "say \\"hi\\" {{ steps.nope.x }}"'],
    ['single-quoted with a doubled quote before', "        t: 'it''s {{ steps.nope.x }}'"],
    ['second expression of a template', '        t: "{{ trigger.body.a }} and {{ steps.nope.x }}"'],
    ['expression naming the step elsewhere first', '        t: "{{ trigger.nope & steps.nope.x }}"'],
  ])('unknown step in a %s scalar points at the step id', (_kind, values) => {
    const problems = problemsOf(values);
    expect(positions(problems)).toEqual([{ code: 'unknown-step', line: 7, col: colOf(values, 'nope.x') }]);
  });

  it.each([
    ['plain', '        t: ok {{ $lookup(trigger, "constructor") }}', 'constructor'],
    ['double-quoted', '        t: "ok {{ trigger.__proto__ }}"', '__proto__'],
    ['single-quoted', '        t: \'{{ $eval("1") }}\'', '$eval'],
  ])('a forbidden name in a %s scalar points at the name', (_kind, values, needle) => {
    expect(positions(problemsOf(values))).toEqual([{ code: 'bad-expression', line: 7, col: colOf(values, needle) }]);
  });

  it('a bad expression in a block scalar points at the scalar', () => {
    const problems = problemsOf('        t: |\n          {{ 1 + }}');
    expect(positions(problems)).toEqual([{ code: 'bad-expression', line: 7, col: 12 }]);
  });
});

describe('YAML that cannot become a flow', () => {
  it('an alias without an anchor is a yaml-syntax problem at the alias, not a crash', () => {
    const result = loadFlowText('f.yaml', 'name: x\nsteps:\n  - id: a\n    type: *missing\n', registry);
    expect(result.flow).toBeUndefined();
    expect(positions(result.problems)).toEqual([{ code: 'yaml-syntax', line: 4, col: 11 }]);
    expect(result.problems[0]!.message).toMatch(/\*missing/);
    expect(
      loadFlowText('f.yaml', 'name: x\nsteps:\n  - id: a\n    type: &t stop\n  - id: b\n    type: *t\n', registry).problems.map(
        (p) => p.code,
      ),
    ).toEqual(['unreachable-step']);
  });

  it('an alias bomb is refused as a problem', () => {
    const lines = ['name: x', 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    lines.push('steps: []');
    const result = loadFlowText('f.yaml', lines.join('\n'), registry);
    expect(result.flow).toBeUndefined();
    expect(result.problems.map((p) => p.code)).toEqual(['yaml-syntax']);
    expect(result.problems[0]!.message).toMatch(/alias/i);
  });

  it.each([
    ['an empty file', ''],
    ['a list', '- id: a\n'],
    ['a scalar', 'hello\n'],
  ])('%s is a wrong-type problem at 1:1', (_kind, text) => {
    const result = loadFlowText('f.yaml', text, registry);
    expect(result.flow).toBeUndefined();
    expect(positions(result.problems)).toEqual([{ code: 'wrong-type', line: 1, col: 1 }]);
  });

  it('a file that cannot be read is an unreadable-file problem naming the file', () => {
    const result = loadFlowFile(join(FIXTURES, 'no-such-file.yaml'), registry, 'no-such-file.yaml');
    expect(result.flow).toBeUndefined();
    expect(result.problems).toMatchObject([
      { file: 'no-such-file.yaml', line: 1, col: 1, code: 'unreadable-file', message: expect.stringMatching(/cannot read file/) },
    ]);
  });

  it('unreadable-file: a path that is a directory, not a file', () => {
    const result = loadFlowFile(join(FIXTURES, 'unreadable-file'), registry, 'unreadable-file');
    expect(result.flow).toBeUndefined();
    expect(result.problems).toMatchObject([
      { file: 'unreadable-file', line: 1, col: 1, code: 'unreadable-file', message: expect.stringMatching(/^cannot read file: EISDIR/) },
    ]);
  });
});

describe('unreachable-step is not reported when a later step can still run', () => {
  const load = (steps: string) => loadFlowText('f.yaml', `name: x\nsteps:\n${steps}`, registry);

  it('after an if whose only branch (then) stops', () => {
    const result = load(`  - id: gate
    type: if
    params: { condition: "{{ trigger.body.spam }}" }
    then: [{ id: drop, type: stop }]
  - id: go_on
    type: set
    params: { values: { ok: true } }
`);
    expect(result.problems).toEqual([]);
    expect(result.flow?.steps.map((s) => s.id)).toEqual(['gate', 'go_on']);
  });

  it('after a stop, when the step is the on_error goto target of an earlier step (and so are the steps after it)', () => {
    const result = load(`  - id: call
    type: http.request
    params: { url: https://api.example/lead }
    on_error: { goto: recover }
  - id: done
    type: stop
  - id: recover
    type: set
    params: { values: { failed: true } }
  - id: log
    type: set
    params: { values: { logged: true } }
`);
    expect(result.problems).toEqual([]);
  });

  it('after a switch without default whose cases all stop', () => {
    const result = load(`  - id: route
    type: switch
    params: { value: "{{ trigger.body.kind }}" }
    cases:
      a: [{ id: stop_a, type: stop }]
  - id: fallthrough
    type: set
    params: { values: {} }
`);
    expect(result.problems).toEqual([]);
  });

  it('but is reported after a switch whose cases and default all stop', () => {
    const result = load(`  - id: route
    type: switch
    params: { value: "{{ trigger.body.kind }}" }
    cases:
      a: [{ id: stop_a, type: stop }]
    default: [{ id: stop_b, type: stop }]
  - id: never
    type: set
    params: { values: {} }
`);
    expect(positions(result.problems)).toEqual([{ code: 'unreachable-step', line: 9, col: 9 }]);
  });
});

const VALID = `name: intake
description: Greets a lead and notifies the team.
trigger:
  webhook:
    path: /intake
env:
  GREETING: Olá
vars:
  started: "{{ trigger.body.at }}"
output: "{{ steps.fields }}"
steps:
  - id: fields
    type: set
    params:
      values:
        name: "{{ $trim(trigger.body.nome) }}"
        text: "{{ env.GREETING }}, {{ trigger.body.nome }}!"
  - id: notify
    type: http.request
    params:
      method: POST
      url: https://hooks.example/notify
      body: { name: "{{ steps.fields.name }}", tags: [lead, "{{ trigger.body.source }}"] }
    retry: { attempts: 5, when: "{{ error.status >= 500 }}" }
    on_error: continue
  - id: vip
    type: if
    params: { condition: "{{ trigger.body.vip }}" }
    then:
      - id: flag
        type: set
        params: { values: { vip: true }, vars: true }
`;

describe('a valid flow', () => {
  const { flow, problems } = loadFlowText('flows/intake.yaml', VALID, registry);
  const scope = {
    trigger: { body: { nome: '  Ana ', source: 'form', vip: true, at: 't0' } },
    env: { GREETING: 'Olá' },
    steps: { fields: { name: 'Ana' } },
    execution: { id: 'ex-1' },
  };

  it('loads without problems, with its steps and nested steps', () => {
    expect(problems).toEqual([]);
    expect(flow).toMatchObject({
      name: 'intake',
      description: 'Greets a lead and notifies the team.',
      file: 'flows/intake.yaml',
      env: { GREETING: 'Olá' },
    });
    expect(flow!.steps.map((s) => [s.id, s.type])).toEqual([
      ['fields', 'set'],
      ['notify', 'http.request'],
      ['vip', 'if'],
    ]);
    expect(flow!.steps[2]!.children.then!.map((s) => s.id)).toEqual(['flag']);
    expect(flow!.steps[2]!.children.then![0]!.sourcePath).toEqual(['steps', 2, 'then', 0]);
  });

  it('compiles parameters: expressions and templates evaluate, literals stay', async () => {
    expect(await evaluateValue(flow!.steps[0]!.compiledParams, scope)).toEqual({ values: { name: 'Ana', text: 'Olá,   Ana !' } });
    expect(await evaluateValue(flow!.steps[1]!.compiledParams, scope)).toEqual({
      method: 'POST',
      url: 'https://hooks.example/notify',
      body: { name: 'Ana', tags: ['lead', 'form'] },
    });
    expect(stepRefsOf(flow!.steps[1]!.compiledParams)).toEqual(['fields']);
    expect(flow!.steps[1]!.params).toEqual({
      method: 'POST',
      url: 'https://hooks.example/notify',
      body: { name: '{{ steps.fields.name }}', tags: ['lead', '{{ trigger.body.source }}'] },
    });
  });

  it('compiles vars and output', async () => {
    expect(await evaluateValue(flow!.compiledVars, scope)).toEqual({ started: 't0' });
    expect(await evaluateValue(flow!.compiledOutput!, scope)).toEqual({ name: 'Ana' });
  });

  it('has no declared metrics unless it declares some; declared ones get their value compiled', async () => {
    expect(flow!.metrics).toEqual([]);
    const text = `name: timed
output: { ms: 2500 }
metrics:
  - name: leadflow_timed_seconds
    type: histogram
    help: Seconds it took.
    value: "{{ output.ms / 1000 }}"
    buckets: [1, 5]
steps:
  - id: only
    type: set
    params: { values: { a: 1 } }
`;
    const timed = loadFlowText('timed.yaml', text, registry);
    expect(timed.problems).toEqual([]);
    const [metric] = timed.flow!.metrics;
    expect(metric).toMatchObject({ name: 'leadflow_timed_seconds', type: 'histogram', help: 'Seconds it took.', buckets: [1, 5] });
    expect(await evaluateValue(metric!.compiledValue, { output: { ms: 2500 } })).toBe(2.5);
    const twice = loadFlowText(
      'twice.yaml',
      text.replace('steps:', `${text.slice(text.indexOf('  - name'), text.indexOf('steps:'))}steps:`),
      registry,
    );
    expect(twice.problems).toMatchObject([
      { code: 'invalid-value', path: ['metrics', 1, 'name'], message: 'metric "leadflow_timed_seconds" is declared twice' },
    ]);
  });

  it('loads a counter without buckets; a histogram still needs buckets; the type is histogram or counter', async () => {
    const text = (metric: string) => `name: counted
output: { opted_out: true }
metrics:
${metric}
steps:
  - id: only
    type: set
    params: { values: { a: 1 } }
`;
    const counted = loadFlowText(
      'counted.yaml',
      text(`  - name: leadflow_optouts_total
    type: counter
    help: Leads who opted out.
    value: "{{ output.opted_out ? 1 : 0 }}"`),
      registry,
    );
    expect(counted.problems).toEqual([]);
    const [metric] = counted.flow!.metrics;
    expect(metric).toMatchObject({ name: 'leadflow_optouts_total', type: 'counter', help: 'Leads who opted out.', buckets: [] });
    expect(await evaluateValue(metric!.compiledValue, { output: { opted_out: true } })).toBe(1);

    const noBuckets = loadFlowText(
      'no-buckets.yaml',
      text(`  - name: leadflow_timed_seconds
    type: histogram
    help: Seconds it took.
    value: "{{ output.ms / 1000 }}"`),
      registry,
    );
    expect(noBuckets.problems).toMatchObject([
      { code: 'missing-field', path: ['metrics', 0], message: 'missing required field "buckets" in metrics.0' },
    ]);

    const gauge = loadFlowText(
      'gauge.yaml',
      text(`  - name: leadflow_open_leads
    type: gauge
    help: Open leads.
    value: "{{ 1 }}"`),
      registry,
    );
    expect(gauge.problems).toMatchObject([
      { code: 'invalid-value', path: ['metrics', 0, 'type'], message: 'metrics.0.type must be one of: histogram, counter' },
    ]);
  });

  it("fills on_error 'fail' by default and keeps the declared one", () => {
    expect(flow!.steps.map((s) => s.on_error)).toEqual(['fail', 'continue', 'fail']);
  });

  it('fills retry defaults when retry is given, and compiles its condition', async () => {
    expect(flow!.steps[0]!.retry).toBeUndefined();
    expect(flow!.steps[0]!.compiledRetryWhen).toBeUndefined();
    expect(flow!.steps[1]!.retry).toEqual({
      attempts: 5,
      delay_ms: 1000,
      backoff: 2,
      max_delay_ms: 60000,
      jitter: 0,
      when: '{{ error.status >= 500 }}',
    });
    expect(await evaluateValue(flow!.steps[1]!.compiledRetryWhen!, { error: { status: 503 } })).toBe(true);
    expect(await evaluateValue(flow!.steps[1]!.compiledRetryWhen!, { error: { status: 404 } })).toBe(false);
  });

  it('fills webhook defaults: POST, secret auth, answer 202 at once with the execution id', async () => {
    expect(flow!.trigger.webhook).toEqual({
      method: 'POST',
      path: '/intake',
      auth: 'secret',
      respond: { mode: 'immediately', status: 202, body: { execution_id: '{{ execution.id }}' } },
    });
    expect(await evaluateValue(flow!.compiledRespondBody!, scope)).toEqual({ execution_id: 'ex-1' });
  });

  it('keeps a declared respond mode step with its default timeout, and no immediate body', () => {
    const text = VALID.replace('    path: /intake\n', '    path: /intake\n    method: PUT\n    auth: none\n    respond: { mode: step }\n');
    const result = loadFlowText('f.yaml', text, registry);
    expect(result.problems).toEqual([]);
    expect(result.flow!.trigger.webhook).toEqual({
      method: 'PUT',
      path: '/intake',
      auth: 'none',
      respond: { mode: 'step', timeout_ms: 30000 },
    });
    expect(result.flow!.compiledRespondBody).toBeUndefined();
  });

  it('hashes its source: the same text gives the same hash, a changed text another', () => {
    expect(flow!.sourceHash).toMatch(/^[0-9a-f]{64}$/);
    expect(loadFlowText('other.yaml', VALID, registry).flow!.sourceHash).toBe(flow!.sourceHash);
    expect(loadFlowText('f.yaml', VALID.replace('Olá', 'Oi'), registry).flow!.sourceHash).not.toBe(flow!.sourceHash);
  });

  it('has no webhook when the flow has no trigger', () => {
    const result = loadFlowText('f.yaml', 'name: sub\nsteps:\n  - id: a\n    type: stop\n', registry);
    expect(result.problems).toEqual([]);
    expect(result.flow!.trigger.webhook).toBeUndefined();
    expect(result.flow!.compiledRespondBody).toBeUndefined();
  });
});
