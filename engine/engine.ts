// The engine: starts executions of loaded flows, drives them through ExecutionRun, parks them when
// they wait and resumes them when the scheduler fires. Knows flows, not leads: node types, services,
// store and scheduler are handed in by the host (the CLI).
import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { evaluateValue } from './expressions.js';
import { reportFlowMetrics } from './flow-metrics.js';
import { InputValidationError } from './errors/input-validation-error.js';
import { StepFailedError } from './errors/step-failed-error.js';
import { StopSignal } from './errors/stop-signal.js';
import { SuspendSignal } from './errors/suspend-signal.js';
import { toStepError } from './errors/to-step-error.js';
import { notifyObserver, type EngineObserver } from './observer.js';
import type { NodeRegistry } from './registry.js';
import { ExecutionRun, type Logger, type StepMock } from './run/execution-run.js';
import { flowEnv } from './run/flow-env.js';
import { schemaProblems } from './run/param-validator.js';
import { DEPENDENCY_RETRY_MS, isDependencyUnavailable } from './errors/dependency-unavailable.js';
import { InProcessScheduler } from './scheduler/in-process-scheduler.js';
import type { Scheduler } from './scheduler/scheduler.js';
import type { ExecutionStore, Lease } from './store/execution-store.js';
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
  /** Told when executions and steps end and waits resume (metrics); its errors never break an execution. */
  observer?: EngineObserver;
  /**
   * Queue mode (several processes on one store and a shared scheduler): executions started by a
   * trigger are recorded as due and handed to the scheduler, so whichever process takes the job
   * drives them. Default false: driven at once in this process.
   */
  queued?: boolean;
  /** Life of this process's hold on a running execution, ms; renewed every third of it. Default 30000. */
  leaseMs?: number;
}

/** Default lease on a running execution, ms. */
export const DEFAULT_LEASE_MS = 30_000;
/** How long a sweep lets executions taken over from a dead process run before it wakes the overdue waits, ms. */
const TAKE_OVER_HEAD_START_MS = 5_000;

/**
 * True when a lease owner (`host:pid:random`, see Engine.owner) is a process of this machine that no
 * longer exists, so its executions can be taken over without waiting for the lease to lapse.
 */
export function isDeadLocalOwner(owner: string): boolean {
  const [host, pidText] = owner.split(':');
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Longest a queued execution's webhook answer is awaited by polling the store, ms. */
const MAX_RESPONSE_POLL_MS = 300_000;

export interface TriggerInput {
  body: JsonValue;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** What the trigger's authentication established (e.g. the instance of an instance token), recorded and seen as `trigger.auth`. */
  auth?: JsonObject;
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
  private readonly observer: EngineObserver | undefined;
  private readonly queued: boolean;
  private readonly leaseMs: number;
  /** This process's name on leases. */
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly abort = new AbortController();
  private readonly active = new Map<string, Promise<ExecutionRecord>>();
  private readonly wakeRequested = new Set<string>();
  /** Executions this process is taking from the store right now (claim in flight). */
  private readonly claiming = new Set<string>();
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
    this.observer = options.observer;
    notifyObserver(this.observer, this.logger, (o) => o.flowsLoaded?.([...this.flows.values()]));
    this.queued = options.queued ?? false;
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  }

  /** Ids of the executions being driven in this process now (queue depth). */
  runningIds(): string[] {
    return [...this.active.keys()];
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
    notifyObserver(this.observer, this.logger, (o) => o.flowsLoaded?.([...flows.values()]));
  }

  /** Starts the scheduler and resumes every wait the store holds (overdue ones at once). */
  async startScheduler(): Promise<void> {
    this.scheduler.start((id) => this.resume(id).then(() => undefined));
    await this.sweep();
  }

  /**
   * Hands the scheduler every stored wait, and every running execution not driven here (its holder
   * may have died: it is taken over when its lease lapses). Idempotent; `serve` and `worker` call it
   * at start and periodically, so a scheduler that lost its timers (restart, Redis flushed) recovers.
   */
  async sweep(): Promise<void> {
    // Executions interrupted in the middle of a step come first: one whose holder is a dead process
    // of this machine is taken over now, and its drive is given a moment to reach its next wait
    // before the overdue waits are woken — a message accepted but not yet buffered when the process
    // died joins its burst instead of being answered on its own.
    if (this.store.listRunning) {
      const takenOver: Array<Promise<unknown>> = [];
      for (const running of await this.store.listRunning()) {
        if (this.active.has(running.id) || this.claiming.has(running.id)) continue;
        if (running.lease_owner && isDeadLocalOwner(running.lease_owner)) takenOver.push(this.takeOver(running.id, running.lease_owner));
        else this.scheduler.schedule(running.id, running.lease_until ?? Date.now());
      }
      if (takenOver.length > 0)
        await Promise.race([Promise.allSettled(takenOver), new Promise((r) => setTimeout(r, TAKE_OVER_HEAD_START_MS).unref())]);
    }
    for (const wait of await this.store.listWaiting()) {
      if (wait.wake_at !== null) this.scheduler.schedule(wait.id, wait.wake_at);
    }
  }

  /** Drives an execution whose holder died (its lease not lapsed yet). */
  private async takeOver(id: string, deadOwner: string): Promise<unknown> {
    this.claiming.add(id);
    let claimed;
    try {
      claimed = await this.store.claim!(id, this.lease(), deadOwner);
    } finally {
      this.claiming.delete(id);
    }
    if (claimed.record?.status !== 'running') return undefined;
    this.logger.warn({ execution: id, flow: claimed.record.flow }, 'took over an execution whose process died');
    return this.drive(claimed.record);
  }

  private lease(): Lease {
    return { owner: this.owner, until: Date.now() + this.leaseMs };
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
      ...(input.auth ? { auth: input.auth } : {}),
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
    const vars = await evaluateValue(flow.compiledVars, {
      trigger,
      env,
      execution: { id: record.id, flow: flow.name, started_at: now },
      now,
      steps: {},
      vars: {},
    });
    record.vars = (vars && typeof vars === 'object' && !Array.isArray(vars) ? vars : {}) as JsonObject;
    if (this.queued && !options.parentId && !options.dryRun && !options.mocks) {
      // Queue mode: recorded as due now; the process that takes the job drives it.
      record.status = 'waiting';
      record.wake_at = Date.now();
      await this.store.insert(record);
      this.scheduler.schedule(record.id, record.wake_at);
      return { id: record.id, record, ...this.watchStored(record.id) };
    }
    if (this.store.insertLeased) await this.store.insertLeased(record, this.lease());
    else await this.store.insert(record);
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
    if (!this.store.claim) {
      const record = await this.store.get(id);
      if (record?.status !== 'waiting') return record;
      return this.drive(record);
    }
    // Two wakes of one execution in this process (a stalled job and a sweep) must not both drive it:
    // the first takes it, the second is remembered and looks again after.
    if (this.claiming.has(id)) {
      this.wakeRequested.add(id);
      return undefined;
    }
    this.claiming.add(id);
    let claimed;
    try {
      claimed = await this.store.claim(id, this.lease());
    } catch (err) {
      // The database is away: look again shortly (the same wake, later), whatever the scheduler.
      if (!isDependencyUnavailable(err) || this.abort.signal.aborted) throw err;
      this.scheduler.schedule(id, Date.now() + DEPENDENCY_RETRY_MS);
      return undefined;
    } finally {
      this.claiming.delete(id);
    }
    if (claimed.heldUntil !== undefined) {
      // Another process holds it: look again when its lease lapses (taken over if its holder died).
      if (!this.abort.signal.aborted) this.scheduler.schedule(id, claimed.heldUntil + 100);
      return undefined;
    }
    if (!claimed.record) return this.store.get(id);
    if (claimed.record.status !== 'running') return claimed.record;
    return this.drive(claimed.record);
  }

  /**
   * Answer and end of an execution driven by another process, read from the store: `responded`
   * when a respond step answered (or it ended without one), `settled` when it waits or ended.
   */
  private watchStored(id: string): Pick<ExecutionHandle, 'responded' | 'settled'> {
    const started = Date.now();
    const poll = <T>(pick: (r: ExecutionRecord) => T | undefined): Promise<T> =>
      new Promise((resolve, reject) => {
        let delay = 10;
        const look = () => {
          this.store.get(id).then((record) => {
            const value = record ? pick(record) : undefined;
            if (value !== undefined) return resolve(value);
            if (Date.now() - started > MAX_RESPONSE_POLL_MS || this.abort.signal.aborted)
              return reject(new Error(`execution ${id}: no answer within ${MAX_RESPONSE_POLL_MS} ms`));
            delay = Math.min(delay * 1.5, 200);
            setTimeout(look, delay).unref();
          }, reject);
        };
        look();
      });
    const responded = poll<{ value: WebhookResponse | undefined }>((r) =>
      r.response ? { value: r.response } : FINAL.has(r.status) ? { value: undefined } : undefined,
    ).then((r) => r.value);
    const settled = poll((r) => (FINAL.has(r.status) || (r.status === 'waiting' && r.steps.length > 0) ? r : undefined));
    // Nobody may await one of them: keep an unanswered poll from being an unhandled rejection.
    responded.catch(() => undefined);
    settled.catch(() => undefined);
    return { responded, settled };
  }

  /** Resolves when the execution reaches success, failed or stopped (following any waits). */
  async waitForEnd(id: string): Promise<ExecutionRecord> {
    return new Promise((resolve, reject) => {
      const list = this.finishers.get(id) ?? [];
      list.push(resolve);
      this.finishers.set(id, list);
      // Registered first, then checked: an end between the two cannot be missed. A final stored record
      // is final even while its drive is still unwinding (its finishers may already have been called).
      const look = () =>
        this.store.get(id).then((current) => {
          if (current && FINAL.has(current.status)) return resolve(current);
          // In queue mode another process may drive it: watch the store too.
          if (this.queued && !this.abort.signal.aborted) setTimeout(() => void look().catch(reject), 50).unref();
        }, reject);
      void look();
    });
  }

  /** The body an `immediately` webhook answers with (its expressions see `execution.id` and `trigger`). */
  async immediateBody(flow: LoadedFlow, record: ExecutionRecord): Promise<JsonValue> {
    if (!flow.compiledRespondBody) return { execution_id: record.id };
    return (
      (await evaluateValue(flow.compiledRespondBody, {
        execution: { id: record.id, flow: flow.name },
        trigger: record.trigger,
        env: this.flowEnv(flow),
      })) ?? null
    );
  }

  private drive(record: ExecutionRecord): Promise<ExecutionRecord> {
    const renewLease = this.store.renewLease?.bind(this.store);
    const renewal = renewLease
      ? setInterval(
          () => {
            renewLease(record.id, this.lease()).then(
              (kept) => {
                if (!kept && this.active.has(record.id))
                  this.logger.warn(
                    { execution: record.id, flow: record.flow },
                    'lost the lease on a running execution (another process may take it over)',
                  );
              },
              (err: unknown) => this.logger.warn({ execution: record.id, err: (err as Error).message }, 'renewing the lease failed'),
            );
          },
          Math.max(50, Math.floor(this.leaseMs / 3)),
        )
      : undefined;
    renewal?.unref();
    const promise = this.driveOnce(record).finally(() => {
      clearInterval(renewal);
      this.active.delete(record.id);
      if (this.wakeRequested.delete(record.id) && !this.abort.signal.aborted) void this.resume(record.id);
    });
    this.active.set(record.id, promise);
    // Storing the end failed (the database went away): the record stays `running` under this lease.
    // It is woken again shortly (resume re-claims it with this lease, and keeps trying while the
    // database is away); the sweep is the backstop. Logged here so it never goes unhandled.
    promise.catch((err: unknown) => {
      this.logger.error(
        { execution: record.id, flow: record.flow, err: (err as Error).message },
        'could not store the state of an execution; it is taken back later',
      );
      if (!this.abort.signal.aborted) this.scheduler.schedule(record.id, Date.now() + DEPENDENCY_RETRY_MS);
    });
    return promise;
  }

  private async driveOnce(record: ExecutionRecord): Promise<ExecutionRecord> {
    const flow = this.flows.get(record.flow);
    const startedAt = performance.now();
    record.status = 'running';
    const wakeAt = record.wake_at;
    // A wait resumed (not a queued start, which has no step yet): how late, for metrics.
    if (wakeAt !== undefined && record.steps.length > 0)
      notifyObserver(this.observer, this.logger, (o) => o.waitResumed?.(Math.max(0, Date.now() - wakeAt), record));
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
        observer: this.observer,
        saveResponses: this.queued,
        ...(this.store.listRunning && this.store.claim
          ? { interruptedPeersUntil: (r: ExecutionRecord) => this.interruptedPeersUntil(r) }
          : {}),
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
    await reportFlowMetrics(this.observer, this.logger, flow, record);
    return this.finish(record, startedAt);
  }

  private async finish(record: ExecutionRecord, startedAt: number): Promise<ExecutionRecord> {
    record.updated_at = new Date().toISOString();
    if (FINAL.has(record.status)) record.finished_at = record.updated_at;
    await this.store.update(record);
    const fields = {
      execution: record.id,
      flow: record.flow,
      status: record.status,
      ms: Math.round(performance.now() - startedAt),
      steps: record.steps.length,
    };
    if (record.status === 'failed') this.logger.warn({ ...fields, error: record.error?.message }, 'execution failed');
    else this.logger.info(fields, record.status === 'waiting' ? 'execution waiting' : 'execution finished');
    notifyObserver(this.observer, this.logger, (o) => o.executionEnded?.(record, fields.ms));
    if (record.status === 'waiting') {
      // Shutting down, a shared scheduler still takes the wait (another process resumes it).
      if (record.wake_at !== undefined && (!this.abort.signal.aborted || this.scheduler.durable))
        this.scheduler.schedule(record.id, record.wake_at);
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

  /**
   * NodeContext.interruptedPeersUntil: running executions of `self`'s flow, not driven here, whose
   * holder missed a lease renewal (renewed every third of the lease, so a lease ending sooner than
   * a third of it from now was not renewed on time; the holders are assumed to run with this
   * process's LEADFLOW_LEASE_MS) or is a dead process of this machine. Each is taken over now (dead
   * local holder) or scheduled for when its lease lapses. Returns the latest of those times.
   */
  private async interruptedPeersUntil(self: ExecutionRecord): Promise<number | null> {
    const now = Date.now();
    let latest: number | null = null;
    for (const running of await this.store.listRunning!()) {
      if (running.id === self.id || running.flow !== self.flow || running.lease_until === null) continue;
      if (this.active.has(running.id) || this.claiming.has(running.id)) continue;
      const deadHere = running.lease_owner !== null && isDeadLocalOwner(running.lease_owner);
      if (!deadHere && running.lease_until >= now + this.leaseMs / 3) continue;
      const until = deadHere ? now : Math.max(now, running.lease_until);
      if (deadHere)
        void this.takeOver(running.id, running.lease_owner!).catch((err: unknown) =>
          this.logger.warn({ execution: running.id, err: (err as Error).message }, 'taking over an interrupted execution failed'),
        );
      else this.scheduler.schedule(running.id, until + 100);
      latest = Math.max(latest ?? 0, until);
    }
    return latest;
  }

  /** `call-flow`: runs the child in this process; if it parks, the parent parks until the child wakes it. */
  private async callFlow(
    parent: ExecutionRecord,
    stepKey: string,
    name: string,
    input: JsonValue,
    state: JsonObject | undefined,
  ): Promise<JsonValue> {
    let child: ExecutionRecord | undefined;
    if (state && typeof state.child_id === 'string') {
      child = await this.store.get(state.child_id);
    } else {
      const handle = await this.start(name, { body: input }, { dryRun: parent.dry_run, parentId: parent.id });
      child = await handle.settled;
    }
    if (!child) throw new Error(`child execution of flow "${name}" is missing`);
    if (child.status === 'success' || child.status === 'stopped') return child.output ?? null;
    if (child.status === 'failed')
      throw new Error(`flow "${name}" (execution ${child.id}) failed: ${child.error?.message ?? 'unknown error'}`);
    throw new SuspendSignal(null, { child_id: child.id }, stepKey);
  }
}
