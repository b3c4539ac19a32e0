// `leadflow executions list | show ID | replay ID | cancel ID`: the execution history in the database
// (cancel: ./executions-cancel.ts).
import type { Command } from 'commander';
// Registration imports only what parses arguments (statuses, the version pattern, UsageError); the
// database, engine and nodes load inside the actions (a replay: cli/replay-execution.ts).
import type { Database } from '../../adapters/db/database.js';
import type { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { FLOW_VERSION_PREFIX } from '../../engine/store/execution-store.js';
import { type ExecutionSummary, listExecutionSummaries } from '../../engine/store/execution-summary.js';
import { EXECUTION_STATUSES, isExecutionStatus } from '../../engine/statuses.js';
import type { ExecutionRecord, ExecutionStatus, JsonValue } from '../../engine/types.js';
import { flowsDirectory } from '../flows-directory.js';
import { UsageError } from '../usage-error.js';
import { openMigratedDatabase } from './migrate.js';
import { exitCodeOf } from './run.js';
import { registerExecutionsCancel } from './executions-cancel.js';

/** Default and largest `list --limit`. */
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 1000;

/** Wall time from creation to finish (or to the last update while unfinished), ms. */
function durationMs(r: Pick<ExecutionRecord, 'created_at' | 'updated_at' | 'finished_at'>): number {
  return Date.parse(r.finished_at ?? r.updated_at) - Date.parse(r.created_at);
}

/** A table of executions, newest first: id, created, flow, status, steps, duration. */
export function formatExecutionList(summaries: ExecutionSummary[]): string {
  if (summaries.length === 0) return 'no executions\n';
  const rows = summaries.map((r) => [
    r.id,
    r.created_at,
    r.flow,
    `${r.status}${r.dry_run ? ' (dry run)' : ''}`,
    String(r.step_count),
    `${durationMs(r)} ms`,
  ]);
  const header = ['ID', 'CREATED', 'FLOW', 'STATUS', 'STEPS', 'DURATION'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  return `${[header, ...rows].map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n')}\n`;
}

function json(value: JsonValue | undefined): string {
  return value === undefined ? '(none)' : JSON.stringify(value);
}

/** Everything recorded about one execution: header, trigger, each step's input, output, error and timing, outbound calls. */
export function formatExecutionDetail(r: ExecutionRecord): string {
  const lines = [
    `execution ${r.id}`,
    `flow      ${r.flow}`,
    `version   ${r.flow_version ?? '- (recorded before flow versions)'}`,
    `status    ${r.status}${r.stop_reason !== undefined ? ` (${r.stop_reason})` : ''}${r.error ? `: ${r.error.message}${r.error.step ? ` [step ${r.error.step}]` : ''}` : ''}`,
    `created   ${r.created_at}`,
    `finished  ${r.finished_at ?? '-'}${r.finished_at ? ` (${durationMs(r)} ms)` : ''}`,
  ];
  if (r.wake_at !== undefined) lines.push(`wakes at  ${new Date(r.wake_at).toISOString()}`);
  if (r.dry_run) lines.push('dry run   yes');
  if (r.parent_id) lines.push(`parent    ${r.parent_id}`);
  if (r.concurrency_key !== undefined) lines.push(`key       ${r.concurrency_key}`);
  if (r.replaced_by) lines.push(`replaced  by ${r.replaced_by}`);
  lines.push(`trigger   ${json(r.trigger as JsonValue)}`);
  lines.push(`steps (${r.steps.length}):`);
  for (const s of r.steps) {
    lines.push(`  ${s.key}  ${s.type}  ${s.status}  ${s.ms} ms  attempt ${s.attempt}  started ${s.started_at}`);
    lines.push(`    input:  ${json(s.params)}`);
    if (s.output !== undefined) lines.push(`    output: ${json(s.output)}`);
    if (s.error)
      lines.push(
        `    error:  ${s.error.name}: ${s.error.message}${s.error.status !== undefined ? ` (status ${s.error.status})` : ''}${s.error.body !== undefined ? ` ${json(s.error.body)}` : ''}`,
      );
    if (s.state) lines.push(`    state:  ${json(s.state)}`);
  }
  if (r.outbound.length > 0) {
    lines.push(`outbound calls (${r.outbound.length}):`);
    for (const c of r.outbound)
      lines.push(
        `  [${c.step}] ${c.kind} ${c.method ?? ''} ${c.url ?? ''}${c.status !== undefined ? ` -> ${c.status}` : ''}${c.performed ? '' : ' (not performed)'}${c.body !== undefined ? ` ${json(c.body)}` : ''}`,
      );
  }
  if (r.response) lines.push(`response  ${r.response.status} ${json(r.response.body)}`);
  if (r.output !== undefined) lines.push(`output    ${json(r.output)}`);
  return `${lines.join('\n')}\n`;
}

/** The record with this id or unique id prefix; a UsageError otherwise. */
export async function findExecution(store: DbExecutionStore, idOrPrefix: string): Promise<ExecutionRecord> {
  const id = await store.resolveId(idOrPrefix);
  const record = id ? await store.get(id) : undefined;
  if (!record) throw new UsageError(`no execution ${idOrPrefix} (or the prefix matches several)`);
  return record;
}

function parseLimit(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) throw new UsageError(`--limit must be an integer from 1 to ${MAX_LIMIT}`);
  return n;
}

async function withStore<T>(fn: (store: DbExecutionStore, db: Database) => Promise<T>): Promise<T> {
  const { DbExecutionStore } = await import('../../adapters/db/execution-store/index.js');
  const db = await openMigratedDatabase();
  try {
    return await fn(new DbExecutionStore(db), db);
  } finally {
    await db.close();
  }
}

/**
 * `leadflow executions list | show ID | replay ID | cancel ID`: the execution history in the
 * database (LEADFLOW_DATA_DIR or DATABASE_URL, migrated first). An unknown id, or a prefix matching
 * several, is a UsageError (exit 2); a replay exits like `run` (0 success or stopped, else 1).
 */
export function registerExecutions(program: Command): void {
  const executions = program.command('executions').description('execution history in the database: list, show ID, replay ID, cancel ID');
  registerList(executions);
  registerShow(executions);
  registerReplay(executions);
  registerExecutionsCancel(executions);
}

/** `executions list [--limit N] [--flow NAME] [--status STATUS] [--version HASH] [--json]`. */
function registerList(executions: Command): void {
  executions
    .command('list')
    .description('list executions, newest first')
    .option('--limit <n>', `how many (1 to ${MAX_LIMIT})`, parseLimit, DEFAULT_LIMIT)
    .option('--flow <name>', 'only executions of this flow')
    .option('--status <status>', `only executions in this status (${EXECUTION_STATUSES.join(', ')})`)
    .option('--version <hash>', 'only executions on this flow version (as `executions show` prints it, or a prefix of it)')
    .option('--json', 'print the records as one JSON array')
    .action(async (opts: { limit: number; flow?: string; status?: string; version?: string; json?: boolean }) => {
      if (opts.status !== undefined && !isExecutionStatus(opts.status))
        throw new UsageError(`--status must be one of ${EXECUTION_STATUSES.join(', ')}`);
      if (opts.version !== undefined && !FLOW_VERSION_PREFIX.test(opts.version))
        throw new UsageError('--version must be 1 to 64 lower-case hex digits (a flow version or a prefix of it)');
      const options = { limit: opts.limit, flow: opts.flow, status: opts.status as ExecutionStatus | undefined, version: opts.version };
      // --json prints the whole records; the table only their summaries, read without the payloads.
      const output = await withStore(async (store) =>
        opts.json ? `${JSON.stringify(await store.list(options))}\n` : formatExecutionList(await listExecutionSummaries(store, options)),
      );
      process.stdout.write(output);
    });
}

/** `executions show ID [--json]`: one execution, as a detail or as the whole record in JSON. */
function registerShow(executions: Command): void {
  executions
    .command('show')
    .description('show one execution: trigger, and per step its input, output, error and timing')
    .argument('<id>', 'execution id (or a unique prefix of it)')
    .option('--json', 'print the whole record as JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      const record = await withStore((store) => findExecution(store, id));
      process.stdout.write(opts.json ? `${JSON.stringify(record, null, 2)}\n` : formatExecutionDetail(record));
    });
}

/** `executions replay ID [--dry-run] [--json] [--flows DIR]`: cli/replay-execution.ts, then the trace. */
function registerReplay(executions: Command): void {
  executions
    .command('replay')
    .description('run the flow of an execution again with its recorded trigger payload and print the trace')
    .argument('<id>', 'execution id (or a unique prefix of it)')
    .option('--dry-run', 'record outbound calls instead of making them; roll database changes back')
    .option('--json', 'print exactly one JSON object on stdout (logs go to stderr)')
    .option('--flows <dir>', 'flows directory (default: $LEADFLOW_FLOWS_DIR or ./flows)')
    .action(async (id: string, opts: { dryRun?: boolean; json?: boolean; flows?: string }) => {
      const [{ loadValidFlows }, { createLogger }, { openRuntime }, { printTrace, traceJson }, { replayExecution }] = await Promise.all([
        import('../host.js'),
        import('../logger.js'),
        import('../runtime.js'),
        import('../trace.js'),
        import('../replay-execution.js'),
      ]);
      const loaded = loadValidFlows(flowsDirectory(opts.flows));
      const logger = createLogger({ toStderr: true, level: 'warn' });
      const runtime = await openRuntime({ logger, migrate: true });
      try {
        const { db } = runtime;
        const store = runtime.store;
        const original = await findExecution(store, id);
        const dryRun = opts.dryRun ?? false;
        if (!opts.json) process.stderr.write(`replaying execution ${original.id} of flow ${original.flow}${dryRun ? ' (dry run)' : ''}\n`);
        const record = await replayExecution({ record: original, flows: loaded.flows, db, dryRun, logger, services: runtime.services });
        if (opts.json) process.stdout.write(`${JSON.stringify({ ...traceJson(record), replay_of: original.id })}\n`);
        else {
          process.stderr.write(`execution ${record.id}\n`);
          printTrace(record, process.stdout);
        }
        process.exitCode = exitCodeOf(record);
      } finally {
        await runtime.close();
      }
    });
}
