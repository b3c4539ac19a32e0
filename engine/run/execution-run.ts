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
//                whole record; the engine writes the whole record when the drive ends (a wait: one
//                last entry and the wake time, ExecutionStore.park). A record not stored yet (a
//                deferred start) is inserted by its drive's first write instead (run-saves.ts).
// Cancellation: an execution can be cancelled in the store by any process. Its saves keep what the
// step recorded (the store keeps the cancellation, ExecutionStore.update). For an execution with a
// key, after each save the run reads the status back (RunHost.isCancelled) and throws a CancelSignal
// before the next step; the drive's first step, and every step that follows a read-only one (not
// saved), ask the store first. So a step already running finishes and its result is kept; no step
// starts after the cancel is stored. Any execution also stops before its next step once the host
// says it was told of the cancel (RunHost.cancelNoticed: cancelled by id in this process, or its
// lease found lost to a cancel).
// Suspension (wait) and stop are signals thrown through the walk to the engine (passOn,
// step-signals.ts). So is an unreachable database or Redis: not the step's failure, the execution
// parks and the step runs again later, without spending its retries or on_error.
// What the run is given and shares with its steps' contexts is in run-host.ts and step-drive.ts;
// its saves in run-saves.ts; the scopes of child lists in run-scope.ts.
import { lazyChildSignal } from './child-signal.js';
import { evaluateValue, isTruthy } from '../expressions.js';
import { toPlainJson } from '../plain-json.js';
import { StepFailedError } from '../errors/step-failed-error.js';
import { toStepError } from '../errors/to-step-error.js';
import type { JournalEntry } from '../store/journal.js';
import type { ExecutionRecord, JsonValue, LoadedFlow, LoadedStep, NodeDefinition, StepError, StepRecord } from '../types.js';
import { validateParams, writtenKeys } from './param-validator.js';
import { cloneJson } from './clone-json.js';
import { isoNow } from './iso-now.js';
import { containsMasked, maskSecrets } from './mask-secrets.js';
import { retryDelay, sleep } from './retry.js';
import { mockedOutput, type RunHost } from './run-host.js';
import { type PendingInsert, RunSaves } from './run-saves.js';
import { type RunScope, scopeView, topScope } from './run-scope.js';
import { StepContext, type StepDrive } from './step-context.js';
import { buildStepDrive } from './step-drive.js';
import { logStepEnd } from './step-log.js';
import { passOn } from './step-signals.js';

/** Most step runs one drive may make (guards `goto` loops). */
export const MAX_STEP_RUNS = 10_000;

type StepOutcome = { kind: 'next' } | { kind: 'goto'; target: string };
/** On to the next step (one object for every step: outcomes are only read). */
const NEXT: StepOutcome = Object.freeze({ kind: 'next' });

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
  /** The saves of this drive, the cancel they found and whether the record is stored yet (run-saves.ts). */
  readonly saves: RunSaves;
  /** What the contexts of this drive's steps share (step-context.ts). */
  private readonly drive: StepDrive<RunScope>;
  /** `execution` as expressions see it (the same for every step of the drive). */
  private readonly executionInfo: { id: string; flow: string; started_at: string };
  /** Whether the logger writes debug lines (asked once per drive): the per-step `step` line is built only then. */
  private readonly debugSteps: boolean;

  constructor(
    private readonly host: RunHost,
    private readonly flow: LoadedFlow,
    readonly record: ExecutionRecord,
    private readonly env: Record<string, JsonValue>,
    pendingInsert?: PendingInsert,
  ) {
    this.saves = new RunSaves(host, record, pendingInsert);
    for (const step of record.steps) {
      this.memo.set(step.key, step);
      if (step.status === 'success' && !step.key.includes('/')) this.outputs[step.id] = step.output ?? null;
    }
    this.executionInfo = { id: record.id, flow: record.flow, started_at: record.created_at };
    this.debugSteps = host.logger.isLevelEnabled?.('debug') ?? true;
    this.drive = buildStepDrive(host, record, flow.name, (list, scope) => this.runList(list, scope), this.saves);
  }

  /** Runs the flow's top-level steps; throws SuspendSignal, StopSignal or StepFailedError. Returns the flow output. */
  async run(): Promise<JsonValue> {
    const scope = topScope();
    const outputs = await this.runList(this.flow.steps, scope);
    if (this.flow.compiledOutput) return (await evaluateValue(this.flow.compiledOutput, this.expressionScope(scope))) ?? null;
    const last = this.flow.steps[this.flow.steps.length - 1];
    return last ? (outputs[last.id] ?? null) : null;
  }

  /** Waits for pending saves (called by the engine before it writes the final state). */
  async flush(): Promise<void> {
    await this.saves.flush();
  }

  /** After `flush`, at a wait: the journal entry that parks the record (RunSaves.parkEntry), or undefined to write it whole. */
  parkEntry(at: string): JournalEntry | undefined {
    return this.saves.parkEntry(at);
  }

  /**
   * What expressions see inside `scope`: trigger, steps, vars, env, now, execution and loop bindings.
   * Expressions only read: the outputs, trigger, vars and `execution` are handed as they are (no copy
   * per step), except inside loops, where `steps` is a copy with the iteration's own outputs.
   */
  expressionScope(scope: RunScope): object {
    const { steps, bindings } = scopeView(scope, this.outputs);
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

  /** The end of a step: its debug line and the observer's stepEnded (step-log.ts). */
  private logStep(record: StepRecord): void {
    logStepEnd(this.host.logger, this.host.observer, this.debugSteps, this.record, this.flow.name, record);
  }

  private async runList(list: LoadedStep[], scope: RunScope): Promise<Record<string, JsonValue>> {
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

  private setOutput(scope: RunScope, id: string, value: JsonValue, produced: Record<string, JsonValue>): void {
    produced[id] = value;
    let s: RunScope | null = scope;
    while (s && !s.local) s = s.parent;
    if (s?.local) s.local[id] = value;
    else this.outputs[id] = value;
  }

  /** Runs one step through the hooks of the file header, attempt after attempt (hook 5 asks for another). */
  private async runStep(step: LoadedStep, scope: RunScope, produced: Record<string, JsonValue>): Promise<StepOutcome> {
    const key = scope.prefix + step.id;
    const previous = this.memo.get(key);
    const recalled = this.recall(step, scope, previous, produced);
    if (recalled) return recalled;
    if (++this.stepRuns > MAX_STEP_RUNS) throw new Error(`more than ${MAX_STEP_RUNS} step runs in one execution (goto loop?)`);
    const def = this.host.registry.get(step.type);
    if (!def) throw new Error(`unknown node type "${step.type}"`);
    const asking = this.saves.beforeStep(def.readOnly === true);
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
    scope: RunScope,
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
      if (!this.deferSave(def, params) || this.host.mocks?.[step.id]) await this.saves.save();
      else this.saves.markUnchecked();
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
    scope: RunScope,
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
  private async resolveParams(step: LoadedStep, scope: RunScope, def: NodeDefinition, record: StepRecord): Promise<JsonValue> {
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

  /** 3. mock: a flow test's replacement for the step (mockedOutput, run-host.ts). */
  private mock(step: LoadedStep): { output: JsonValue | undefined } | undefined {
    return mockedOutput(this.host.mocks, step.id);
  }

  /** 4. run: `node.run(params, ctx)` on a copy of the params (the recorded ones stay as resolved), with a signal of its own. */
  private async invoke(step: LoadedStep, scope: RunScope, def: NodeDefinition, record: StepRecord, params: JsonValue): Promise<unknown> {
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
    scope: RunScope,
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
    scope: RunScope,
    record: StepRecord,
    err: unknown,
    produced: Record<string, JsonValue>,
  ): Promise<AttemptOutcome> {
    passOn(
      {
        signal: this.host.signal,
        logger: this.host.logger,
        execution: this.record.id,
        flow: this.flow.name,
        logStep: (r) => this.logStep(r),
      },
      step,
      record,
      err,
    );
    if (err instanceof StepFailedError) {
      // A child step failed: this control step fails with it; its on_error applies, retries do not.
      record.status = 'error';
      record.error = { ...err.detail, message: `step "${err.stepId}": ${err.detail.message}` };
      this.logStep(record);
      await this.saves.save();
      if (step.on_error === 'fail') throw err;
      return this.afterFailure(step, scope, record, produced);
    }
    record.error = toStepError(err);
    if (await this.retry(step, scope, record, err)) return { kind: 'retry' };
    record.status = 'error';
    this.logStep(record);
    await this.saves.save();
    return this.afterFailure(step, scope, record, produced);
  }

  /**
   * 5. retry: true (after the backoff delay) when attempts remain, the error is not mocked and
   * `retry.when` holds; the params are then resolved again. Rejects when the run is aborted meanwhile.
   */
  private async retry(step: LoadedStep, scope: RunScope, record: StepRecord, err: unknown): Promise<boolean> {
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

  private async retryAllowed(step: LoadedStep, scope: RunScope, error: StepError): Promise<boolean> {
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
  private afterFailure(step: LoadedStep, scope: RunScope, record: StepRecord, produced: Record<string, JsonValue>): StepOutcome {
    const error = record.error ?? { name: 'Error', message: 'failed' };
    if (step.on_error === 'fail') throw new StepFailedError(this.flow.name, step.id, step.type, record.attempt, error);
    this.setOutput(scope, step.id, { error: error as unknown as JsonValue }, produced);
    if (step.on_error === 'continue') return NEXT;
    return { kind: 'goto', target: step.on_error.goto };
  }
}
