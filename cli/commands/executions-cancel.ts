// `leadflow executions cancel ID [--reason TEXT] [--json]`: cancels a running or waiting execution in
// the database, as `POST /admin/executions/:id/cancel` does (Engine.cancelExecution): a waiting one is
// never resumed, a running one ends before its next step in whichever process drives it (at its next
// lease renewal, a third of LEADFLOW_LEASE_MS). An execution that awaits the cancelled one
// (`call-flow`) is woken here, in this process, on the flow version it recorded; if it waits again,
// `serve` or `worker` resume it from the database (their sweep, each minute).
//
// Exit codes: 0 cancelled; 1 not running or waiting (its status on stderr); 2 bad usage (a `--reason`
// that is not 1 to 200 characters, no execution with that id or unique prefix).
import type { Command } from 'commander';
import type { Logger } from '../../engine/logger.js';
import type { CancelExecutionResponse } from '../../engine/triggers/admin-api-types.js';
import type { LoadedFlow } from '../../engine/types.js';
import type { LoadedFlows } from '../host.js';
import { flowsDirectory } from '../flows-directory.js';
import { UsageError } from '../usage-error.js';

/** Longest `--reason`, characters (as the admin API's). */
const MAX_REASON_LENGTH = 200;
const DEFAULT_REASON = 'cancelled by an operator';

function parseReason(text: string): string {
  if (text.length < 1 || text.length > MAX_REASON_LENGTH)
    throw new UsageError(`--reason must be a text of 1 to ${MAX_REASON_LENGTH} characters`);
  return text;
}

/** The flows of `dir` that load (a parent resumes on its recorded version anyway); none when the directory is missing. */
function flowsForParents(dir: string, loadFlows: (dir: string) => LoadedFlows): Map<string, LoadedFlow> {
  try {
    return loadFlows(dir).flows;
  } catch (err) {
    if (err instanceof UsageError) return new Map();
    throw err;
  }
}

interface CancelOptions {
  reason: string;
  json?: boolean;
  flows?: string;
}

async function cancelCommand(idOrPrefix: string, opts: CancelOptions, logger: Logger): Promise<void> {
  const [{ InProcessScheduler }, { createEngine, loadFlows }, { openRuntime }] = await Promise.all([
    import('../../engine/scheduler/in-process-scheduler.js'),
    import('../host.js'),
    import('../runtime.js'),
  ]);
  const runtime = await openRuntime({ logger, migrate: true });
  try {
    const found = await runtime.store.resolveId(idOrPrefix);
    const original = found ? await runtime.store.get(found) : undefined;
    if (!original) throw new UsageError(`no execution ${idOrPrefix} (or the prefix matches several)`);
    // Never started: schedules made by the cancel (the parent's wake) are done below, by hand.
    const scheduler = new InProcessScheduler();
    const flows = original.parent_id ? flowsForParents(flowsDirectory(opts.flows), loadFlows) : new Map<string, LoadedFlow>();
    const engine = createEngine(flows, logger, { services: runtime.services, store: runtime.store, scheduler });
    try {
      const outcome = await engine.cancelExecution(original.id, opts.reason);
      if (!outcome.cancelled) {
        const status = outcome.record?.status ?? 'gone';
        process.stderr.write(`leadflow: execution ${original.id} is ${status}: only a running or waiting execution can be cancelled\n`);
        process.exitCode = 1;
        return;
      }
      const answer: CancelExecutionResponse = { id: original.id, status: 'cancelled' };
      process.stdout.write(opts.json ? `${JSON.stringify(answer)}\n` : `cancelled execution ${original.id} (flow ${original.flow})\n`);
      const parent = outcome.record.parent_id;
      if (parent) {
        const woken = await engine.resume(parent);
        if (!opts.json && woken) process.stdout.write(`woke execution ${parent}, which awaited it: now ${woken.status}\n`);
      }
    } finally {
      await engine.shutdown();
    }
  } finally {
    await runtime.close();
  }
}

/** Adds `cancel` to the `executions` command. */
export function registerExecutionsCancel(executions: Command): void {
  executions
    .command('cancel')
    .description('cancel a running or waiting execution: a waiting one never resumes, a running one ends before its next step')
    .argument('<id>', 'execution id (or a unique prefix of it)')
    .option('--reason <text>', `why, stored as its stop reason (1 to ${MAX_REASON_LENGTH} characters)`, parseReason, DEFAULT_REASON)
    .option('--json', 'print {"id", "status": "cancelled"} as JSON')
    .option('--flows <dir>', 'flows directory, to wake an execution that awaits it (default: $LEADFLOW_FLOWS_DIR or ./flows)')
    .action(async (id: string, opts: CancelOptions) => {
      const { createLogger } = await import('../logger.js');
      await cancelCommand(id, opts, createLogger({ toStderr: true, level: 'warn' }));
    });
}
