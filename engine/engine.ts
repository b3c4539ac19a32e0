// The engine: starts executions of loaded flows, drives them through ExecutionRun, parks them when
// they wait and resumes them when the scheduler fires. Knows flows, not the business they serve: node
// types, services, store and scheduler are handed in by the host (the CLI). Its parts, in engine/run/:
// new records (new-record.ts), the drives in this process (drives.ts, drive-outcome.ts), cancels
// (cancels.ts), child flows (child-flows.ts), who awaits an end (end-waiters.ts), following
// executions another process drives (store-poll.ts); holding executions among several processes is
// in leases.ts, take-over.ts and sweep.ts (the sweep and the take-over check).
import { evaluateValue } from './expressions.js';
import type { CancelOutcome, EngineOptions, ExecutionHandle, StartOptions, TriggerInput } from './engine-options.js';
import { notifyObserver, type EngineObserver } from './observer.js';
import type { NodeRegistry } from './registry.js';
import { Cancels } from './run/cancels.js';
import { Drives } from './run/drives.js';
import { ChildFlows } from './run/child-flows.js';
import { cloneJson } from './run/clone-json.js';
import { EndWaiters } from './run/end-waiters.js';
import { flowEnv } from './run/flow-env.js';
import { FlowVersions } from './run/flow-versions.js';
import { DEFAULT_LEASE_MS, Leases, leaseOwnerName } from './run/leases.js';
import { insertNew, newRecord, type NewRecordHost } from './run/new-record.js';
import { lookForEnd, watchStored } from './run/store-poll.js';
import { sweepExecutions, takeOverDeadLocalHolders } from './run/sweep.js';
import { InProcessScheduler } from './scheduler/in-process-scheduler.js';
import type { Scheduler } from './scheduler/scheduler.js';
import type { ExecutionStore, Lease } from './store/execution-store.js';
import { MemoryExecutionStore } from './store/memory-store.js';
import { MemoryTickStore } from './store/tick-store.js';
import { ScheduleRunner } from './triggers/schedule-runner.js';
import { type Logger, silentLogger } from './logger.js';
import type { ExecutionRecord, JsonValue, LoadedFlow } from './types.js';

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
  private readonly abort = new AbortController();
  /** The executions driven here and their drives. */
  private readonly drives: Drives;
  /** What new records are built with (run/new-record.ts). */
  private readonly recordHost: NewRecordHost;
  /** Who awaits the end of executions here: webhook answers, waitForEnd, parents. */
  private readonly waiters: EndWaiters;
  /** Cancels by key and by id, and what follows them here. */
  private readonly cancels: Cancels;
  /** The flows the steps start, cancel and call. */
  private readonly children: ChildFlows;
  /** The flows' schedule triggers; run once startSchedules is called. */
  private readonly schedules: ScheduleRunner;

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
    this.recordHost = { flow: (name) => this.flows.get(name), flowEnv: (flow) => this.flowEnv(flow), versions: this.versions };
    this.waiters = new EndWaiters(this.scheduler);
    this.cancels = new Cancels({
      store: this.store,
      scheduler: this.scheduler,
      waiters: this.waiters,
      observer: this.observer,
      logger: this.logger,
      noticeCancel: (id) => this.drives.noticeCancel(id),
    });
    this.children = new ChildFlows({
      store: this.store,
      hasFlow: (name) => this.flows.has(name),
      newRecord: (name, input, options) => newRecord(this.recordHost, name, input, options),
      start: (name, input, options) => this.start(name, input, options),
      cancel: (name, key, reason, by) => this.cancel(name, key, reason, by),
      recheckMs: this.leases.ms,
    });
    this.drives = new Drives({
      registry: this.registry,
      store: this.store,
      scheduler: this.scheduler,
      services: this.services,
      logger: this.logger,
      observer: this.observer,
      queued: this.queued,
      leases: this.leases,
      versions: this.versions,
      signal: this.abort.signal,
      waiters: this.waiters,
      children: this.children,
      flow: (name) => this.flows.get(name),
      flowEnv: (flow) => this.flowEnv(flow),
    });
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
    return this.drives.runningIds();
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
    await sweepExecutions(this.drives.takeOverHost);
  }

  /**
   * The take-over check (see takeOverDeadLocalHolders): running executions whose holder is a dead
   * process of this machine are taken over now. One store read; resolves to the ids taken over (their
   * drives go on). `serve` and `worker` call it every LEADFLOW_TAKE_OVER_CHECK_MS. Nothing after
   * shutdown. Rejects when the store cannot be reached.
   */
  async takeOverDeadHolders(): Promise<string[]> {
    if (this.abort.signal.aborted) return [];
    return takeOverDeadLocalHolders(this.drives.takeOverHost);
  }

  /** Stops timers and aborts running steps; waits stay in the store. */
  async shutdown(): Promise<void> {
    this.schedules.stop();
    this.scheduler.stop();
    this.abort.abort(new Error('engine shutting down'));
    await this.drives.settled();
  }

  /** The flow's allow-listed `env.*` values, read from EngineOptions.env. */
  flowEnv(flow: LoadedFlow): Record<string, JsonValue> {
    return flowEnv(flow.env, this.env);
  }

  /**
   * Validates the input, records a new execution and starts driving it (not awaited). In queue mode
   * (without parent, dry run or mocks) it is recorded as due and left to whichever process takes it.
   * With `deferInsert` (see StartOptions) it is recorded by the drive's first write instead.
   * With a key (`options.key`, or the flow's `concurrency.key`), the flow's running or waiting
   * execution of that key is cancelled in the same step as the new one is recorded (`replaced`).
   * Throws when the flow is unknown, InputValidationError when the body fails the flow's input
   * schema; rejects when the key cannot be evaluated or the store cannot be reached.
   */
  async start(flowName: string, input: TriggerInput, options: StartOptions = {}): Promise<ExecutionHandle> {
    const record = await newRecord(this.recordHost, flowName, input, options);
    if (this.queued && !options.parentId && !options.dryRun && !options.mocks) {
      // Queue mode: recorded as due now; the process that takes the job drives it.
      record.status = 'waiting';
      record.wake_at = Date.now();
      const replaced = await this.insertNew(record);
      this.scheduler.schedule(record.id, record.wake_at);
      return { id: record.id, record, replaced, ...watchStored(this.store, record.id, this.abort.signal) };
    }
    if (options.deferInsert && record.concurrency_key === undefined && !options.parentId && !options.dryRun && !options.mocks) {
      const responded = this.waiters.response(record.id);
      // Rejects when the record cannot be stored (EndWaiters.failed): never unhandled, whoever awaits it.
      responded.catch(() => undefined);
      const settled = this.drives.drive(cloneJson(record), true);
      return { id: record.id, record, settled, responded, replaced: [], stored: () => this.drives.stored(record.id) };
    }
    const replaced = await this.insertNew(record, this.leases.fresh());
    if (options.mocks) this.drives.setMocks(record.id, options.mocks);
    const responded = this.waiters.response(record.id);
    // The drive's own copy: the handle's record stays as created.
    const settled = this.drives.drive(cloneJson(record));
    return { id: record.id, record, settled, responded, replaced };
  }

  /** Stores a new record (insertNew); with a key, the executions it replaced are cancelled here too (Cancels.after). Returns their ids. */
  private async insertNew(record: ExecutionRecord, lease?: Lease): Promise<string[]> {
    const replaced = await insertNew(this.store, record, lease);
    await this.cancels.after(replaced);
    return replaced;
  }

  /**
   * Cancels the running or waiting execution(s) of `flowName` under `key` (status `cancelled`,
   * `reason` as stop reason), in whatever process they are: a waiting one is never resumed, a
   * running one ends before its next step. Resolves to the ids cancelled (empty: none). Rejects when
   * the store cannot be reached.
   */
  cancel(flowName: string, key: string, reason: string, by?: string): Promise<string[]> {
    return this.cancels.byKey(flowName, key, reason, by);
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
  cancelExecution(id: string, reason: string): Promise<CancelOutcome> {
    return this.cancels.byId(id, reason);
  }

  /**
   * Resumes a waiting execution (no-op for any other status, or when it is already running here).
   * Resolves with the record after this drive, or undefined when another process holds it or the
   * store is away (then it is looked at again later). Rejects on any other store error.
   */
  resume(id: string): Promise<ExecutionRecord | undefined> {
    return this.drives.resume(id);
  }

  /**
   * Resolves when the execution reaches a final status (success, failed, stopped or cancelled), following any
   * waits; never resolves for an execution that never ends. Rejects when the store cannot be read.
   */
  async waitForEnd(id: string): Promise<ExecutionRecord> {
    return new Promise((resolve, reject) => {
      this.waiters.onEnd(id, resolve);
      // Registered first, then checked: an end between the two cannot be missed. A final stored record
      // is final even while its drive is still unwinding (its finishers may already have been called).
      // In queue mode another process may drive it: the store is watched too.
      lookForEnd(this.store, id, this.queued, this.abort.signal, resolve, reject);
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
}
