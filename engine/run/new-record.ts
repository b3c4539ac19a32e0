// A new execution's record, as Engine.start makes it: the input validated, credentials dropped from
// the trigger, the flow's initial vars evaluated, its key found; then stored (with a key, replacing
// the flow's unfinished execution of that key).
import { randomUUID } from 'node:crypto';
import type { StartOptions, TriggerInput } from '../engine-options.js';
import { InputValidationError } from '../errors/input-validation-error.js';
import { assertRecordableDepth } from '../errors/value-too-deep-error.js';
import { evaluateValue } from '../expressions.js';
import type { ExecutionStore, Lease } from '../store/execution-store.js';
import { GENERIC_SECRET_HEADERS } from '../triggers/auth-modes.js';
import type { ExecutionRecord, JsonObject, JsonValue, LoadedFlow } from '../types.js';
import { executionKey } from './execution-keys.js';
import type { FlowVersions } from './flow-versions.js';
import { isoNow } from './iso-now.js';
import { schemaProblems } from './param-validator.js';

/** Header names never stored with an execution from any entry (credentials); the webhook app also drops its auth modes' (WebhookAuthModes). */
const SECRET_HEADERS = new Set(GENERIC_SECRET_HEADERS);

/** What building a new record needs of the engine. */
export interface NewRecordHost {
  /** The served flow of that name, or undefined. */
  flow(name: string): LoadedFlow | undefined;
  /** The flow's allow-listed `env.*` values. */
  flowEnv(flow: LoadedFlow): Record<string, JsonValue>;
  /** Where the flow's version is stored before an execution on it is. */
  readonly versions: FlowVersions;
}

/** The trigger as recorded: body, headers without credentials, query without `secret`, auth, schedule and replay_of when given. */
function recordedTrigger(input: TriggerInput): JsonObject {
  return {
    body: input.body,
    headers: Object.fromEntries(Object.entries(input.headers ?? {}).filter(([k]) => !SECRET_HEADERS.has(k.toLowerCase()))),
    query: Object.fromEntries(Object.entries(input.query ?? {}).filter(([k]) => k !== 'secret')),
    ...(input.auth ? { auth: input.auth } : {}),
    ...(input.schedule ? { schedule: input.schedule } : {}),
    ...(input.replay_of ? { replay_of: input.replay_of } : {}),
  };
}

/**
 * A new record of the flow (status `running`): input validated, credentials dropped from the
 * trigger, initial vars evaluated, key found (executionKey), the flow's version stored. Throws when
 * the flow is unknown, InputValidationError when the body fails the flow's input schema; rejects
 * when the key cannot be evaluated or the store cannot be reached.
 */
export async function newRecord(
  host: NewRecordHost,
  flowName: string,
  input: TriggerInput,
  options: StartOptions,
): Promise<ExecutionRecord> {
  const flow = host.flow(flowName);
  if (!flow) throw new Error(`unknown flow "${flowName}"`);
  // Before anything walks it recursively (the schema, the record's copies and JSON text).
  assertRecordableDepth(input.body, 'trigger body');
  if (flow.trigger.input) {
    const problems = schemaProblems(flow.trigger.input, input.body);
    if (problems.length > 0) throw new InputValidationError(flow.name, problems);
  }
  const now = isoNow();
  const trigger = recordedTrigger(input);
  const record: ExecutionRecord = {
    id: options.id ?? randomUUID(),
    flow: flow.name,
    status: 'running',
    trigger,
    vars: {},
    steps: [],
    outbound: [],
    dry_run: options.dryRun ?? false,
    flow_version: flow.sourceHash,
    created_at: now,
    updated_at: now,
    ...(options.parentId ? { parent_id: options.parentId } : {}),
  };
  const env = host.flowEnv(flow);
  const scope = {
    trigger,
    env,
    files: flow.files,
    execution: { id: record.id, flow: flow.name, started_at: now },
    now,
    steps: {},
    vars: {},
  };
  const vars = await evaluateValue(flow.compiledVars, scope);
  record.vars = (vars && typeof vars === 'object' && !Array.isArray(vars) ? vars : {}) as JsonObject;
  const key = await executionKey(flow, { ...scope, vars: record.vars }, options.key);
  if (key !== undefined) record.concurrency_key = key;
  await host.versions.store(flow);
  return record;
}

/**
 * Stores a new record (holding `lease` when given); with a key, cancelling the flow's unfinished
 * one of that key in the same step (ExecutionStore.insertReplacing). Returns the ids cancelled.
 */
export async function insertNew(store: ExecutionStore, record: ExecutionRecord, lease?: Lease): Promise<string[]> {
  if (record.concurrency_key !== undefined) return store.insertReplacing(record, lease);
  if (lease) await store.insertLeased(record, lease);
  else await store.insert(record);
  return [];
}
