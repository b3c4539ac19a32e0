// A node type's shapes: its definition (params schema, output, examples, run) and the context its
// `run` is handed.
import type { Static, TSchema } from '../typebox.js';
import type { OutboundCall } from './execution.js';
import type { JsonObject, JsonValue } from './json.js';

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

/** Where a child step list runs: foreach iterations get `item` and `index`, parallel branches their name. */
export interface ScopeBindings {
  item?: JsonValue;
  index?: number;
}

/**
 * What a node's `run` receives besides its resolved parameters. `S` is the type of `services`: by
 * default a record of whatever the host gave, each possibly absent; a node type that declares the
 * services it needs (`NodeDefinition.services`) may be handed the context typed with them.
 */
export interface NodeContext<S = Record<string, unknown>> {
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
  readonly services: S;
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
