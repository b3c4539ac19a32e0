// Flow test cases (`leadflow test`): YAML files under a directory (default flows/tests/), each naming
// a flow and listing cases (payload, env overrides, step mocks, expectations; format in
// test-file-schema.ts). Every case runs in dry-run on its own engine, so nothing leaves the process:
// outbound calls are recorded on the execution and asserted, never performed.
//
// Contract: `problems` holds every load problem of the flows directory and of the test files
// (positioned, like flow load problems); a test file with any problem runs none of its cases.
// `results` holds one entry per case run, in file then case order.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadFlowDirectory } from '../load/loader.js';
import type { NodeRegistry } from '../registry.js';
import type { LoadProblem } from '../types.js';
import { expectationFailures } from './case-assertions.js';
import { runCase } from './run-case.js';
import { readTestFile } from './test-file.js';

/** The outcome of one flow test case: passed, or the reasons it failed (one line each). */
export interface FlowTestCaseResult {
  file: string;
  name: string;
  passed: boolean;
  failures: string[];
  /** Wall time of the case, milliseconds. */
  ms: number;
}

/** Every case run (file then case order) and every problem of the flows and test files. */
export interface FlowTestRun {
  results: FlowTestCaseResult[];
  problems: LoadProblem[];
}

/** Where `runFlowTests` finds flows and tests, the node types and services they run with, and a name filter. */
export interface FlowTestOptions {
  testsDir: string;
  flowsDir: string;
  registry: NodeRegistry;
  /** Services handed to nodes (database, gateway ...); nodes must still honour dry-run. */
  services?: Record<string, unknown>;
  /** The environment every case starts from (its `env` overrides on top); default process.env. */
  env?: Record<string, string | undefined>;
  /** Only cases whose name contains this text. */
  filter?: string;
}

/** `*.yaml` / `*.yml` files under `dir`, subfolders included, sorted by path. Throws when `dir` cannot be listed. */
export function listTestFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...listTestFiles(path));
    else if (/\.ya?ml$/.test(name)) out.push(path);
  }
  return out;
}

/**
 * Loads the flows of `flowsDir`, then runs every case of every test file under `testsDir` in
 * dry-run, each on its own engine. Never throws for bad input: an unreadable tests directory is an
 * `unreadable-file` problem, a test file with problems runs none of its cases.
 */
export async function runFlowTests(options: FlowTestOptions): Promise<FlowTestRun> {
  const cwd = process.cwd();
  const display = (path: string) => relative(cwd, path) || path;
  const { flows, problems } = loadFlowDirectory(options.flowsDir, options.registry, cwd);
  const results: FlowTestCaseResult[] = [];
  let files: string[];
  try {
    files = listTestFiles(options.testsDir);
  } catch (err) {
    problems.push({
      file: display(options.testsDir),
      line: 1,
      col: 1,
      path: [],
      code: 'unreadable-file',
      message: `cannot read the tests directory: ${(err as Error).message}`,
    });
    return { results, problems };
  }
  for (const path of files) {
    const { parsed, problems: fileProblems } = readTestFile(path, display(path), flows);
    problems.push(...fileProblems);
    if (!parsed) continue;
    for (const testCase of parsed.spec.cases) {
      if (options.filter && !testCase.name.includes(options.filter)) continue;
      const started = performance.now();
      const outcome = await runCase(parsed.flow, testCase, {
        flows,
        registry: options.registry,
        services: options.services,
        env: options.env,
      });
      const failures =
        outcome.kind === 'rejected'
          ? [`start: expected the execution to start got an error: ${outcome.message}`]
          : expectationFailures(testCase.expect, outcome.record, outcome.finished, outcome.timeoutMs);
      results.push({ file: parsed.file, name: testCase.name, passed: failures.length === 0, failures, ms: performance.now() - started });
    }
  }
  return { results, problems };
}
