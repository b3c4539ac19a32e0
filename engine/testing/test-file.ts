// Reads one flow test file: YAML with positions -> test-file schema (ajv) -> references checked
// against the loaded flows (the flow exists; every step id in `mocks` / `expect.steps` is a step of
// it; every `env` name is declared by it or a flow it calls; case names are unique). Any problem
// means the file's cases do not run: a typo must not pass as a green test.
import { readFileSync } from 'node:fs';
import AjvModule from 'ajv';
import { YamlSource } from '../load/yaml-source.js';
import type { LoadedFlow, LoadedStep, LoadProblem } from '../types.js';
import { testFileProblems } from './test-file-problems.js';
import { TestFileSchema, type TestFile } from './test-file-schema.js';

const Ajv = AjvModule.default ?? AjvModule;
const validate = new Ajv({ allErrors: true, verbose: true, strict: false }).compile(JSON.parse(JSON.stringify(TestFileSchema)));

/** A test file without problems: its display name, the flow it tests, and its cases as written. */
export interface ParsedTestFile {
  /** The file as shown in results and problems. */
  file: string;
  flow: LoadedFlow;
  spec: TestFile;
}

/** A test file read: parsed when it has no problem, else its problems (positioned like flow load problems). */
export interface TestFileResult {
  parsed?: ParsedTestFile;
  problems: LoadProblem[];
}

/** Every step id of a step list, nested ones included. */
export function stepIds(steps: LoadedStep[], out = new Set<string>()): Set<string> {
  for (const step of steps) {
    out.add(step.id);
    for (const list of Object.values(step.children)) stepIds(list, out);
  }
  return out;
}

/** Env names `flow` and the flows it calls (literal `call-flow` targets, transitively) declare. */
function declaredEnv(flow: LoadedFlow, flows: Map<string, LoadedFlow>, seen = new Set<string>()): Set<string> {
  const names = new Set<string>();
  if (seen.has(flow.name)) return names;
  seen.add(flow.name);
  for (const name of Object.keys(flow.env)) names.add(name);
  const visit = (steps: LoadedStep[]) => {
    for (const step of steps) {
      const target = step.params.flow;
      const called = step.type === 'call-flow' && typeof target === 'string' ? flows.get(target) : undefined;
      if (called) for (const name of declaredEnv(called, flows, seen)) names.add(name);
      for (const list of Object.values(step.children)) visit(list);
    }
  };
  visit(flow.steps);
  return names;
}

/** Parses and checks the test file at `path`; `display` names it in problems. Never throws: an unreadable file is an `unreadable-file` problem. */
export function readTestFile(path: string, display: string, flows: Map<string, LoadedFlow>): TestFileResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    return {
      problems: [
        { file: display, line: 1, col: 1, path: [], code: 'unreadable-file', message: `cannot read file: ${(err as Error).message}` },
      ],
    };
  }
  return parseTestFile(display, text, flows);
}

/** Parses and checks a test file's text against its schema and `flows` (the flow it names, its steps and env). Never throws. */
export function parseTestFile(file: string, text: string, flows: Map<string, LoadedFlow>): TestFileResult {
  const source = new YamlSource(file, text);
  const syntax = source.syntaxProblems();
  if (syntax.length > 0) return { problems: syntax };
  const data = source.toJS();
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    return { problems: [source.problem([], 'wrong-type', 'a flow test file must be a YAML mapping with flow and cases')] };
  }
  if (!validate(data)) return { problems: testFileProblems(validate.errors ?? [], data, source) };
  const spec = data as TestFile;

  const flow = flows.get(spec.flow);
  if (!flow) {
    const known = [...flows.keys()].sort().join(', ') || 'none';
    return { problems: [source.problem(['flow'], 'invalid-value', `unknown flow "${spec.flow}" (loaded flows: ${known})`)] };
  }
  const ids = stepIds(flow.steps);
  const env = declaredEnv(flow, flows);
  const problems: LoadProblem[] = [];
  const names = new Set<string>();
  spec.cases.forEach((c, i) => {
    if (names.has(c.name)) problems.push(source.problem(['cases', i, 'name'], 'invalid-value', `duplicate case name "${c.name}"`));
    names.add(c.name);
    for (const id of Object.keys(c.mocks ?? {})) {
      if (!ids.has(id))
        problems.push(
          source.problem(['cases', i, 'mocks', id], 'unknown-step', `mocks: flow "${flow.name}" has no step "${id}"`, { atKey: true }),
        );
    }
    for (const id of Object.keys(c.expect.steps ?? {})) {
      if (!ids.has(id))
        problems.push(
          source.problem(['cases', i, 'expect', 'steps', id], 'unknown-step', `expect.steps: flow "${flow.name}" has no step "${id}"`, {
            atKey: true,
          }),
        );
    }
    for (const name of Object.keys(c.env ?? {})) {
      if (!env.has(name)) {
        const declared = [...env].sort().join(', ') || 'none';
        problems.push(
          source.problem(
            ['cases', i, 'env', name],
            'invalid-value',
            `env: "${name}" is not declared by flow "${flow.name}" or the flows it calls, so it would change nothing (declared: ${declared})`,
            { atKey: true },
          ),
        );
      }
    }
  });
  if (problems.length > 0) return { problems: problems.sort((x, y) => x.line - y.line || x.col - y.col) };
  return { parsed: { file, flow, spec }, problems: [] };
}
