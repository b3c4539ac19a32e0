// A step's run context (NodeContext): what `node.run(params, ctx)` is handed. One small object per
// step run: its methods live on the prototype and reach the execution through the drive (StepDrive,
// built once per drive by ExecutionRun), so a step costs no closures. Contract for nodes: call the
// methods on the context (`ctx.log(...)`, `ctx.suspend(...)`), as every node does; a context made
// from it with Object.create (nodes/services.ts) works the same. The optional members
// (startFlow, cancelFlow, interruptedPeersUntil) are undefined when the host cannot do them.
import { assignOwn } from '../assign-own.js';
import { StopSignal } from '../errors/stop-signal.js';
import { SuspendSignal } from '../errors/suspend-signal.js';
import { toPlainJson } from '../plain-json.js';
import type {
  ExecutionRecord,
  JsonObject,
  JsonValue,
  LoadedStep,
  NodeContext,
  OutboundCall,
  ScopeBindings,
  StartedFlow,
  StartFlowOptions,
  StepRecord,
} from '../types.js';
import type { ChildSignal } from './child-signal.js';
import type { Logger } from '../logger.js';
import { maskSecrets } from './mask-secrets.js';

/** What the steps of one drive share: the execution and the run's hooks. `S` is the run's scope type. */
export interface StepDrive<S> {
  readonly record: ExecutionRecord;
  /** The flow's name. */
  readonly flow: string;
  /** `ctx.services` of every step of the drive (one object per drive). */
  readonly services: Record<string, unknown>;
  readonly logger: Logger;
  /** NodeContext.runChildren of `step` run in `scope`; rejects when the step has no such list. */
  runChildren(
    step: LoadedStep,
    scope: S,
    slot: string,
    bindings: ScopeBindings | undefined,
    scopeKey: string | undefined,
  ): Promise<Record<string, JsonValue>>;
  /** Queues a save of the record; resolves once it (and every earlier one) is written. */
  save(): Promise<void>;
  respond(status: number, body: JsonValue, headers: Record<string, string> | undefined): void;
  /** NodeContext.callFlow of the step recorded under `stepKey`, with its saved `state`. */
  callFlow(stepKey: string, flow: string, input: JsonValue, state: JsonObject | undefined): Promise<JsonValue>;
  /** Absent when the host cannot start flows (then so is NodeContext.startFlow). */
  startFlow?(step: LoadedStep, flow: string, input: JsonValue, options: StartFlowOptions): Promise<StartedFlow>;
  /** Absent when the host cannot cancel flows (then so is NodeContext.cancelFlow). */
  cancelFlow?(step: LoadedStep, flow: string, key: string, reason: string | undefined): Promise<string | null>;
  /** Absent when the store has no leases (then so is NodeContext.interruptedPeersUntil). */
  interruptedPeersUntil?(): Promise<number | null>;
}

/**
 * `make()` with no stack trace taken: the engine's signals (suspend, stop) are caught by the engine
 * and never shown, and a trace costs more than the rest of a step's bookkeeping.
 */
function withoutStack<T>(make: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return make();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** The NodeContext of one run of `step` (one attempt), recorded under `record`. */
export class StepContext<S> implements NodeContext {
  readonly executionId: string;
  readonly flow: string;
  readonly stepId: string;
  readonly attempt: number;
  readonly dryRun: boolean;
  readonly state: JsonObject | undefined;
  readonly services: Record<string, unknown>;

  constructor(
    private readonly drive: StepDrive<S>,
    private readonly step: LoadedStep,
    private readonly scope: S,
    private readonly record: StepRecord,
    private readonly stepSignal: ChildSignal,
  ) {
    this.executionId = drive.record.id;
    this.flow = drive.flow;
    this.stepId = step.id;
    this.attempt = record.attempt;
    this.dryRun = drive.record.dry_run;
    this.state = record.state;
    this.services = drive.services;
  }

  get signal(): AbortSignal {
    return this.stepSignal.signal;
  }

  log(level: 'debug' | 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>): void {
    this.drive.logger[level]({ execution: this.drive.record.id, flow: this.drive.flow, step: this.step.id, ...fields }, message);
  }

  recordOutbound(call: Omit<OutboundCall, 'step' | 'performed'>): boolean {
    const execution = this.drive.record;
    const performed = !execution.dry_run;
    const entry: OutboundCall = { step: this.step.id, ...call, performed };
    execution.outbound.push(maskSecrets(toPlainJson(entry) ?? null) as unknown as OutboundCall);
    return performed;
  }

  childSlots(): string[] {
    return Object.keys(this.step.children);
  }

  runChildren(slot: string, bindings?: ScopeBindings, scopeKey?: string): Promise<Record<string, JsonValue>> {
    return this.drive.runChildren(this.step, this.scope, slot, bindings, scopeKey);
  }

  async checkpoint(state: JsonObject): Promise<void> {
    this.record.state = toPlainJson(state) as JsonObject;
    await this.drive.save();
  }

  get interruptedPeersUntil(): (() => Promise<number | null>) | undefined {
    const drive = this.drive;
    return drive.interruptedPeersUntil ? () => drive.interruptedPeersUntil!() : undefined;
  }

  suspend(wakeAt: number, state: JsonObject): never {
    const key = this.record.key;
    throw withoutStack(() => new SuspendSignal(Number.isFinite(wakeAt) ? wakeAt : null, state, key));
  }

  stop(reason: string): never {
    const key = this.record.key;
    throw withoutStack(() => new StopSignal(reason, key));
  }

  respond(status: number, body: JsonValue, headers?: Record<string, string>): void {
    this.drive.respond(status, body, headers);
  }

  setVars(values: JsonObject): void {
    assignOwn(this.drive.record.vars, values);
  }

  callFlow(flow: string, input: JsonValue): Promise<JsonValue> {
    return this.drive.callFlow(this.record.key, flow, input, this.record.state);
  }

  get startFlow(): ((flow: string, input: JsonValue, options?: StartFlowOptions) => Promise<StartedFlow>) | undefined {
    const { drive, step } = this;
    return drive.startFlow ? (flow, input, options) => drive.startFlow!(step, flow, input, options ?? {}) : undefined;
  }

  get cancelFlow(): ((flow: string, key: string, reason?: string) => Promise<string | null>) | undefined {
    const { drive, step } = this;
    return drive.cancelFlow ? (flow, key, reason) => drive.cancelFlow!(step, flow, key, reason) : undefined;
  }
}
