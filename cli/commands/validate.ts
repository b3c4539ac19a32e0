import type { Command } from 'commander';

/**
 * `leadflow validate [DIR]`: loads every flow of the directory and prints each problem as
 * FILE:LINE:COL message; exits 1 when there is any, else reports how many flows are valid on stderr.
 */
export function registerValidate(program: Command): void {
  program
    .command('validate')
    .description('validate every flow in DIR; prints FILE:LINE:COL message per problem; exit 1 when any')
    .argument('[dir]', 'flows directory (default: $LEADFLOW_FLOWS_DIR or ./flows)')
    .action(async (dir?: string) => {
      const [{ formatProblem }, { flowsDirectory, loadFlows }] = await Promise.all([
        import('../../engine/load/yaml-source.js'),
        import('../host.js'),
      ]);
      const loaded = loadFlows(flowsDirectory(dir));
      for (const problem of loaded.problems) process.stdout.write(`${formatProblem(problem)}\n`);
      if (loaded.problems.length > 0) {
        process.stderr.write(`${loaded.problems.length} problem(s)\n`);
        process.exitCode = 1;
        return;
      }
      process.stderr.write(`${loaded.flows.size} flow(s) valid in ${loaded.dir}\n`);
    });
}
