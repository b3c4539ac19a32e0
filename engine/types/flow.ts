// A flow's shapes: as written in its file (after validation and defaults), the problems its loading
// finds, and the flow as loaded (expressions compiled, ready to run).
import type { CompiledValue } from '../expressions.js';
import type { JsonValue } from './json.js';

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
   * at most `timeout_ms`; past it, `late` (a fixed status and JSON body: the execution is recorded
   * and goes on) or, without `late`, 202 `{execution_id, status: "running"}`. What the YAML leaves
   * out comes from RESPOND_DEFAULTS (engine/load/defaults.ts).
   */
  respond:
    | { mode: 'immediately'; status: number; body: unknown }
    | { mode: 'step'; timeout_ms: number; late?: { status: number; body: unknown } };
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

/** A step after loading: its parameters and retry condition compiled once. */
export interface LoadedStep extends StepDefinition {
  compiledParams: CompiledValue;
  compiledRetryWhen?: CompiledValue;
  children: Record<string, LoadedStep[]>;
  /** Path of the step inside its file, for positions in problems. */
  sourcePath: Array<string | number>;
}

/** A declared metric after loading: its value expression compiled. */
export interface LoadedFlowMetric extends FlowMetric {
  compiledValue: CompiledValue;
}

/** A flow after loading and validation, ready to run. */
export interface LoadedFlow extends FlowDefinition {
  steps: LoadedStep[];
  compiledVars: CompiledValue;
  compiledOutput?: CompiledValue;
  compiledRespondBody?: CompiledValue;
  /** The declared metrics, each `value` compiled once. */
  metrics: LoadedFlowMetric[];
  /** `concurrency.key` compiled once, when the flow declares `concurrency:`. */
  compiledConcurrencyKey?: CompiledValue;
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
