// Shapes shared by the loader, the executor, the triggers and the node definitions.
// Everything an execution holds is plain JSON (JsonValue) so it can be stored, resumed and printed.
import type { Static, TSchema } from './typebox.js';

/** Any JSON value: what executions hold, store and print. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** A problem found while loading a flow file; printed as `file:line:col message`. Lines and columns start at 1. */
export interface LoadProblem {
  file: string;
  line: number;
  col: number;
  /** JSON path of the offending value inside the file, e.g. ['steps', 2, 'params', 'url']. */
  path: Array<string | number>;
  code: LoadProblemCode;
  message: string;
}

/**
 * What went wrong in a flow (or flow test) file; stable, printed in brackets by `leadflow validate`.
 * `unreadable-file`: the file (or directory) could not be read at all; `yaml-syntax`: it is not
 * valid YAML; `duplicate-flow`: a second file uses a flow name already loaded; `duplicate-route`: a
 * second flow serves a method and path already served; `unknown-flow`: a `call-flow` names a flow
 * that is not loaded; `unknown-step`: an expression, `on_error.goto`, mock or expectation names a
 * step the flow does not have.
 */
export type LoadProblemCode =
  | 'unreadable-file'
  | 'yaml-syntax'
  | 'unknown-node-type'
  | 'unknown-field'
  | 'missing-field'
  | 'wrong-type'
  | 'invalid-value'
  | 'bad-expression'
  | 'unknown-step'
  | 'duplicate-step-id'
  | 'unreachable-step'
  | 'duplicate-route'
  | 'duplicate-flow'
  | 'unknown-flow';

/** Retry policy of one step. Delays are milliseconds; omitted fields take RETRY_DEFAULTS (engine/load/defaults.ts). */
export interface RetryPolicy {
  /** Total attempts including the first; 1 means no retry. */
  attempts: number;
  /** Delay before the second attempt. */
  delay_ms: number;
  /** Each further delay is the previous one times this factor. */
  backoff: number;
  /** Upper bound of any single delay. */
  max_delay_ms: number;
  /** Fraction (0..1) of each delay added or removed at random. */
  jitter: number;
  /** Expression over `error` (name, message, status, body, code); retry only when truthy. Default: always. */
  when?: string;
}

/** What a step's failure (after its retries) does: `fail` the execution (default), `continue`, or `goto` a step of the same list. */
export type OnError = 'fail' | 'continue' | { goto: string };

/** One step as written in YAML, after validation. Children hold nested step lists of control nodes. */
export interface StepDefinition {
  id: string;
  type: string;
  name?: string;
  params: Record<string, unknown>;
  retry?: RetryPolicy;
  on_error: OnError;
  /** Nested step lists keyed by slot name: `then`/`else`, `do`, `cases.<value>`, `branches.<name>`, `default`. */
  children: Record<string, StepDefinition[]>;
}

/** A webhook authentication mode's name: `none`, `secret`, or one the host registers (WebhookAuthModes). */
export type AuthMode = string;

/** One route of a webhook: method, path and the auth mode that checks its requests. */
export interface WebhookRoute {
  method: 'POST' | 'PUT' | 'PATCH' | 'GET' | 'DELETE';
  path: string;
  auth: AuthMode;
}

/**
 * A flow's webhook as loaded: defaults filled in (POST, `secret`, RESPOND_DEFAULTS). Its own
 * method, path and auth are the main route; `routes` are more routes to the same flow (e.g. one
 * per sender, each with the auth mode that sender's requests need), answered the same way.
 */
export interface WebhookTrigger extends WebhookRoute {
  /**
   * More routes that start this flow, each with its own auth mode (default: the webhook's `auth`)
   * and method (default POST). Recorded like the main route (`trigger.body`, `headers`, `query`,
   * `auth`). Absent or empty: the main route only. See webhookRoutes.
   */
  routes?: WebhookRoute[];
  /**
   * `immediately`: answer at once with status/body; `step`: answer when a `respond` step runs, waiting
   * at most `timeout_ms`. What the YAML leaves out comes from RESPOND_DEFAULTS (engine/load/defaults.ts).
   */
  respond: { mode: 'immediately'; status: number; body: unknown } | { mode: 'step'; timeout_ms: number };
}

/** Every route of a webhook: the main one first, then `routes` in the order the flow lists them. */
export function webhookRoutes(webhook: WebhookTrigger): WebhookRoute[] {
  return [{ method: webhook.method, path: webhook.path, auth: webhook.auth }, ...(webhook.routes ?? [])];
}

/**
 * A flow's schedule as loaded: a cron pattern (five fields, or six with seconds first; what croner
 * accepts) read in an IANA time zone (default SCHEDULE_DEFAULTS.timezone, engine/load/defaults.ts).
 * Each tick starts one execution, once across every process (engine/triggers/schedule-runner.ts).
 */
export interface ScheduleTrigger {
  cron: string;
  timezone: string;
}

/** A flow as written in its file, after validation and defaults. */
export interface FlowDefinition {
  name: string;
  description?: string;
  file: string;
  trigger: {
    webhook?: WebhookTrigger;
    /** Ticks that start the flow; a flow has a webhook or a schedule, not both. */
    schedule?: ScheduleTrigger;
    /** JSON Schema of the trigger body (webhook) or of the input (call-flow). */
    input?: Record<string, unknown>;
  };
  /** Allow-listed environment variables and their defaults; read as `env.NAME` in expressions. */
  env: Record<string, JsonValue>;
  /** Initial flow variables (`vars.NAME`), expressions allowed. */
  vars: Record<string, unknown>;
  /** Expression giving the flow's output (for call-flow); default: the output of the last top-level step. */
  output?: unknown;
  /** Figures this flow reports to the host's metrics (`metrics:`); empty when it declares none. */
  metrics: FlowMetric[];
  /** Singleton by key (`concurrency:`): absent when the flow declares none. */
  concurrency?: FlowConcurrency;
  steps: StepDefinition[];
}

/**
 * A flow's `concurrency:` block: every start of the flow (webhook, call-flow, flow.start) gets the
 * key `key` evaluates to, and with `mode: replace` (the only mode, the default) a start cancels the
 * flow's unfinished execution of the same key (status `cancelled`, `replaced_by` the new one), so at
 * most one execution per key is running or waiting.
 */
export interface FlowConcurrency {
  /** Expression (`{{ … }}`) over `trigger`, `vars`, `env`, `execution` and `now`; null or empty text: no key. */
  key: string;
  mode: 'replace';
}

/** A start of another flow made by a step (`flow.start`), recorded on the execution like an outbound call. */
export interface FlowStart {
  step: string;
  flow: string;
  /** The key it was started under (given by the step, or the started flow's `concurrency.key`). */
  key?: string;
  input: JsonValue;
  /** The started execution; null when only recorded (dry run, flow test case). */
  execution_id: string | null;
  performed: boolean;
}

/** A cancel made by a step (`flow.cancel`), recorded on the execution like an outbound call. */
export interface FlowCancel {
  step: string;
  flow: string;
  key: string;
  reason?: string;
  /** The execution cancelled; null when there was none or when only recorded (dry run). */
  cancelled: string | null;
  performed: boolean;
}

/** How NodeContext.startFlow starts a flow. */
export interface StartFlowOptions {
  /** Key of the new execution; default: the started flow's `concurrency.key`, evaluated. */
  key?: string;
  /** Id to give the new execution (a UUID); a start whose id is already stored is not made again. Default: a new one. */
  id?: string;
}

/** What NodeContext.startFlow did: the new execution, and the ones of the same flow and key it cancelled. */
export interface StartedFlow {
  /** Null when only recorded (dry run, flow test case). */
  execution_id: string | null;
  key: string | null;
  replaced: string[];
}

/**
 * A figure a flow declares for the host's metrics (Prometheus `GET /metrics`), observed once per
 * execution of the flow that ends normally (`success`, or `stopped` by a stop step). The host registers it under `name` as soon as the
 * engine is given the flow, so it is exposed (empty, or 0 for a counter) before its first observation.
 */
export interface FlowMetric {
  /**
   * Exposed metric name, e.g. `orders_checkout_seconds` ([a-zA-Z_:][a-zA-Z0-9_:]*); a counter's ends
   * in `_total` (Prometheus convention), e.g. `orders_cancelled_total`.
   */
  name: string;
  /**
   * `histogram`: each value is one observation (buckets, _sum, _count). `counter`: each value is
   * added to a running total (e.g. `1` to count executions, or an amount).
   */
  type: 'histogram' | 'counter';
  /** The metric's HELP text. */
  help: string;
  /**
   * Expression (`{{ … }}`) over `output`, `trigger`, `vars` and `execution` (id, flow, started_at) of
   * the finished execution. Both types take amounts: a value that is not a finite number of zero or
   * more (null, absent, text, an expression that fails) is not observed, and 0 adds nothing to a counter.
   */
  value: string;
  /** Upper bounds of a histogram's buckets, strictly ascending, in the value's unit; empty for a counter (which has none). */
  buckets: number[];
}

/** Where a child step list runs: foreach iterations get `item` and `index`, parallel branches their name. */
export interface ScopeBindings {
  item?: JsonValue;
  index?: number;
}

/** Call made to the outside world, recorded on the execution (and only recorded in dry-run). */
export interface OutboundCall {
  step: string;
  kind: string;
  method?: string;
  url?: string;
  headers?: Record<string, string>;
  body?: JsonValue;
  performed: boolean;
  status?: number;
}

/** What a node's `run` receives besides its resolved parameters. */
export interface NodeContext {
  readonly executionId: string;
  readonly flow: string;
  readonly stepId: string;
  /** 1-based attempt number of this step. */
  readonly attempt: number;
  /** True when outbound effects must be recorded instead of performed. */
  readonly dryRun: boolean;
  /** Aborted when the execution is cancelled or the process shuts down. */
  readonly signal: AbortSignal;
  /** State this step saved before suspending (see `suspend`); undefined on first entry. */
  readonly state: JsonObject | undefined;
  /** Services provided by the host (database, gateway, AI ...), keyed by name; a node declares the ones it needs (`NodeDefinition.services`). */
  readonly services: Record<string, unknown>;
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void;
  /** Records an outbound call; returns whether the caller may perform it (false in dry-run). */
  recordOutbound(call: Omit<OutboundCall, 'step' | 'performed'>): boolean;
  /** Runs a child step list of this step; resolves to the outputs of its steps keyed by id. */
  runChildren(slot: string, bindings?: ScopeBindings, scopeKey?: string): Promise<Record<string, JsonValue>>;
  /** Names of the child slots this step has in its definition. */
  childSlots(): string[];
  /** Suspends the execution until `wakeAt` (ms since epoch); `state` is handed back on resume. Never returns. */
  suspend(wakeAt: number, state: JsonObject): never;
  /**
   * Records how far this step got (`state`, handed back as `ctx.state` when the step runs again —
   * a retry, or a resume after a crash) and resolves once it is stored. For steps with several
   * outside effects, so a re-run skips the ones already done. Optional: absent in bare test contexts.
   */
  checkpoint?(state: JsonObject): Promise<void>;
  /**
   * When other executions of this flow were cut off in the middle of a step and nobody drives them
   * yet (their holder stopped renewing its lease: a process that died, here or on another machine):
   * the latest time, ms since epoch, by which they can all be taken over; null when there are none.
   * Asking also has them taken over as soon as their leases lapse. For steps that must not decide
   * before every message already accepted has caught up (the debounce's drain). Optional: absent in
   * bare test contexts and with stores without leases.
   */
  interruptedPeersUntil?(): Promise<number | null>;
  /** Ends the execution on purpose (status `stopped`). Never returns. */
  stop(reason: string): never;
  /** Merges values into the execution's `vars`. */
  setVars(values: JsonObject): void;
  /** Sends the webhook response now; the flow goes on. */
  respond(status: number, body: JsonValue, headers?: Record<string, string>): void;
  /** Runs another flow to completion (or suspends this one until it completes). */
  callFlow(flow: string, input: JsonValue): Promise<JsonValue>;
  /**
   * Starts another flow with `input` as its trigger body, without waiting for it; recorded on the
   * execution (`started_flows`) and, in a dry run, only recorded. Rejects when the flow is unknown or
   * the input fails its `trigger.input`. Optional: absent in bare test contexts.
   */
  startFlow?(flow: string, input: JsonValue, options?: StartFlowOptions): Promise<StartedFlow>;
  /**
   * Cancels the running or waiting execution of `flow` under `key` (status `cancelled`, `reason` as
   * its stop reason); resolves to its id, or null when there is none. Recorded on the execution
   * (`cancelled_flows`); in a dry run only recorded. Optional: absent in bare test contexts.
   */
  cancelFlow?(flow: string, key: string, reason?: string): Promise<string | null>;
}

/** Declaration of a child slot a control node accepts (e.g. `then`). */
export interface ChildSlot {
  description: string;
  /** `list`: a step list; `map`: an object whose values are step lists (switch cases, parallel branches). */
  shape: 'list' | 'map';
  required?: boolean;
}

/** An example step of a node type, shown by `leadflow nodes` and validated against the node's schema by its tests. */
export interface NodeExample {
  title: string;
  /** The step as it would appear in YAML (without `id` when irrelevant). */
  step: Record<string, unknown>;
}

/** A test of a node's params (a method type, so a node's definition fits where any node's is expected). */
export type ParamsCheck<T> = { check(params: T): boolean }['check'];

/** One node type. `params` is a TypeBox (JSON Schema) object; `run` gets params typed from it. */
export interface NodeDefinition<P extends TSchema = TSchema> {
  type: string;
  description: string;
  params: P;
  output: { description: string; schema?: TSchema };
  examples: NodeExample[];
  children?: Record<string, ChildSlot>;
  /**
   * How this node ends an execution, for the unreachable-step check: `always` (stop), or
   * `all-children` (when every declared child slot is present and each of its lists ends it).
   */
  terminates?: 'always' | 'all-children';
  /** True for nodes whose effect leaves the process: in dry-run they record instead of acting. */
  outbound?: boolean;
  /**
   * True for nodes that change nothing outside the execution (they compute, branch, read, or answer
   * the webhook caller, who is gone after a crash): running one again after a crash is harmless, so
   * the engine does not store the record right after it; it is stored with the next step that has
   * an effect, a wait, or the end. Default false: stored before the next step starts.
   */
  readOnly?: boolean;
  /**
   * True (or true for the params given) for nodes whose effect is the same however many times they
   * run, and whose output is the same each time (an absolute write, a cancel that finds what it
   * cancelled before, a mark that knows its execution): running one again after a crash is harmless,
   * so, like a read-only node, it is stored with the next step that is not. Default false.
   */
  repeatable?: boolean | ParamsCheck<Static<P>>;
  /**
   * Names of the host services (`ctx.services.<name>`) this node type needs. A host checks them
   * when it builds its engine (`NodeRegistry.requireServices`), so a missing one fails at start,
   * naming the node type and the service. Default: none.
   */
  services?: readonly string[];
  run(params: Static<P>, ctx: NodeContext): Promise<unknown>;
}

/**
 * Declares a node type. An identity function: it returns `def` as given and never throws; it exists
 * so `run` gets its params typed from the TypeBox `params` schema. Register the result in a
 * NodeRegistry; the loader then validates each step's params against `params` (expressions allowed)
 * and the engine validates them again, evaluated, before `run`.
 *
 * @example
 * ```ts
 * import { Type } from './typebox.js';
 * import { defineNode } from './engine/types.js';
 *
 * export default defineNode({
 *   type: 'text.upper',
 *   description: 'Upper-cases a text.',
 *   params: Type.Object({ text: Type.String({ description: 'Text to change.' }) }),
 *   output: { description: '`{ text }`, upper-cased.' },
 *   examples: [{ title: 'Shout a name', step: { type: 'text.upper', params: { text: '{{ trigger.body.name }}' } } }],
 *   readOnly: true,
 *   async run(params) {
 *     return { text: params.text.toUpperCase() }; // params.text is typed string
 *   },
 * });
 * ```
 */
export function defineNode<P extends TSchema>(def: NodeDefinition<P>): NodeDefinition<P> {
  return def;
}

/** Where an execution is: `running`, `waiting` (parked at a wait or a child flow), or final (engine/statuses.ts declares the lists). */
export type ExecutionStatus = import('./statuses.js').ExecutionStatus;
/** Where a step is: `running`, `waiting`, `success`, `error` (after its retries), `skipped`, `stopped`. */
export type StepStatus = 'running' | 'waiting' | 'success' | 'error' | 'skipped' | 'stopped';

/** A step failure as recorded: error name and message, and the HTTP status, body or code when there is one. */
export interface StepError {
  name: string;
  message: string;
  status?: number;
  body?: JsonValue;
  code?: string;
}

/** Record of one step run; `key` is unique per execution (step id plus the loop scope it ran in). */
export interface StepRecord {
  key: string;
  id: string;
  type: string;
  status: StepStatus;
  params?: JsonValue;
  output?: JsonValue;
  error?: StepError;
  attempt: number;
  /** ISO timestamp of the first attempt. */
  started_at: string;
  /** Wall time of the step's last attempt, milliseconds. */
  ms: number;
  /** Persisted state while waiting (e.g. wake time). */
  state?: JsonObject;
}

/** Everything stored about one execution; timestamps are ISO strings, `wake_at` ms since epoch. */
export interface ExecutionRecord {
  id: string;
  flow: string;
  status: ExecutionStatus;
  trigger: JsonObject;
  vars: JsonObject;
  steps: StepRecord[];
  outbound: OutboundCall[];
  /** Set while waiting: ms since epoch when the scheduler should resume it. */
  wake_at?: number;
  dry_run: boolean;
  /** The flow version it runs on (LoadedFlow.sourceHash when it started); absent on records older than versions. */
  flow_version?: string;
  parent_id?: string;
  response?: { status: number; body: JsonValue; headers?: Record<string, string> };
  output?: JsonValue;
  error?: StepError & { step?: string };
  /** Why it was stopped (status `stopped`) or cancelled (status `cancelled`). */
  stop_reason?: string;
  /** Its key (flow `concurrency:` or a flow.start `key`): at most one execution per flow and key is unfinished. */
  concurrency_key?: string;
  /** Status `cancelled` by a newer start of its flow under the same key: that execution's id. */
  replaced_by?: string;
  /** Flows its steps started (flow.start), in order. Absent when none. */
  started_flows?: FlowStart[];
  /** Cancels its steps made (flow.cancel), in order. Absent when none. */
  cancelled_flows?: FlowCancel[];
  created_at: string;
  updated_at: string;
  finished_at?: string;
}

/** A step after loading: its parameters and retry condition compiled once. */
export interface LoadedStep extends StepDefinition {
  compiledParams: import('./expressions.js').CompiledValue;
  compiledRetryWhen?: import('./expressions.js').CompiledValue;
  children: Record<string, LoadedStep[]>;
  /** Path of the step inside its file, for positions in problems. */
  sourcePath: Array<string | number>;
}

/** A declared metric after loading: its value expression compiled. */
export interface LoadedFlowMetric extends FlowMetric {
  compiledValue: import('./expressions.js').CompiledValue;
}

/** A flow after loading and validation, ready to run. */
export interface LoadedFlow extends FlowDefinition {
  steps: LoadedStep[];
  compiledVars: import('./expressions.js').CompiledValue;
  compiledOutput?: import('./expressions.js').CompiledValue;
  compiledRespondBody?: import('./expressions.js').CompiledValue;
  /** The declared metrics, each `value` compiled once. */
  metrics: LoadedFlowMetric[];
  /** `concurrency.key` compiled once, when the flow declares `concurrency:`. */
  compiledConcurrencyKey?: import('./expressions.js').CompiledValue;
  /** What the flow declares under `files:` (name -> text), read with the flow; seen as `files.NAME`. */
  files: Record<string, string>;
  /** Everything the version is a hash of: the YAML text and the files it reads (see flowVersionOf). */
  source: FlowSource;
  /** The flow version: hex SHA-256 of `source` (flowVersionOf); an execution finishes on the version it started on. */
  sourceHash: string;
}

/** A flow's versioned source: its YAML text and the text of every file it declares under `files:`. */
export interface FlowSource {
  /** The YAML text. */
  text: string;
  /** Declared file path (relative to the flow file, as written) -> its text. */
  files: Record<string, string>;
}
