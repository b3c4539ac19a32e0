// The engine: starts executions of loaded flows, drives them through ExecutionRun, parks them when
// they wait and resumes them when the scheduler fires. Knows flows, not the business they serve: node types, services,
// store and scheduler are handed in by the host (the CLI). Holding executions among several
// processes is in run/leases.ts, run/take-over.ts and run/sweep.ts.
import { randomUUID } from 'node:crypto';
import { evaluateValue } from './expressions.js';
import { reportFlowMetrics } from './flow-metrics.js';
import { InputValidationError } from './errors/input-validation-error.js';
import { StepFailedError } from './errors/step-failed-error.js';
import { StopSignal } from './errors/stop-signal.js';
import { CancelSignal } from './errors/cancel-signal.js';
import { SuspendSignal } from './errors/suspend-signal.js';
import { toStepError } from './errors/to-step-error.js';
import { notifyObserver, type EngineObserver } from './observer.js';
import type { NodeRegistry } from './registry.js';
import { assertRecordableDepth } from './errors/value-too-deep-error.js';
import { cloneJson } from './run/clone-json.js';
import { ExecutionRun, type RunHost, type StepMock } from './run/execution-run.js';
import { type Logger, silentLogger } from './logger.js';
import { flowEnv } from './run/flow-env.js';
import { isoNow } from './run/iso-now.js';
import { executionKey } from './run/execution-keys.js';
import { FlowVersions } from './run/flow-versions.js';
import { DEFAULT_LEASE_MS, Leases, leaseOwnerName } from './run/leases.js';
import { schemaProblems } from './run/param-validator.js';
import { DEPENDENCY_RETRY_MS, isDependencyUnavailable } from './errors/dependency-unavailable.js';
import { sweepExecutions } from './run/sweep.js';
import { AFTER_LAPSE_MS, interruptedPeersUntil, type TakeOverHost } from './run/take-over.js';
import { InProcessScheduler } from './scheduler/in-process-scheduler.js';
import type { Scheduler } from './scheduler/scheduler.js';
import type { ClaimResult, ExecutionStore, Lease } from './store/execution-store.js';
import type { JournalEntry } from './store/journal.js';
import { MemoryExecutionStore } from './store/memory-store.js';
import { MemoryTickStore, type TickStore } from './store/tick-store.js';
import { ScheduleRunner } from './triggers/schedule-runner.js';
import { isFinalStatus } from './statuses.js';
import { GENERIC_SECRET_HEADERS } from './triggers/auth-modes.js';
import type { ExecutionRecord, JsonObject, JsonValue, LoadedFlow, StartedFlow, StartFlowOptions } from './types.js';

/** What an Engine is built from. Only `registry` and `flows` are required. */
export interface EngineOptions {
  /** Node types the flows' steps name. */
  registry: NodeRegistry;
  /** Loaded flows by name (see loadFlows); replaced later with Engine.setFlows. */
  flows: Map<string, LoadedFlow>;
  /** Where executions live. Default: a MemoryExecutionStore (lost with the process). */
  store?: ExecutionStore;
  /** Wakes waiting executions. Default: an InProcessScheduler (timers in this process). */
  scheduler?: Scheduler;
  /** Handed to every node as `ctx.services` (database, gateway, AI clients …). Default {}. */
  services?: Record<string, unknown>;
  /** Default: silentLogger. */
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
  /** Where schedule ticks are claimed (shared by every process on one database). Default: a MemoryTickStore. */
  ticks?: TickStore;
}

/** Longest a queued execution's webhook answer is awaited by polling the store, ms. */
const MAX_RESPONSE_POLL_MS = 300_000;

/**
 * What a trigger hands Engine.start. Credential headers and a `secret` query member are dropped
 * before the trigger is recorded; the rest is seen by expressions as `trigger.*`.
 */
export interface TriggerInput {
  /** The request body (validated against the flow's `trigger.input` schema, if any). */
  body: JsonValue;
  /** Request headers, names in lower case. Default {}. */
  headers?: Record<string, string>;
  /** Query string members. Default {}. */
  query?: Record<string, string>;
  /** What the trigger's authentication established (e.g. the instance of an instance token), recorded and seen as `trigger.auth`. */
  auth?: JsonObject;
  /** The tick of a schedule trigger (scheduleTriggerValue), recorded and seen as `trigger.schedule`. */
  schedule?: JsonObject;
}

/** How Engine.start runs an execution. */
export interface StartOptions {
  /** Nodes record outbound calls without performing them (`ctx.dryRun`). Default false. */
  dryRun?: boolean;
  /** Replace chosen steps' outputs or errors (flow tests). */
  mocks?: Record<string, StepMock>;
  /** The execution that started this one (`call-flow`); woken when this one ends. */
  parentId?: string;
  /**
   * Key of the new execution (replaces the flow's `concurrency.key`). With a key, the flow's running
   * or waiting execution of the same key is cancelled (ExecutionStore.insertReplacing).
   */
  key?: string;
  /** Id of the new execution (a UUID). Default: a new one. */
  id?: string;
}

/**
 * What Engine.cancelExecution did: cancelled the execution (`record` is the stored one, now
 * cancelled), or not (`record` is the stored one, in a status that cannot be cancelled; absent when
 * there is no such execution).
 */
export type CancelOutcome = { cancelled: true; record: ExecutionRecord } | { cancelled: false; record?: ExecutionRecord };

/** What a respond step answered: status, body and headers of the webhook's reply. */
export type WebhookResponse = NonNullable<ExecutionRecord['response']>;

/** A started execution, as Engine.start returns it. */
export interface ExecutionHandle {
  /** The execution id (a UUID). */
  id: string;
  /** The record as created, before any step ran. */
  record: ExecutionRecord;
  /** Resolves when this drive ends: finished, or parked waiting. */
  settled: Promise<ExecutionRecord>;
  /** Resolves when a respond step answers, or with undefined when the execution finishes without one. */
  responded: Promise<WebhookResponse | undefined>;
  /** Executions of the same flow and key this start cancelled (empty without a key). */
  replaced: string[];
}

/** Header names never stored with an execution from any entry (credentials); the webhook app also drops its auth modes' (WebhookAuthModes). */
const SECRET_HEADERS = new Set(GENERIC_SECRET_HEADERS);

/**
 * Starts executions of loaded flows and drives them: each drive walks the steps (ExecutionRun) until
 * the execution ends or parks at a wait; the scheduler wakes parked ones and `resume` drives them on.
 * With a store that has leases, several processes share the executions (queue mode: `queued`).
 *
 * @example
 * const registry = defaultRegistry(); // the node types (nodes/index.ts)
 * const { flows } = loadFlowDirectory('flows', registry);
 * const engine = new Engine({ registry, flows });
 * await engine.startScheduler();
 * const handle = await engine.start('hello', { body: { name: 'Ana' } });
 * const record = await engine.waitForEnd(handle.id); // record.status: success, failed or stopped
 * await engine.shutdown();
 */
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
  /** This process's name on leases (`host:pid:random`, see leaseOwnerName). */
  readonly owner = leaseOwnerName();
  private readonly leases: Leases;
  /** Versions of the flows, for executions pinned to one this process no longer serves (run/flow-versions.ts). */
  private readonly versions: FlowVersions;
  /** This engine as take-over and the sweep see it. */
  private readonly takeOverHost: TakeOverHost;
  private readonly abort = new AbortController();
  private readonly active = new Map<string, Promise<ExecutionRecord>>();
  private readonly wakeRequested = new Set<string>();
  /** Executions this process is taking from the store right now (claim in flight). */
  private readonly claiming = new Set<string>();
  private readonly mocks = new Map<string, Record<string, StepMock>>();
  private readonly responders = new Map<string, (r: WebhookResponse | undefined) => void>();
  private readonly finishers = new Map<string, Array<(r: ExecutionRecord) => void>>();
  /**
   * Executions driven (or being claimed) here that this process knows were cancelled in the store
   * (cancelExecution here, or their lease found lost to a cancel): their run stops before its next
   * step, whether or not they have a key. Emptied as their drives end.
   */
  private readonly cancelNoticed = new Set<string>();
  /** The flows' schedule triggers; run once startSchedules is called. */
  private readonly schedules: ScheduleRunner;
  /** What every drive's ExecutionRun is given (runHost), made at the first drive. */
  private sharedRunHost: RunHost | undefined;

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
    this.leases = new Leases(this.owner, options.leaseMs ?? DEFAULT_LEASE_MS);
    this.versions = new FlowVersions(this.store, this.registry);
    this.versions.remember(this.flows.values());
    this.takeOverHost = {
      store: this.store,
      scheduler: this.scheduler,
      logger: this.logger,
      leases: this.leases,
      isHeldHere: (id) => this.active.has(id) || this.claiming.has(id),
      claim: (id, takeOverFrom) => this.claimHere(id, takeOverFrom),
      drive: (record) => this.drive(record),
    };
    this.schedules = new ScheduleRunner({
      flows: () => this.listFlows(),
      start: (flow, schedule, id) => this.start(flow, { body: {}, schedule }, { id }),
      exists: async (id) => (await this.store.get(id)) !== undefined,
      ticks: options.ticks ?? new MemoryTickStore(),
      logger: this.logger,
    });
  }

  /** Ids of the executions being driven in this process now (queue depth). */
  runningIds(): string[] {
    return [...this.active.keys()];
  }

  /** The served flow of that name, or undefined. */
  getFlow(name: string): LoadedFlow | undefined {
    return this.flows.get(name);
  }

  /** The served flows, in the order of the map given. */
  listFlows(): LoadedFlow[] {
    return [...this.flows.values()];
  }

  /** Replaces the served flows (reload): new executions run the new versions; every other one finishes on its own version. */
  setFlows(flows: Map<string, LoadedFlow>): void {
    this.flows = flows;
    this.versions.remember(flows.values());
    notifyObserver(this.observer, this.logger, (o) => o.flowsLoaded?.([...flows.values()]));
    void this.schedules.reload();
  }

  /**
   * Starts the flows' schedule triggers (engine/triggers/schedule-runner.ts): catches up a tick
   * missed while no process ran, then runs each tick, claimed in the TickStore so it runs once
   * across every process. `serve` and `worker` call it; one-shot commands do not. Stopped by shutdown.
   */
  async startSchedules(): Promise<void> {
    await this.schedules.start();
  }

  /** Starts the scheduler and resumes every wait the store holds (overdue ones at once). */
  async startScheduler(): Promise<void> {
    this.scheduler.start((id) => this.resume(id).then(() => undefined));
    await this.sweep();
  }

  /**
   * Hands the scheduler every stored wait, and every running execution not driven here (its holder
   * may have died: it is taken over when its lease lapses, at once when it was a dead process of this
   * machine). Idempotent; `serve` and `worker` call it at start and every minute, so a scheduler that
   * lost its timers (restart, Redis flushed) recovers. See sweepExecutions. Rejects when the store
   * cannot be reached.
   */
  async sweep(): Promise<void> {
    await sweepExecutions(this.takeOverHost);
  }

  /** ExecutionStore.claim with a fresh lease of this process; the id counts as claimed here meanwhile. */
  private async claimHere(id: string, takeOverFrom?: string): Promise<ClaimResult> {
    this.claiming.add(id);
    try {
      return await this.store.claim(id, this.leases.fresh(), takeOverFrom);
    } finally {
      this.claiming.delete(id);
    }
  }

  /** Stops timers and aborts running steps; waits stay in the store. */
  async shutdown(): Promise<void> {
    this.schedules.stop();
    this.scheduler.stop();
    this.abort.abort(new Error('engine shutting down'));
    await Promise.allSettled([...this.active.values()]);
  }

  /** The flow's allow-listed `env.*` values, read from EngineOptions.env. */
  flowEnv(flow: LoadedFlow): Record<string, JsonValue> {
    return flowEnv(flow.env, this.env);
  }

  /**
   * Validates the input, records a new execution and starts driving it (not awaited). In queue mode
   * (without parent, dry run or mocks) it is recorded as due and left to whichever process takes it.
   * With a key (`options.key`, or the flow's `concurrency.key`), the flow's running or waiting
   * execution of that key is cancelled in the same step as the new one is recorded (`replaced`).
   * Throws when the flow is unknown, InputValidationError when the body fails the flow's input
   * schema; rejects when the key cannot be evaluated or the store cannot be reached.
   */
  async start(flowName: string, input: TriggerInput, options: StartOptions = {}): Promise<ExecutionHandle> {
    const record = await this.newRecord(flowName, input, options);
    if (this.queued && !options.parentId && !options.dryRun && !options.mocks) {
      // Queue mode: recorded as due now; the process that takes the job drives it.
      record.status = 'waiting';
      record.wake_at = Date.now();
      const replaced = await this.insertNew(record);
      this.scheduler.schedule(record.id, record.wake_at);
      return { id: record.id, record, replaced, ...this.watchStored(record.id) };
    }
    const replaced = await this.insertNew(record, this.leases.fresh());
    if (options.mocks) this.mocks.set(record.id, options.mocks);
    const responded = new Promise<WebhookResponse | undefined>((resolve) => this.responders.set(record.id, resolve));
    // The drive's own copy: the handle's record stays as created.
    const settled = this.drive(cloneJson(record));
    return { id: record.id, record, settled, responded, replaced };
  }

  /**
   * A new record of the flow (status `running`): input validated, credentials dropped from the
   * trigger, initial vars evaluated, key found (executionKey). Throws like `start`.
   */
  private async newRecord(flowName: string, input: TriggerInput, options: StartOptions): Promise<ExecutionRecord> {
    const flow = this.flows.get(flowName);
    if (!flow) throw new Error(`unknown flow "${flowName}"`);
    // Before anything walks it recursively (the schema, the record's copies and JSON text).
    assertRecordableDepth(input.body, 'trigger body');
    if (flow.trigger.input) {
      const problems = schemaProblems(flow.trigger.input, input.body);
      if (problems.length > 0) throw new InputValidationError(flow.name, problems);
    }
    const now = isoNow();
    const trigger: JsonObject = {
      body: input.body,
      headers: Object.fromEntries(Object.entries(input.headers ?? {}).filter(([k]) => !SECRET_HEADERS.has(k.toLowerCase()))),
      query: Object.fromEntries(Object.entries(input.query ?? {}).filter(([k]) => k !== 'secret')),
      ...(input.auth ? { auth: input.auth } : {}),
      ...(input.schedule ? { schedule: input.schedule } : {}),
    };
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
    const env = this.flowEnv(flow);
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
    await this.versions.store(flow);
    return record;
  }

  /** Stores a new record (holding `lease` when given); with a key, cancelling the flow's unfinished one of that key. Returns the ids cancelled. */
  private async insertNew(record: ExecutionRecord, lease?: Lease): Promise<string[]> {
    if (record.concurrency_key !== undefined) {
      const replaced = await this.store.insertReplacing(record, lease);
      await this.afterCancel(replaced);
      return replaced;
    }
    if (lease) await this.store.insertLeased(record, lease);
    else await this.store.insert(record);
    return [];
  }

  /**
   * Cancels the running or waiting execution(s) of `flowName` under `key` (status `cancelled`,
   * `reason` as stop reason), in whatever process they are: a waiting one is never resumed, a
   * running one ends before its next step. Resolves to the ids cancelled (empty: none). Rejects when
   * the store cannot be reached.
   */
  async cancel(flowName: string, key: string, reason: string, by?: string): Promise<string[]> {
    const ids = await this.store.cancelByKey(flowName, key, reason, by);
    await this.afterCancel(ids);
    return ids;
  }

  /**
   * Cancels the execution `id` when it is running or waiting (status `cancelled`, `reason` as stop
   * reason), in whatever process it is, as `cancel` does for a flow and key: a waiting one is never
   * resumed and its parent, if one awaits it, is woken; a running one finishes the step it is in and
   * ends before the next (driven here: at once; by another process: once that process sees it, at its
   * next save for an execution with a key, else at its next lease renewal, a third of the lease life).
   * Resolves to `{cancelled: true, record}` (the stored record, now cancelled), `{cancelled: false,
   * record}` when it is in another status, or `{cancelled: false}` when there is no such execution.
   * Rejects when the store cannot be reached.
   */
  async cancelExecution(id: string, reason: string): Promise<CancelOutcome> {
    const from = await this.store.cancelById(id, reason);
    if (from === undefined) {
      const record = await this.store.get(id);
      return record ? { cancelled: false, record } : { cancelled: false };
    }
    await this.afterCancel([id]);
    const record = (await this.store.get(id))!;
    // A waiting one ends without a drive (no executionEnded): told here. A running one is told by its drive's end.
    if (from === 'waiting') notifyObserver(this.observer, this.logger, (o) => o.executionCancelled?.(record));
    this.logger.info({ execution: id, flow: record.flow, was: from }, 'execution cancelled');
    return { cancelled: true, record };
  }

  /** After executions were cancelled in the store: drop their timers, tell who awaits their end here, wake their parents. */
  private async afterCancel(ids: string[]): Promise<void> {
    for (const id of ids) {
      this.scheduler.cancel(id);
      // Driven here now: its drive sees the cancel and ends it (finish). Being taken here: its drive, if
      // the claim came first, sees it too.
      if (this.active.has(id) || this.claiming.has(id)) this.cancelNoticed.add(id);
      if (this.active.has(id)) continue;
      const record = await this.store.get(id);
      if (!record) continue;
      this.responders.get(id)?.(undefined);
      this.responders.delete(id);
      for (const resolve of this.finishers.get(id) ?? []) resolve(structuredClone(record));
      this.finishers.delete(id);
      if (record.parent_id) this.scheduler.schedule(record.parent_id, Date.now());
    }
  }

  /** NodeContext.startFlow: starts the flow (no parent: nothing waits for it). In a dry run, only its key is found. */
  private async startFlowFor(parent: ExecutionRecord, name: string, input: JsonValue, options: StartFlowOptions): Promise<StartedFlow> {
    if (parent.dry_run) {
      const record = await this.newRecord(name, { body: input }, { key: options.key, dryRun: true });
      return { execution_id: null, key: record.concurrency_key ?? null, replaced: [] };
    }
    // The step ran before (a crash after the start): the start is not made twice.
    const earlier = options.id ? await this.store.get(options.id) : undefined;
    if (earlier) return { execution_id: earlier.id, key: earlier.concurrency_key ?? null, replaced: [] };
    const handle = await this.start(name, { body: input }, { key: options.key, id: options.id });
    return { execution_id: handle.id, key: handle.record.concurrency_key ?? null, replaced: handle.replaced };
  }

  /** NodeContext.cancelFlow: Engine.cancel; in a dry run, nothing is cancelled (null). */
  private async cancelFlowFor(parent: ExecutionRecord, name: string, key: string, reason: string): Promise<string | null> {
    if (!this.flows.has(name)) throw new Error(`unknown flow "${name}"`);
    if (parent.dry_run) return null;
    return (await this.cancel(name, key, reason, parent.id))[0] ?? null;
  }

  /**
   * Resumes a waiting execution (no-op for any other status, or when it is already running here).
   * Resolves with the record after this drive, or undefined when another process holds it or the
   * store is away (then it is looked at again later). Rejects on any other store error.
   */
  async resume(id: string): Promise<ExecutionRecord | undefined> {
    const running = this.active.get(id);
    if (running) {
      // Woken while still running here (e.g. a child flow ended as its parent parks): look again after.
      this.wakeRequested.add(id);
      return running;
    }
    // Two wakes of one execution in this process (a stalled job and a sweep) must not both drive it:
    // the first takes it, the second is remembered and looks again after.
    if (this.claiming.has(id)) {
      this.wakeRequested.add(id);
      return undefined;
    }
    let claimed: ClaimResult;
    try {
      claimed = await this.claimHere(id);
    } catch (err) {
      // The database is away: look again shortly (the same wake, later), whatever the scheduler.
      if (!isDependencyUnavailable(err) || this.abort.signal.aborted) throw err;
      this.scheduler.schedule(id, Date.now() + DEPENDENCY_RETRY_MS);
      return undefined;
    }
    if (claimed.heldUntil !== undefined) {
      // Another process holds it: look again when its lease lapses (taken over if its holder died).
      if (!this.abort.signal.aborted) this.scheduler.schedule(id, claimed.heldUntil + AFTER_LAPSE_MS);
      return undefined;
    }
    if (!claimed.record) {
      this.cancelNoticed.delete(id);
      return this.store.get(id);
    }
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
      r.response ? { value: r.response } : isFinalStatus(r.status) ? { value: undefined } : undefined,
    ).then((r) => r.value);
    const settled = poll((r) => (isFinalStatus(r.status) || (r.status === 'waiting' && r.steps.length > 0) ? r : undefined));
    // Nobody may await one of them: keep an unanswered poll from being an unhandled rejection.
    responded.catch(() => undefined);
    settled.catch(() => undefined);
    return { responded, settled };
  }

  /**
   * Resolves when the execution reaches a final status (success, failed, stopped or cancelled), following any
   * waits; never resolves for an execution that never ends. Rejects when the store cannot be read.
   */
  async waitForEnd(id: string): Promise<ExecutionRecord> {
    return new Promise((resolve, reject) => {
      const list = this.finishers.get(id) ?? [];
      list.push(resolve);
      this.finishers.set(id, list);
      // Registered first, then checked: an end between the two cannot be missed. A final stored record
      // is final even while its drive is still unwinding (its finishers may already have been called).
      const look = () =>
        this.store.get(id).then((current) => {
          if (current && isFinalStatus(current.status)) return resolve(current);
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

  /** Drives a record claimed for this process, its lease kept renewed meanwhile; resolves when the drive ends. */
  private drive(record: ExecutionRecord): Promise<ExecutionRecord> {
    const stopRenewal = this.leases.keepRenewed(
      this.store,
      record,
      this.logger,
      () => this.active.has(record.id),
      () => this.cancelNoticed.add(record.id),
    );
    const promise = this.driveOnce(record).finally(() => {
      stopRenewal();
      this.active.delete(record.id);
      this.cancelNoticed.delete(record.id);
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

  /** One drive: marks the record running, walks its steps on its own flow version, and stores where it ended (finish). */
  private async driveOnce(record: ExecutionRecord): Promise<ExecutionRecord> {
    const pinned = await this.versions.flowFor(record, this.flows.get(record.flow));
    const startedAt = performance.now();
    record.status = 'running';
    const wakeAt = record.wake_at;
    // A wait resumed (not a queued start, which has no step yet): how late, for metrics.
    if (wakeAt !== undefined && record.steps.length > 0)
      notifyObserver(this.observer, this.logger, (o) => o.waitResumed?.(Math.max(0, Date.now() - wakeAt), record));
    delete record.wake_at;
    if (!pinned.flow) {
      record.status = 'failed';
      record.error = { name: 'Error', message: pinned.error };
      return this.finish(record, startedAt);
    }
    const flow = pinned.flow;
    const run = new ExecutionRun(this.runHost(record), flow, record, this.flowEnv(flow));
    try {
      record.output = await run.run();
      record.status = 'success';
    } catch (err) {
      this.recordThrown(record, err);
    }
    await run.flush();
    await reportFlowMetrics(this.observer, this.logger, flow, record);
    return this.finish(record, startedAt);
  }

  /** What an ExecutionRun of `record` is given: node types, services, and the engine's hooks (the same for every drive but the mocks). */
  private runHost(record: ExecutionRecord): RunHost {
    this.sharedRunHost ??= this.makeRunHost();
    const mocks = this.mocks.get(record.id);
    return mocks ? { ...this.sharedRunHost, mocks } : this.sharedRunHost;
  }

  private makeRunHost(): RunHost {
    return {
      registry: this.registry,
      services: this.services,
      logger: this.logger,
      signal: this.abort.signal,
      save: (r) => this.store.update(r),
      append: (entry: JournalEntry) => this.store.appendJournal(entry),
      isCancelled: async (id) => (await this.store.statusOf(id)) === 'cancelled',
      cancelNoticed: (id) => this.cancelNoticed.has(id),
      startFlow: (parent, name, input, options) => this.startFlowFor(parent, name, input, options),
      cancelFlow: (parent, name, key, reason) => this.cancelFlowFor(parent, name, key, reason),
      respond: (r) => {
        this.responders.get(r.id)?.(r.response);
        this.responders.delete(r.id);
      },
      callFlow: (parent, stepKey, name, input, state) => this.callFlow(parent, stepKey, name, input, state),
      observer: this.observer,
      saveResponses: this.queued,
      interruptedPeersUntil: (r: ExecutionRecord) => interruptedPeersUntil(this.takeOverHost, r),
    };
  }

  /** Sets the record's status (and error, stop reason or wake time) from what its run threw. */
  private recordThrown(record: ExecutionRecord, err: unknown): void {
    if (this.abort.signal.aborted) {
      // Shutting down: hand the execution back as due now; the next start resumes it from its records.
      record.status = 'waiting';
      record.wake_at = Date.now();
    } else if (err instanceof SuspendSignal) {
      record.status = 'waiting';
      if (err.wakeAt !== null) record.wake_at = err.wakeAt;
    } else if (err instanceof CancelSignal) {
      // Its stop reason is the store's: finish reads it back (adoptCancel).
      record.status = 'cancelled';
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

  private async finish(record: ExecutionRecord, startedAt: number): Promise<ExecutionRecord> {
    record.updated_at = isoNow();
    if (isFinalStatus(record.status)) record.finished_at = record.updated_at;
    await this.store.update(record);
    // A keyed execution may have been cancelled meanwhile, in any process, and one this process was
    // told of (cancelExecution) too: the store kept that.
    if (record.concurrency_key !== undefined || record.status === 'cancelled' || this.cancelNoticed.has(record.id))
      await this.adoptCancel(record);
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

  /** The cancellation the store holds for `record` (cancelled meanwhile, in any process), copied onto it; nothing when it is not cancelled. */
  private async adoptCancel(record: ExecutionRecord): Promise<void> {
    const stored = await this.store.get(record.id);
    if (stored?.status !== 'cancelled') return;
    record.status = 'cancelled';
    delete record.wake_at;
    for (const field of ['stop_reason', 'replaced_by', 'finished_at'] as const) {
      if (stored?.[field] !== undefined) record[field] = stored[field];
    }
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
    if (child.status === 'cancelled')
      throw new Error(`flow "${name}" (execution ${child.id}) was cancelled: ${child.stop_reason ?? 'no reason given'}`);
    throw new SuspendSignal(null, { child_id: child.id }, stepKey);
  }
}
