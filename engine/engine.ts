// The engine: starts executions of loaded flows, drives them through ExecutionRun, parks them when
// they wait and resumes them when the scheduler fires. Knows flows, not leads: node types, services,
// store and scheduler are handed in by the host (the CLI).
import { randomUUID } from 'node:crypto';
import { evaluateValue } from './expressions.js';
import { InputValidationError } from './errors/input-validation-error.js';
import { StepFailedError } from './errors/step-failed-error.js';
import { StopSignal } from './errors/stop-signal.js';
import { SuspendSignal } from './errors/suspend-signal.js';
import { toStepError } from './errors/to-step-error.js';
import type { NodeRegistry } from './registry.js';
import { ExecutionRun, type Logger, type StepMock } from './run/execution-run.js';
import { flowEnv } from './run/flow-env.js';
import { schemaProblems } from './run/param-validator.js';
import { InProcessScheduler } from './scheduler/in-process-scheduler.js';
import type { Scheduler } from './scheduler/scheduler.js';
import type { ExecutionStore } from './store/execution-store.js';
import { MemoryExecutionStore } from './store/memory-store.js';
import type { ExecutionRecord, JsonObject, JsonValue, LoadedFlow } from './types.js';

export interface EngineOptions {
  registry: NodeRegistry;
  flows: Map<string, LoadedFlow>;
  store?: ExecutionStore;
  scheduler?: Scheduler;
  services?: Record<string, unknown>;
  logger?: Logger;
  /** Source of `env.*` values; default process.env. */
  env?: Record<string, string | undefined>;
}

export interface TriggerInput {
  body: JsonValue;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

export interface StartOptions {
  dryRun?: boolean;
  /** Replace chosen steps' outputs or errors (flow tests). */
  mocks?: Record<string, StepMock>;
  parentId?: string;
}

export type WebhookResponse = NonNullable<ExecutionRecord['response']>;

export interface ExecutionHandle {
  id: string;
  /** The record as created, before any step ran. */
  record: ExecutionRecord;
  /** Resolves when this drive ends: finished, or parked waiting. */
  settled: Promise<ExecutionRecord>;
  /** Resolves when a respond step answers, or with undefined when the execution finishes without one. */
  responded: Promise<WebhookResponse | undefined>;
}

const FINAL = new Set(['success', 'failed', 'stopped']);
/** Header names never stored with an execution (credentials). */
const SECRET_HEADERS = /^(authorization|cookie|x-webhook-secret|typeform-signature|tally-signature|token|x-api-key)$/i;

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export class Engine {
  readonly registry: NodeRegistry;
  readonly store: ExecutionStore;
  readonly scheduler: Scheduler;
  private flows: Map<string, LoadedFlow>;
  private readonly services: Record<string, unknown>;
  private readonly logger: Logger;
  private readonly env: Record<string, string | undefined>;
  private readonly abort = new AbortController();
  private readonly active = new Map<string, Promise<ExecutionRecord>>();
  private readonly wakeRequested = new Set<string>();
  private readonly mocks = new Map<string, Record<string, StepMock>>();
  private readonly responders = new Map<string, (r: WebhookResponse | undefined) => void>();
  private readonly finishers = new Map<string, Array<(r: ExecutionRecord) => void>>();

  constructor(options: EngineOptions) {
    this.registry = options.registry;
    this.flows = options.flows;
    this.store = options.store ?? new MemoryExecutionStore();
    this.scheduler = options.scheduler ?? new InProcessScheduler();
    this.services = options.services ?? {};
    this.logger = options.logger ?? silentLogger;
    this.env = options.env ?? process.env;
  }

  getFlow(name: string): LoadedFlow | undefined {
    return this.flows.get(name);
  }

  listFlows(): LoadedFlow[] {
    return [...this.flows.values()];
  }

  /** Replaces the served flows (reload); running executions keep the flow object they started with until they park. */
  setFlows(flows: Map<string, LoadedFlow>): void {
    this.flows = flows;
  }

  /** Starts the scheduler and resumes every wait the store holds (overdue ones at once). */
  async startScheduler(): Promise<void> {
    this.scheduler.start((id) => this.resume(id).then(() => undefined));
    for (const wait of await this.store.listWaiting()) {
      if (wait.wake_at !== null) this.scheduler.schedule(wait.id, wait.wake_at);
    }
  }

  /** Stops timers and aborts running steps; waits stay in the store. */
  async shutdown(): Promise<void> {
    this.scheduler.stop();
    this.abort.abort(new Error('engine shutting down'));
    await Promise.allSettled([...this.active.values()]);
  }

  flowEnv(flow: LoadedFlow): Record<string, JsonValue> {
    return flowEnv(flow.env, this.env);
  }

  /** Validates the input, records a new execution and starts driving it (not awaited). */
  async start(flowName: string, input: TriggerInput, options: StartOptions = {}): Promise<ExecutionHandle> {
    const flow = this.flows.get(flowName);
    if (!flow) throw new Error(`unknown flow "${flowName}"`);
    if (flow.trigger.input) {
      const problems = schemaProblems(flow.trigger.input, input.body);
      if (problems.length > 0) throw new InputValidationError(flow.name, problems);
    }
    const now = new Date().toISOString();
    const trigger: JsonObject = {
      body: input.body,
      headers: Object.fromEntries(Object.entries(input.headers ?? {}).filter(([k]) => !SECRET_HEADERS.test(k))),
      query: Object.fromEntries(Object.entries(input.query ?? {}).filter(([k]) => k !== 'secret')),
    };
    const record: ExecutionRecord = {
      id: randomUUID(),
      flow: flow.name,
      status: 'running',
      trigger,
      vars: {},
      steps: [],
      outbound: [],
      dry_run: options.dryRun ?? false,
      created_at: now,
      updated_at: now,
      ...(options.parentId ? { parent_id: options.parentId } : {}),
    };
    const env = this.flowEnv(flow);
    const vars = await evaluateValue(flow.compiledVars, { trigger, env, execution: { id: record.id, flow: flow.name, started_at: now }, now, steps: {}, vars: {} });
    record.vars = (vars && typeof vars === 'object' && !Array.isArray(vars) ? vars : {}) as JsonObject;
    await this.store.insert(record);
    if (options.mocks) this.mocks.set(record.id, options.mocks);
    const responded = new Promise<WebhookResponse | undefined>((resolve) => this.responders.set(record.id, resolve));
    const settled = this.drive(structuredClone(record));
    return { id: record.id, record, settled, responded };
  }

  /** Resumes a waiting execution (no-op for any other status, or when it is already running here). */
  async resume(id: string): Promise<ExecutionRecord | undefined> {
    const running = this.active.get(id);
    if (running) {
      // Woken while still running here (e.g. a child flow ended as its parent parks): look again after.
      this.wakeRequested.add(id);
      return running;
    }
    const record = await this.store.get(id);
    if (!record || record.status !== 'waiting') return record;
    return this.drive(record);
  }

  /** Resolves when the execution reaches success, failed or stopped (following any waits). */
  async waitForEnd(id: string): Promise<ExecutionRecord> {
    return new Promise((resolve, reject) => {
      const list = this.finishers.get(id) ?? [];
      list.push(resolve);
      this.finishers.set(id, list);
      // Registered first, then checked: an end between the two cannot be missed. A final stored record
      // is final even while its drive is still unwinding (its finishers may already have been called).
      this.store.get(id).then((current) => {
        if (current && FINAL.has(current.status)) resolve(current);
      }, reject);
    });
  }

  /** The body an `immediately` webhook answers with (its expressions see `execution.id` and `trigger`). */
  async immediateBody(flow: LoadedFlow, record: ExecutionRecord): Promise<JsonValue> {
    if (!flow.compiledRespondBody) return { execution_id: record.id };
    return (await evaluateValue(flow.compiledRespondBody, { execution: { id: record.id, flow: flow.name }, trigger: record.trigger, env: this.flowEnv(flow) })) ?? null;
  }

  private drive(record: ExecutionRecord): Promise<ExecutionRecord> {
    const promise = this.driveOnce(record).finally(() => {
      this.active.delete(record.id);
      if (this.wakeRequested.delete(record.id) && !this.abort.signal.aborted) void this.resume(record.id);
    });
    this.active.set(record.id, promise);
    return promise;
  }

  private async driveOnce(record: ExecutionRecord): Promise<ExecutionRecord> {
    const flow = this.flows.get(record.flow);
    const startedAt = performance.now();
    record.status = 'running';
    delete record.wake_at;
    if (!flow) {
      record.status = 'failed';
      record.error = { name: 'Error', message: `flow "${record.flow}" is not loaded` };
      return this.finish(record, startedAt);
    }
    const run = new ExecutionRun(
      {
        registry: this.registry,
        services: this.services,
        logger: this.logger,
        signal: this.abort.signal,
        mocks: this.mocks.get(record.id),
        save: (r) => this.store.update(r),
        respond: (r) => {
          this.responders.get(r.id)?.(r.response);
          this.responders.delete(r.id);
        },
        callFlow: (parent, stepKey, name, input, state) => this.callFlow(parent, stepKey, name, input, state),
      },
      flow,
      record,
      this.flowEnv(flow),
    );
    try {
      record.output = await run.run();
      record.status = 'success';
    } catch (err) {
      if (this.abort.signal.aborted) {
        // Shutting down: hand the execution back as due now; the next start resumes it from its records.
        record.status = 'waiting';
        record.wake_at = Date.now();
      } else if (err instanceof SuspendSignal) {
        record.status = 'waiting';
        if (err.wakeAt !== null) record.wake_at = err.wakeAt;
      } else if (err instanceof StopSignal) {
        record.status = 'stopped';
        record.stop_reason = err.reason;
      } else if (err instanceof StepFailedError) {
        record.status = 'failed';
        record.error = { ...err.detail, message: err.message, step: err.stepId };
      } else {
        record.status = 'failed';
        record.error = toStepError(err);
      }
    }
    await run.flush();
    return this.finish(record, startedAt);
  }

  private async finish(record: ExecutionRecord, startedAt: number): Promise<ExecutionRecord> {
    record.updated_at = new Date().toISOString();
    if (FINAL.has(record.status)) record.finished_at = record.updated_at;
    await this.store.update(record);
    const fields = { execution: record.id, flow: record.flow, status: record.status, ms: Math.round(performance.now() - startedAt), steps: record.steps.length };
    if (record.status === 'failed') this.logger.warn({ ...fields, error: record.error?.message }, 'execution failed');
    else this.logger.info(fields, record.status === 'waiting' ? 'execution waiting' : 'execution finished');
    if (record.status === 'waiting') {
      if (record.wake_at !== undefined && !this.abort.signal.aborted) this.scheduler.schedule(record.id, record.wake_at);
      return record;
    }
    this.responders.get(record.id)?.(undefined);
    this.responders.delete(record.id);
    this.mocks.delete(record.id);
    for (const resolve of this.finishers.get(record.id) ?? []) resolve(structuredClone(record));
    this.finishers.delete(record.id);
    if (record.parent_id) this.scheduler.schedule(record.parent_id, Date.now());
    return record;
  }

  /** `call-flow`: runs the child in this process; if it parks, the parent parks until the child wakes it. */
  private async callFlow(parent: ExecutionRecord, stepKey: string, name: string, input: JsonValue, state: JsonObject | undefined): Promise<JsonValue> {
    let child: ExecutionRecord | undefined;
    if (state && typeof state.child_id === 'string') {
      child = await this.store.get(state.child_id);
    } else {
      const handle = await this.start(name, { body: input }, { dryRun: parent.dry_run, parentId: parent.id });
      child = await handle.settled;
    }
    if (!child) throw new Error(`child execution of flow "${name}" is missing`);
    if (child.status === 'success' || child.status === 'stopped') return child.output ?? null;
    if (child.status === 'failed') throw new Error(`flow "${name}" (execution ${child.id}) failed: ${child.error?.message ?? 'unknown error'}`);
    throw new SuspendSignal(null, { child_id: child.id }, stepKey);
  }
}
