// `leadflow`: the command line. Each command lives in cli/commands/<name>.ts, whose registration
// (name, arguments, options, help) imports nothing heavy: a command loads its implementation (engine,
// database, queue, AI SDKs, HTTP server) inside its action, so `--help`, `--version` and the commands
// that need no database stay fast. test/cli/lazy-imports.test.ts checks it.
import { Command, CommanderError } from 'commander';
import { registerChat } from './commands/chat.js';
import { registerExecutions } from './commands/executions.js';
import { registerGraph } from './commands/graph.js';
import { registerMigrate } from './commands/migrate.js';
import { registerSeed } from './commands/seed.js';
import { registerNodes } from './commands/nodes.js';
import { registerRun } from './commands/run.js';
import { registerSchema } from './commands/schema.js';
import { registerServe } from './commands/serve.js';
import { registerTest } from './commands/test.js';
import { registerValidate } from './commands/validate.js';
import { registerUsers } from './commands/users.js';
import { registerWorker } from './commands/worker.js';
import { UsageError } from './usage-error.js';
import { packageVersion } from './version.js';

const program = new Command();
program
  .name('leadflow')
  .description('LeadFlow: webhook-driven YAML flows for lead intake, AI conversation and human handoff')
  .version(packageVersion(), '-V, --version', 'print the version')
  // Program options only before the command: `executions list --version <hash>` is that command's own option.
  .enablePositionalOptions()
  .showHelpAfterError()
  .exitOverride();

registerServe(program);
registerWorker(program);
registerValidate(program);
registerRun(program);
registerGraph(program);
registerNodes(program);
registerTest(program);
registerSchema(program);
registerMigrate(program);
registerSeed(program);
registerExecutions(program);
registerChat(program);
registerUsers(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    process.exitCode = err.exitCode === 0 ? 0 : 2;
  } else if (err instanceof UsageError) {
    process.stderr.write(`leadflow: ${err.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`leadflow: ${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 1;
  }
}
