// Walks one execution's steps. One ExecutionRun per drive (start or resume) of an execution.
//
// Order of hooks for each step (the whole contract of the executor); each hook is the method named
// after it, and the methods follow in this order (runStep and attempt call them):
//  1. memo     (recall)        - a step already recorded as finished (success / continued error) is not
//                run again; its recorded output is put back under `steps.<id>` (this is how resume
//                works: the walk starts from the top and skips what is done, so waits may sit at any depth).
//  2. params   (resolveParams) - expressions resolved against the context (or the recorded params when
//                the step was interrupted while waiting or running children), then checked against the
//                node schema with defaults filled in.
//  3. mock     (mock)          - flow tests may replace a step's output or error.
//  4. run      (invoke, recordOutput) - `node.run(params, ctx)`; the output is recorded as JSON.
//  5. retry    (retry)         - on error, while attempts remain and `retry.when` holds: wait the backoff
//                delay, go to 2.
//  6. on_error (afterFailure)  - after the last attempt: `fail` ends the execution, `continue` goes on
//                with `steps.<id> = {error}`, `goto` jumps to a step of the same list.
//  7. save     (save)          - the execution record is saved after every step, before the next one
//                starts; after a read-only node (NodeDefinition.readOnly: computes, branches or reads) or
//                a repeatable one (NodeDefinition.repeatable: same effect and output however often it
//                runs) it is saved with the next step instead, since running such a step again after a
//                crash is harmless. With a store that keeps a journal (ExecutionStore.appendJournal), a
//                save appends what changed since the previous one (engine/store/journal.ts), not the
//                whole record; the engine writes the whole record when the drive ends.
// Cancellation: an execution can be cancelled in the store by any process. Its saves keep what the
// step recorded (the store keeps the cancellation, ExecutionStore.update). For an execution with a
// key, after each save the run reads the status back (RunHost.isCancelled) and throws a CancelSignal
// before the next step; the drive's first step, and every step that follows a read-only one (not
// saved), ask the store first. So a step already running finishes and its result is kept; no step
// starts after the cancel is stored. Any execution also stops before its next step once the host
// says it was told of the cancel (RunHost.cancelNoticed: cancelled by id in this process, or its
// lease found lost to a cancel).
// Suspension (wait) and stop are signals thrown through the walk to the engine (passOn). So is an
// unreachable database or Redis: not the step's failure, the execution parks and the step runs again
// later (parkForOutage), without spending its retries or on_error.
import { assignOwn } from '../assign-own.js';
import { lazyChildSignal } from './child-signal.js';
import { evaluateValue, isTruthy, toPlainJson } from '../expressions.js';
import { StepFailedError } from '../errors/step-failed-error.js';
import { StopSignal } from '../errors/stop-signal.js';
import { CancelSignal } from '../errors/cancel-signal.js';
import { SuspendSignal } from '../errors/suspend-signal.js';
import { toStepError } from '../errors/to-step-error.js';
import { DEPENDENCY_RETRY_MS, isDependencyUnavailable } from '../errors/dependency-unavailable.js';
import { notifyObserver, type EngineObserver, type StepEndedEvent } from '../observer.js';
import type { NodeRegistry } from '../registry.js';
import type {
  ExecutionRecord,
  ExecutionStatus,
  JsonObject,
  JsonValue,
  LoadedFlow,
  LoadedStep,
  NodeDefinition,
  ScopeBindings,
  StartedFlow,
  StartFlowOptions,
  StepError,
  StepRecord,
} from '../types.js';
import { validateParams } from './param-validator.js';
import { JournalCursor, type JournalEntry } from '../store/journal.js';
import { cloneJson } from './clone-json.js';
import { isoNow } from './iso-now.js';
import { containsMasked, maskSecrets } from './mask-secrets.js';
import { retryDelay, sleep } from './retry.js';
import { StepContext, type StepDrive } from './step-context.js';
import type { Logger } from '../logger.js';

/** The param names a step writes in its YAML, by step (found once per loaded step). */
const writtenKeysByStep = new WeakMap<LoadedStep, string[]>();

function writtenKeys(step: LoadedStep): string[] {
  let keys = writtenKeysByStep.get(step);
  if (!keys) {
    keys = step.compiledParams.kind === 'object' ? step.compiledParams.entries.map(([k]) => k) : [];
    writtenKeysByStep.set(step, keys);
  }
  return keys;
}

/** Most step runs one drive may make (guards `goto` loops). */
export const MAX_STEP_RUNS = 10_000;

/** A flow test's replacement for one step: its output, or the error it throws (never retried). */
export interface StepMock {
  /** The step's output instead of running its node. */
  output?: JsonValue;
  /** Thrown instead of running its node (`name` defaults to MockError). Wins over `output`. */
  error?: { message: string; status?: number; body?: JsonValue; name?: string };
}

/** What the engine gives a run: node types, services for nodes, and the hooks it cannot do itself. */
export interface RunHost {
  registry: NodeRegistry;
  services: Record<string, unknown>;
  logger: Logger;
  signal: AbortSignal;
  mocks?: Record<string, StepMock>;
  /** Persist the record whole (called after each step without `append`; calls are serialised by the run). */
  save(record: ExecutionRecord): Promise<void>;
  /**
   * Persist what changed since the previous save (ExecutionStore.appendJournal); resolves to the
   * stored status. Optional: without it every save writes the record whole (save).
   */
  append?(entry: JournalEntry): Promise<ExecutionStatus | undefined>;
  /** Whether the store holds the execution cancelled; asked after each save and before a step with effects, for executions with a key only. Optional. */
  isCancelled?(id: string): Promise<boolean>;
  /** Whether this process was told the execution is cancelled in the store (any execution, key or not); asked before each step. Optional. */
  cancelNoticed?(id: string): boolean;
  /** NodeContext.startFlow of a step of `parent`: starts (or, in a dry run, only resolves the key of) the flow. */
  startFlow?(parent: ExecutionRecord, flow: string, input: JsonValue, options: StartFlowOptions): Promise<StartedFlow>;
  /** NodeContext.cancelFlow of a step of `parent` (in a dry run: cancels nothing, resolves to null). */
  cancelFlow?(parent: ExecutionRecord, flow: string, key: string, reason: string): Promise<string | null>;
  respond(record: ExecutionRecord): void;
  callFlow(parent: ExecutionRecord, stepKey: string, flow: string, input: JsonValue, state: JsonObject | undefined): Promise<JsonValue>;
  /** Told when a step ends (metrics); its errors are ignored. */
  observer?: EngineObserver;
  /** Store the record as soon as a respond step answers (queue mode, where the answer is read back from the store). Default false. */
  saveResponses?: boolean;
  /** See NodeContext.interruptedPeersUntil; absent when the store has no leases. */
  interruptedPeersUntil?(record: ExecutionRecord): Promise<number | null>;
}

interface Scope {
  prefix: string;
  bindings: ScopeBindings;
  /** Outputs visible only inside this scope (foreach iteration); null: write to the global outputs. */
  local: Record<string, JsonValue> | null;
  parent: Scope | null;
}

type StepOutcome = { kind: 'next' } | { kind: 'goto'; target: string };
/** On to the next step (one object for every step: outcomes are only read). */
const NEXT: StepOutcome = Object.freeze({ kind: 'next' });

/** Whether loop bindings (`item`, `index`) are set in a scope. */
function hasBindings(bindings: ScopeBindings): boolean {
  for (const _ in bindings) return true;
  return false;
}

/** Tells the observer a step ended (a function of its own: no closure per step). */
function stepEnded(observer: EngineObserver, event: StepEndedEvent): unknown {
  return observer.stepEnded?.(event);
}
/** Where one attempt of a step goes next: on to the next step, a jump, or another attempt. */
type AttemptOutcome = StepOutcome | { kind: 'retry' };

/**
 * Walks one drive of an execution: the flow's steps, top to bottom, through the hooks of the file
 * header, writing step records into `record` and saving it through `host.save`. Made by the engine
 * once per drive (start or resume); a resumed run skips the steps already recorded as finished.
 *
 * @example
 * const run = new ExecutionRun(host, flow, record, engine.flowEnv(flow));
 * try {
 *   record.output = await run.run();
 *   record.status = 'success';
 * } catch (err) {
 *   // SuspendSignal: park it; StopSignal: stopped; StepFailedError or any other: failed
 * }
 * await run.flush(); // then store the final record
 */
export class ExecutionRun {
  private readonly memo = new Map<string, StepRecord>();
  private readonly outputs: Record<string, JsonValue> = {};
  /** Resolved params of steps run in this drive, unmasked (never persisted). */
  private readonly liveParams = new Map<string, JsonValue>();
  private stepRuns = 0;
  private saving: Promise<void> = Promise.resolve();
  /** The store answered that this execution is cancelled: no further step starts. */
  private cancelled = false;
  /**
   * The store was not asked about a cancel since the last save: true at the start of a drive (a
   * cancel may have come since the claim) and after a read-only step, which is not saved.
   */
  private unchecked = true;
  /** What this drive saved so far (journal entries), when the host appends rather than saves whole. */
  private readonly journal: JournalCursor | undefined;
  /** What the contexts of this drive's steps share (step-context.ts). */
  private readonly drive: StepDrive<Scope>;
  /** `execution` as expressions see it (the same for every step of the drive). */
  private readonly executionInfo: { id: string; flow: string; started_at: string };
  /** Whether the logger writes debug lines (asked once per drive): the per-step `step` line is built only then. */
  private readonly debugSteps: boolean;

  constructor(
    private readonly host: RunHost,
    private readonly flow: LoadedFlow,
    readonly record: ExecutionRecord,
    private readonly env: Record<string, JsonValue>,
  ) {
    this.journal = host.append ? new JournalCursor(record) : undefined;
    for (const step of record.steps) {
      this.memo.set(step.key, step);
      if (step.status === 'success' && !step.key.includes('/')) this.outputs[step.id] = step.output ?? null;
    }
    this.executionInfo = { id: record.id, flow: record.flow, started_at: record.created_at };
    this.debugSteps = host.logger.isLevelEnabled?.('debug') ?? true;
    this.drive = this.stepDrive();
  }

  /** Runs the flow's top-level steps; throws SuspendSignal, StopSignal or StepFailedError. Returns the flow output. */
  async run(): Promise<JsonValue> {
    const scope: Scope = { prefix: '', bindings: {}, local: null, parent: null };
    const outputs = await this.runList(this.flow.steps, scope);
    if (this.flow.compiledOutput) return (await evaluateValue(this.flow.compiledOutput, this.expressionScope(scope))) ?? null;
    const last = this.flow.steps[this.flow.steps.length - 1];
    return last ? (outputs[last.id] ?? null) : null;
  }

  /** Waits for pending saves (called by the engine before it writes the final state). */
  async flush(): Promise<void> {
    await this.saving;
  }

  /**
   * What expressions see inside `scope`: trigger, steps, vars, env, now, execution and loop bindings.
   * Expressions only read: the outputs, trigger, vars and `execution` are handed as they are (no copy
   * per step), except inside loops, where `steps` is a copy with the iteration's own outputs.
   */
  expressionScope(scope: Scope): object {
    let looped = false;
    for (let s: Scope | null = scope; s; s = s.parent) if (s.local || hasBindings(s.bindings)) looped = true;
    let steps = this.outputs;
    let bindings: ScopeBindings | undefined;
    if (looped) {
      const chain: Scope[] = [];
      for (let s: Scope | null = scope; s; s = s.parent) chain.unshift(s);
      steps = chain.some((s) => s.local) ? { ...this.outputs } : this.outputs;
      bindings = {};
      for (const s of chain) {
        if (s.local) assignOwn(steps, s.local);
        bindings = { ...bindings, ...s.bindings };
      }
    }
    return {
      trigger: this.record.trigger,
      steps,
      vars: this.record.vars,
      env: this.env,
      files: this.flow.files,
      now: isoNow(),
      execution: this.executionInfo,
      ...bindings,
    };
  }

  private async runList(list: LoadedStep[], scope: Scope): Promise<Record<string, JsonValue>> {
    const produced: Record<string, JsonValue> = {};
    let index = 0;
    while (index < list.length) {
      const step = list[index]!;
      const outcome = await this.runStep(step, scope, produced);
      if (outcome.kind === 'goto') {
        index = list.findIndex((s) => s.id === outcome.target);
        if (index < 0) throw new Error(`goto target "${outcome.target}" not found`);
      } else index++;
    }
    return produced;
  }

  private setOutput(scope: Scope, id: string, value: JsonValue, produced: Record<string, JsonValue>): void {
    produced[id] = value;
    let s: Scope | null = scope;
    while (s && !s.local) s = s.parent;
    if (s?.local) s.local[id] = value;
    else this.outputs[id] = value;
  }

  /** Runs one step through the hooks of the file header, attempt after attempt (hook 5 asks for another). */
  private async runStep(step: LoadedStep, scope: Scope, produced: Record<string, JsonValue>): Promise<StepOutcome> {
    const key = scope.prefix + step.id;
    const previous = this.memo.get(key);
    const recalled = this.recall(step, scope, previous, produced);
    if (recalled) return recalled;
    if (++this.stepRuns > MAX_STEP_RUNS) throw new Error(`more than ${MAX_STEP_RUNS} step runs in one execution (goto loop?)`);
    const def = this.host.registry.get(step.type);
    if (!def) throw new Error(`unknown node type "${step.type}"`);
    const asking = this.throwIfCancelled();
    if (asking) await asking;
    const record = previous ?? this.openStepRecord(step, key);
    for (;;) {
      const outcome = await this.attempt(step, scope, def, record, produced);
      if (outcome.kind !== 'retry') return outcome;
    }
  }

  /** One attempt of a step: hooks 2 to 4 and 7, or on a throw hooks 5 and 6 (onFailure). */
  private async attempt(
    step: LoadedStep,
    scope: Scope,
    def: NodeDefinition,
    record: StepRecord,
    produced: Record<string, JsonValue>,
  ): Promise<AttemptOutcome> {
    const started = performance.now();
    record.status = 'running';
    try {
      const params = await this.resolveParams(step, scope, def, record);
      const replaced = this.mock(step);
      const output = replaced ? replaced.output : await this.invoke(step, scope, def, record, params);
      this.recordOutput(step, scope, record, output, started, produced);
      // 7. Read-only and repeatable steps are stored with the next step that is neither (or the wait, or the end).
      if (!this.deferSave(def, params) || this.host.mocks?.[step.id]) await this.save();
      else this.unchecked = true;
      return NEXT;
    } catch (err) {
      record.ms = Math.round(performance.now() - started);
      return this.onFailure(step, scope, record, err, produced);
    }
  }

  /** Whether the record may be stored with a later step: the node is read-only, or repeatable with these params. */
  private deferSave(def: NodeDefinition, params: JsonValue): boolean {
    if (def.readOnly) return true;
    const repeatable = def.repeatable;
    return typeof repeatable === 'function' ? repeatable(params as never) : repeatable === true;
  }

  /**
   * Throws CancelSignal when the store holds this execution cancelled: told by the host
   * (cancelNoticed), known from the last save, or asked before the drive's first step and before one
   * that follows an unsaved read-only step. Only executions with a key ask the store; others learn it
   * from the host. Returns undefined when the answer is known without asking (most steps), else the
   * store's answer, which rejects with the CancelSignal.
   */
  private throwIfCancelled(): Promise<void> | undefined {
    if (!this.cancelled && this.host.cancelNoticed?.(this.record.id)) this.cancelled = true;
    if (this.cancelled) throw new CancelSignal(this.record.id);
    if (this.record.concurrency_key === undefined) return undefined;
    if (this.unchecked && this.host.isCancelled) {
      this.unchecked = false;
      return this.host.isCancelled(this.record.id).then((cancelled) => {
        this.cancelled = cancelled;
        if (cancelled) throw new CancelSignal(this.record.id);
      });
    }
    return undefined;
  }

  /** Creates the record of a step's first run and files it with the execution's steps. */
  private openStepRecord(step: LoadedStep, key: string): StepRecord {
    const record: StepRecord = {
      key,
      id: step.id,
      type: step.type,
      status: 'running',
      attempt: 1,
      started_at: isoNow(),
      ms: 0,
    };
    this.record.steps.push(record);
    this.memo.set(key, record);
    return record;
  }

  /**
   * 1. memo: a step recorded as finished is not run again. A success puts its output back; an error
   * (continued or jumped from) applies its on_error again. Undefined: the step runs.
   */
  private recall(
    step: LoadedStep,
    scope: Scope,
    previous: StepRecord | undefined,
    produced: Record<string, JsonValue>,
  ): StepOutcome | undefined {
    if (previous?.status === 'success') {
      this.setOutput(scope, step.id, previous.output ?? null, produced);
      return NEXT;
    }
    if (previous?.status === 'error') return this.afterFailure(step, scope, previous, produced);
    return undefined;
  }

  /**
   * 2. params: the params this drive resolved already, else the recorded ones (unless masked), else
   * the expressions resolved now and validated against the node's schema (defaults filled in).
   * Records them with credentials masked; returns the unmasked ones. Throws ParamValidationError.
   */
  private async resolveParams(step: LoadedStep, scope: Scope, def: NodeDefinition, record: StepRecord): Promise<JsonValue> {
    let params = this.liveParams.get(record.key);
    // Recorded ones are reused so a resumed step sees what it saw before.
    if (!params && record.params !== undefined && !containsMasked(record.params)) params = record.params;
    if (!params) {
      const resolved = await evaluateValue(step.compiledParams, this.expressionScope(scope));
      params = validateParams(def, resolved, step.id, writtenKeys(step)) as JsonValue;
    }
    this.liveParams.set(record.key, params);
    record.params = maskSecrets(params);
    return params;
  }

  /**
   * 3. mock: a flow test's replacement for the step. Returns the replaced output, or undefined when
   * the node runs; throws the mocked error (marked `mocked`: never retried, never an outage).
   */
  private mock(step: LoadedStep): { output: JsonValue | undefined } | undefined {
    const mock = this.host.mocks?.[step.id];
    if (mock?.error)
      throw Object.assign(new Error(mock.error.message), {
        name: mock.error.name ?? 'MockError',
        status: mock.error.status,
        body: mock.error.body,
        mocked: true,
      });
    return mock && 'output' in mock ? { output: mock.output } : undefined;
  }

  /** 4. run: `node.run(params, ctx)` on a copy of the params (the recorded ones stay as resolved), with a signal of its own. */
  private async invoke(step: LoadedStep, scope: Scope, def: NodeDefinition, record: StepRecord, params: JsonValue): Promise<unknown> {
    const stepSignal = lazyChildSignal(this.host.signal);
    try {
      const ctx = new StepContext(this.drive, step, scope, record, stepSignal);
      return await def.run(cloneJson(params) as never, ctx);
    } finally {
      stepSignal.release();
    }
  }

  /** 4. run, continued: the output is recorded as JSON and seen as `steps.<id>` from now on. */
  private recordOutput(
    step: LoadedStep,
    scope: Scope,
    record: StepRecord,
    output: unknown,
    started: number,
    produced: Record<string, JsonValue>,
  ): void {
    record.output = toPlainJson(output) ?? null;
    record.status = 'success';
    record.error = undefined;
    record.state = undefined;
    record.ms = Math.round(performance.now() - started);
    this.setOutput(scope, step.id, record.output, produced);
    this.logStep(record);
  }

  /**
   * An attempt threw. Signals and outages pass through (passOn); a failed child step fails this
   * control step without retries; any other error is retried while hook 5 allows, then hook 6.
   */
  private async onFailure(
    step: LoadedStep,
    scope: Scope,
    record: StepRecord,
    err: unknown,
    produced: Record<string, JsonValue>,
  ): Promise<AttemptOutcome> {
    this.passOn(step, record, err);
    if (err instanceof StepFailedError) {
      // A child step failed: this control step fails with it; its on_error applies, retries do not.
      record.status = 'error';
      record.error = { ...err.detail, message: `step "${err.stepId}": ${err.detail.message}` };
      this.logStep(record);
      await this.save();
      if (step.on_error === 'fail') throw err;
      return this.afterFailure(step, scope, record, produced);
    }
    record.error = toStepError(err);
    if (await this.retry(step, scope, record, err)) return { kind: 'retry' };
    record.status = 'error';
    this.logStep(record);
    await this.save();
    return this.afterFailure(step, scope, record, produced);
  }

  /**
   * 5. retry: true (after the backoff delay) when attempts remain, the error is not mocked and
   * `retry.when` holds; the params are then resolved again. Rejects when the run is aborted meanwhile.
   */
  private async retry(step: LoadedStep, scope: Scope, record: StepRecord, err: unknown): Promise<boolean> {
    const error = record.error!;
    if (!step.retry || record.attempt >= step.retry.attempts || (err as { mocked?: boolean }).mocked) return false;
    if (!(await this.retryAllowed(step, scope, error))) return false;
    const delay = retryDelay(step.retry, record.attempt);
    this.host.logger.debug(
      { execution: this.record.id, flow: this.flow.name, step: step.id, attempt: record.attempt, delay_ms: delay, error: error.message },
      'step failed, retrying',
    );
    record.attempt++;
    record.params = undefined;
    this.liveParams.delete(record.key);
    await sleep(delay, this.host.signal);
    return true;
  }

  private async retryAllowed(step: LoadedStep, scope: Scope, error: StepError): Promise<boolean> {
    if (!step.compiledRetryWhen) return true;
    try {
      return isTruthy(await evaluateValue(step.compiledRetryWhen, { ...this.expressionScope(scope), error }));
    } catch {
      return false;
    }
  }

  /**
   * 6. on_error, after the last attempt: `fail` throws StepFailedError, `continue` goes on with
   * `steps.<id> = {error}`, `goto` jumps (with the same output).
   */
  private afterFailure(step: LoadedStep, scope: Scope, record: StepRecord, produced: Record<string, JsonValue>): StepOutcome {
    const error = record.error ?? { name: 'Error', message: 'failed' };
    if (step.on_error === 'fail') throw new StepFailedError(this.flow.name, step.id, step.type, record.attempt, error);
    this.setOutput(scope, step.id, { error: error as unknown as JsonValue }, produced);
    if (step.on_error === 'continue') return NEXT;
    return { kind: 'goto', target: step.on_error.goto };
  }

  /**
   * Rethrows what is not the step's failure: a wait or stop signal (recorded on the step), the run's
   * abort, and an unreachable dependency (the execution parks and the step runs again later).
   */
  private passOn(step: LoadedStep, record: StepRecord, err: unknown): void {
    if (err instanceof SuspendSignal) {
      // A control step whose child suspended waits too; only the suspending step keeps the state.
      record.status = 'waiting';
      if (err.origin === record.key) record.state = err.state;
      throw err;
    }
    if (err instanceof CancelSignal) {
      // A child step list of this control step was cut short: this step ends with it.
      record.status = 'stopped';
      throw err;
    }
    if (err instanceof StopSignal) {
      record.status = 'stopped';
      if (err.origin === record.key) record.output = { reason: err.reason };
      this.logStep(record);
      throw err;
    }
    if (this.host.signal.aborted) throw err;
    if (isDependencyUnavailable(err) && !(err as { mocked?: boolean }).mocked) this.parkForOutage(step, record, err);
  }

  /**
   * The database or Redis cannot be reached: not this step's failure. Throws a SuspendSignal that
   * parks the execution for DEPENDENCY_RETRY_MS; the step runs again then, its retries and on_error
   * kept for real failures.
   */
  private parkForOutage(step: LoadedStep, record: StepRecord, err: unknown): never {
    record.status = 'waiting';
    this.host.logger.warn(
      {
        execution: this.record.id,
        flow: this.flow.name,
        step: step.id,
        error: toStepError(err).message,
        retry_in_ms: DEPENDENCY_RETRY_MS,
      },
      'a dependency is unreachable; the step runs again later',
    );
    throw new SuspendSignal(Date.now() + DEPENDENCY_RETRY_MS, {});
  }

  /** The `step` debug line (when the logger writes debug) and the observer's stepEnded, where a step ends. */
  private logStep(record: StepRecord): void {
    if (this.debugSteps) {
      this.host.logger.debug(
        {
          execution: this.record.id,
          flow: this.flow.name,
          step: record.id,
          type: record.type,
          status: record.status,
          attempt: record.attempt,
          ms: record.ms,
          ...(record.error ? { error: record.error.message } : {}),
        },
        'step',
      );
    }
    // Called where a step ends (success, error after its last attempt, stopped).
    const status = record.status;
    const observer = this.host.observer;
    if (observer?.stepEnded && (status === 'success' || status === 'error' || status === 'stopped')) {
      const event: StepEndedEvent = {
        flow: this.flow.name,
        execution: this.record.id,
        step: record.id,
        node_type: record.type,
        status,
        ms: record.ms,
        attempt: record.attempt,
      };
      notifyObserver(observer, this.host.logger, stepEnded, event);
    }
  }

  /**
   * Queues a save of the record and returns when it (and every earlier one) is written. The walk
   * awaits it after each step that is neither read-only nor repeatable, so such a step is on record
   * as done before the next one starts: a process killed at any point re-runs the step it was in and
   * the read-only and repeatable ones since the last save (harmless by definition), never a step
   * with an effect that finished.
   */
  private save(): Promise<void> {
    const at = isoNow();
    this.unchecked = false;
    // What is written is taken now: the run goes on changing the record while earlier saves finish.
    // Resolves to the stored status when the write tells it (a journal entry), else undefined.
    let write: () => Promise<ExecutionStatus | undefined>;
    if (this.journal && this.host.append) {
      const entry = this.journal.next(this.record, at);
      const append = this.host.append;
      write = () => append(entry);
    } else {
      const snapshot = structuredClone(this.record);
      snapshot.updated_at = at;
      write = () => this.host.save(snapshot).then(() => undefined);
    }
    this.saving = this.saving
      .then(write)
      .then(async (status) => {
        if (this.record.concurrency_key === undefined) return;
        if (typeof status === 'string') this.cancelled ||= status === 'cancelled';
        else if (this.host.isCancelled) this.cancelled ||= await this.host.isCancelled(this.record.id);
      })
      .catch((err) => {
        this.host.logger.error({ execution: this.record.id, err: (err as Error).message }, 'saving execution failed');
      });
    return this.saving;
  }

  /**
   * What the contexts of this drive's steps share (StepContext): built once per drive. `services` is
   * a copy of the host's, one object per drive, so what nodes derive from it (nodes/services.ts) is
   * built once per drive too.
   */
  private stepDrive(): StepDrive<Scope> {
    const host = this.host;
    return {
      record: this.record,
      flow: this.flow.name,
      services: { ...host.services },
      logger: host.logger,
      runChildren: async (step, scope, slot, bindings, scopeKey) => {
        const list = step.children[slot];
        if (!list) throw new Error(`step "${step.id}" has no child list "${slot}"`);
        const child: Scope =
          bindings && (bindings.item !== undefined || bindings.index !== undefined)
            ? { prefix: `${scope.prefix}${step.id}[${scopeKey ?? bindings.index ?? 0}]/`, bindings, local: {}, parent: scope }
            : { prefix: scope.prefix, bindings: {}, local: null, parent: scope };
        return this.runList(list, child);
      },
      save: () => this.save(),
      respond: (status, body, headers) => {
        if (this.record.response) throw new Error('the webhook was already answered by an earlier respond step');
        this.record.response = { status, body, ...(headers ? { headers } : {}) };
        host.respond(this.record);
        if (host.saveResponses) void this.save();
      },
      callFlow: (stepKey, flow, input, state) => host.callFlow(this.record, stepKey, flow, input, state),
      ...(host.startFlow
        ? {
            startFlow: (step: LoadedStep, flow: string, input: JsonValue, options: StartFlowOptions) =>
              this.startFlow(step, flow, input, options),
          }
        : {}),
      ...(host.cancelFlow
        ? {
            cancelFlow: (step: LoadedStep, flow: string, key: string, reason: string | undefined) =>
              this.cancelFlow(step, flow, key, reason),
          }
        : {}),
      ...(host.interruptedPeersUntil ? { interruptedPeersUntil: () => host.interruptedPeersUntil!(this.record) } : {}),
    };
  }

  /** NodeContext.startFlow: the host starts it (a dry run only resolves its key); recorded in `started_flows`. */
  private async startFlow(step: LoadedStep, flow: string, input: JsonValue, options: StartFlowOptions): Promise<StartedFlow> {
    const started = await this.host.startFlow!(this.record, flow, input, options);
    const entry = {
      step: step.id,
      flow,
      ...(started.key !== null ? { key: started.key } : {}),
      input,
      execution_id: started.execution_id,
      performed: started.execution_id !== null,
    };
    this.record.started_flows = [...(this.record.started_flows ?? []), maskSecrets(toPlainJson(entry) ?? null) as never];
    return started;
  }

  /** NodeContext.cancelFlow: the host cancels (a dry run cancels nothing); recorded in `cancelled_flows`. */
  private async cancelFlow(step: LoadedStep, flow: string, key: string, reason: string | undefined): Promise<string | null> {
    const why = reason ?? `cancelled by execution ${this.record.id} (step ${step.id})`;
    const cancelled = await this.host.cancelFlow!(this.record, flow, key, why);
    const entry = { step: step.id, flow, key, reason: why, cancelled, performed: !this.record.dry_run };
    this.record.cancelled_flows = [...(this.record.cancelled_flows ?? []), toPlainJson(entry) as never];
    return cancelled;
  }
}
