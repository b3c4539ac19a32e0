import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { flowsDirectory } from '../flows-directory.js';

/**
 * `leadflow schema [--write | --check]`: the flow JSON Schema built from the node definitions, printed;
 * `--write` writes it to <flows dir>/flow.schema.json; `--check` exits 1 when that file is not current.
 */
export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('print the flow JSON Schema generated from the node definitions (--write: update flows/flow.schema.json)')
    .option('--write', 'write it to <flows dir>/flow.schema.json instead of printing it')
    .option('--check', 'exit 1 when <flows dir>/flow.schema.json is not current')
    .action(async (opts: { write?: boolean; check?: boolean }) => {
      const [{ renderFlowSchema }, { defaultRegistry }] = await Promise.all([
        import('../../engine/flow-schema.js'),
        import('../../nodes/index.js'),
      ]);
      const text = renderFlowSchema(defaultRegistry());
      const file = join(flowsDirectory(), 'flow.schema.json');
      if (opts.check) {
        let current = '';
        try {
          current = readFileSync(file, 'utf8');
        } catch {
          /* missing counts as stale */
        }
        if (current !== text) {
          process.stderr.write(`${file} is stale: run \`npm run schema\`\n`);
          process.exitCode = 1;
        }
        return;
      }
      if (opts.write) {
        writeFileSync(file, text);
        process.stderr.write(`wrote ${file}\n`);
        return;
      }
      process.stdout.write(text);
    });
}
