import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { flowsDirectory } from '../flows-directory.js';

/**
 * `leadflow test [DIR] [--flows DIR] [--filter TEXT]`: runs the flow test cases under DIR (default
 * <flows dir>/tests), one `ok`/`FAIL` line per case; exits 1 when a case fails or a file has a problem.
 * The cases run without a database, AI provider or gateway (steps that need them are mocked), on an
 * in-process key-value store of the run's own, so grouping, dedupe and locks run as in the embedded mode.
 */
export function registerTest(program: Command): void {
  program
    .command('test')
    .description('run the flow test cases (YAML: payload, mocks, assertions) under DIR')
    .argument('[dir]', 'test cases directory (default: <flows dir>/tests)')
    .option('--flows <dir>', 'flows directory (default: $LEADFLOW_FLOWS_DIR or ./flows)')
    .option('--filter <text>', 'only cases whose name contains this text')
    .action(async (dir: string | undefined, opts: { flows?: string; filter?: string }) => {
      const [{ formatProblem }, { runFlowTests }, { defaultRegistry }, { gatewayProviders }, { withModelDefaults }, { MemoryKeyValue }] =
        await Promise.all([
          import('../../engine/load/yaml-source.js'),
          import('../../engine/testing/flow-tests.js'),
          import('../../nodes/index.js'),
          import('../../adapters/gateway/providers.js'),
          import('../../adapters/ai/model-config.js'),
          import('../../adapters/kv/memory-key-value.js'),
        ]);
      const flowsDir = flowsDirectory(opts.flows);
      const testsDir = dir ?? join(flowsDir, 'tests');
      const run = await runFlowTests({
        testsDir,
        flowsDir,
        registry: defaultRegistry(),
        filter: opts.filter,
        services: { gatewayProviders, kv: new MemoryKeyValue() },
        env: withModelDefaults(process.env),
      });
      for (const problem of run.problems) process.stdout.write(`${formatProblem(problem)}\n`);
      for (const r of run.results) {
        process.stdout.write(
          `${r.passed ? 'ok  ' : 'FAIL'} ${relative(process.cwd(), r.file) || r.file} > ${r.name} (${Math.round(r.ms)} ms)\n`,
        );
        for (const failure of r.failures) process.stdout.write(`       ${failure}\n`);
      }
      const passed = run.results.filter((r) => r.passed).length;
      const failed = run.results.length - passed;
      process.stdout.write(`${passed} passed, ${failed} failed\n`);
      if (failed > 0 || run.problems.length > 0) process.exitCode = 1;
    });
}
