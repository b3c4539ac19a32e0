import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { TriggerInput } from '../../engine/engine-options.js';
import type { Logger } from '../../engine/logger.js';
import type { ExecutionRecord, JsonValue, LoadedFlow } from '../../engine/types.js';
import type { Runtime } from '../runtime.js';
import { UsageError } from '../usage-error.js';

/** The JSON in `file` (a `--payload`); an unreadable file or invalid JSON is a UsageError. */
export function readPayload(file: string): JsonValue {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read payload ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    throw new UsageError(`payload ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * The trigger input of a payload for a flow whose main route is a gateway provider's (its auth mode
 * is a provider's, e.g. `instance-token`): authenticated by the provider's `accept` as over HTTP
 * (the shared secret is not asked for; a signature is checked over the file's bytes), checked
 * against its event schema, and holding exactly one event. Undefined for any other flow.
 */
async function gatewayInput(
  flow: LoadedFlow,
  file: string | undefined,
  body: JsonValue,
  runtime: Runtime,
): Promise<TriggerInput | undefined> {
  const [{ gatewayProviders }, { schemaProblems }] = await Promise.all([
    import('../../adapters/gateway/providers.js'),
    import('../../engine/run/param-validator.js'),
  ]);
  const webhook = flow.trigger.webhook;
  const inbound = webhook && gatewayProviders.inbound().find((p) => p.authMode === webhook.auth);
  if (!webhook || !inbound || file === undefined) return undefined;
  const raw = readFileSync(file);
  const accepted = await inbound.accept({ header: () => undefined, query: {}, raw, body }, runtime.inboundInstances);
  const route = `${webhook.method} ${webhook.path}`;
  if ('denied' in accepted)
    throw new UsageError(`the payload is refused by ${route} (auth ${webhook.auth}: ${accepted.denied}; it would answer 401)`);
  if (accepted.events.length !== 1)
    throw new UsageError(`the payload holds ${accepted.events.length} message events for ${route}; \`leadflow run\` takes one`);
  const [event] = accepted.events;
  const problems = inbound.eventSchema ? schemaProblems(inbound.eventSchema, event!.body) : [];
  if (problems.length > 0)
    throw new UsageError(`payload is not a ${inbound.provider} event:\n${problems.map((d) => `  ${d.path}: ${d.message}`).join('\n')}`);
  const { instance } = event!;
  return { body: event!.body, auth: { instance_id: instance.id, clinica_id: instance.clinica_id, provider: instance.provider } };
}

/** Exit status of a finished execution: 0 success or stopped on purpose, 1 otherwise. */
export function exitCodeOf(record: ExecutionRecord): number {
  return record.status === 'success' || record.status === 'stopped' ? 0 : 1;
}

/** What `leadflow run` was given. */
interface RunOptions {
  payload?: string;
  dryRun?: boolean;
  json?: boolean;
  flows?: string;
}

/**
 * `leadflow run FLOW --payload FILE [--dry-run] [--json] [--flows DIR]`: runs one flow once with the
 * file as the webhook body (a schedule trigger: once, for a tick now, no payload needed) and prints
 * its trace. Exits 0 when the execution succeeded or stopped on purpose, 1 otherwise, 2 on a usage
 * error (unknown flow, unreadable or refused payload).
 */
export function registerRun(program: Command): void {
  program
    .command('run')
    .description(
      'run one flow once with FILE as the webhook body and print a step-by-step trace (a flow with a schedule trigger: once, for a tick now)',
    )
    .argument('<flow>', 'flow name (or path of its YAML file)')
    .option('--payload <file>', 'JSON file used as the trigger body (required unless the flow has a schedule trigger)')
    .option('--dry-run', 'record outbound calls instead of making them; roll database changes back')
    .option('--json', 'print exactly one JSON object on stdout (logs go to stderr)')
    .option('--flows <dir>', 'flows directory (default: $LEADFLOW_FLOWS_DIR or ./flows)')
    .action(runFlowOnce);
}

/** The action of `leadflow run`: loads the flows, builds the trigger input, runs the flow and prints the trace. */
async function runFlowOnce(flowArg: string, opts: RunOptions): Promise<void> {
  const [{ scheduleTriggerValue }, { flowsDirectory, loadValidFlows, pickFlow }, { createLogger }, { openRuntime }] = await Promise.all([
    import('../../engine/triggers/schedule.js'),
    import('../host.js'),
    import('../logger.js'),
    import('../runtime.js'),
  ]);
  const loaded = loadValidFlows(flowsDirectory(opts.flows));
  const flow = pickFlow(loaded, flowArg);
  const schedule = flow.trigger.schedule;
  if (opts.payload === undefined && !schedule)
    throw new UsageError("required option '--payload <file>' not specified (only a flow with a schedule trigger runs without one)");
  const body = opts.payload === undefined ? {} : readPayload(opts.payload);
  const logger = createLogger({ toStderr: true, level: 'warn' });
  const runtime = await openRuntime({ logger, migrate: true });
  // A gateway provider's route: the payload is authenticated as over HTTP (e.g. the instance
  // token: checked, handed over as trigger.auth, recorded as "***"), looked up before a dry run's
  // transaction opens. A schedule trigger: one run for a tick now, recorded as `trigger.schedule`
  // as a real tick is.
  let input: TriggerInput = { body, ...(schedule ? { schedule: scheduleTriggerValue(schedule, Date.now(), false) } : {}) };
  try {
    input = (await gatewayInput(flow, opts.payload, body, runtime)) ?? input;
  } catch (err) {
    await runtime.close();
    throw err;
  }
  await runAndPrint({ flows: loaded.flows, flow, input, runtime, logger, opts });
}

/**
 * Runs `flow` once with `input` on an engine of its own, prints the trace (or the JSON) and sets the
 * exit code; closes the runtime at the end. A dry run works in a transaction rolled back at the
 * end, and is kept in memory only.
 */
async function runAndPrint(run: {
  flows: Map<string, LoadedFlow>;
  flow: LoadedFlow;
  input: TriggerInput;
  runtime: Runtime;
  logger: Logger;
  opts: RunOptions;
}): Promise<void> {
  const { flow, runtime, opts } = run;
  const [
    { InputValidationError },
    { createEngine },
    { MemoryExecutionStore },
    { printTrace, traceJson },
    { MemoryKeyValue },
    { withModelDefaults },
  ] = await Promise.all([
    import('../../engine/errors/input-validation-error.js'),
    import('../host.js'),
    import('../../engine/store/memory-store.js'),
    import('../trace.js'),
    import('../../adapters/kv/memory-key-value.js'),
    import('../../adapters/ai/model-config.js'),
  ]);
  const scope = opts.dryRun ? await runtime.db.rollbackScope() : undefined;
  const engine = createEngine(run.flows, run.logger, {
    env: withModelDefaults(process.env),
    // The instance directory must read through the same transaction: on SQLite the open
    // transaction holds the only connection, so a lookup outside it would wait forever.
    // A dry run's buffers, dedupe marks, locks and erasures stay in a scratch store of its own.
    services: {
      ...runtime.services,
      ...(scope ? { db: scope.db, instances: { get: (id: number) => scope.db.instanceById(id) }, kv: new MemoryKeyValue() } : {}),
    },
    store: scope ? new MemoryExecutionStore() : runtime.store,
  });
  await engine.startScheduler();
  try {
    let handle;
    try {
      handle = await engine.start(flow.name, run.input, { dryRun: opts.dryRun ?? false });
    } catch (err) {
      if (err instanceof InputValidationError) {
        throw new UsageError(
          `payload does not match the input of flow "${flow.name}":\n${err.details.map((d) => `  ${d.path}: ${d.message}`).join('\n')}`,
        );
      }
      throw err;
    }
    if (!opts.json) process.stderr.write(`execution ${handle.id} of flow ${flow.name}${opts.dryRun ? ' (dry run)' : ''}\n`);
    const record = await engine.waitForEnd(handle.id);
    if (opts.json) process.stdout.write(`${JSON.stringify(traceJson(record))}\n`);
    else printTrace(record, process.stdout);
    process.exitCode = exitCodeOf(record);
  } finally {
    await engine.shutdown();
    await scope?.rollback();
    await runtime.close();
  }
}
