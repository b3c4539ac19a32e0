// Driving executions in this process: claiming them from the store, one drive at a time per
// execution (a second wake meanwhile looks again after), each drive walking the steps through an
// ExecutionRun under a lease kept renewed, and storing where it ended. Engine.start and Engine.resume
// hand executions here; the sweep and take-over reach them through `takeOverHost`.
import { DEPENDENCY_RETRY_MS } from '../errors/dependency-unavailable.js';
import { reportFlowMetrics } from '../flow-metrics.js';
import type { Logger } from '../logger.js';
import { notifyObserver, type EngineObserver } from '../observer.js';
import type { NodeRegistry } from '../registry.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import { isFinalStatus } from '../statuses.js';
import type { ClaimResult, ExecutionStore } from '../store/execution-store.js';
import type { JournalEntry } from '../store/journal.js';
import type { ExecutionRecord, JsonValue, LoadedFlow } from '../types.js';
import type { ChildFlows } from './child-flows.js';
import { adoptCancel, recordThrown, reportDriveEnd } from './drive-outcome.js';
import type { EndWaiters } from './end-waiters.js';
import { ExecutionRun } from './execution-run.js';
import type { RunHost, StepMock } from './run-host.js';
import type { FlowVersions } from './flow-versions.js';
import { isoNow } from './iso-now.js';
import type { Leases } from './leases.js';
import { claimOrLookLater, interruptedPeersUntil, type TakeOverHost } from './take-over.js';

/** What drives need of the engine: its parts and settings (see EngineOptions). */
export interface DriveHost {
  readonly registry: NodeRegistry;
  readonly store: ExecutionStore;
  readonly scheduler: Scheduler;
  /** Handed to every node as `ctx.services`. */
  readonly services: Record<string, unknown>;
  readonly logger: Logger;
  readonly observer: EngineObserver | undefined;
  /** Queue mode: a respond step's answer is stored at once (read back by the process that took the request). */
  readonly queued: boolean;
  readonly leases: Leases;
  readonly versions: FlowVersions;
  /** Aborted when the engine shuts down: running steps are aborted, nothing new is scheduled. */
  readonly signal: AbortSignal;
  readonly waiters: EndWaiters;
  readonly children: ChildFlows;
  /** The served flow of that name, or undefined. */
  flow(name: string): LoadedFlow | undefined;
  /** The flow's allow-listed `env.*` values. */
  flowEnv(flow: LoadedFlow): Record<string, JsonValue>;
}

/** The executions this process drives or is claiming, and their drives (see the file comment). */
export class Drives {
  private readonly active = new Map<string, Promise<ExecutionRecord>>();
  private readonly wakeRequested = new Set<string>();
  /** Executions this process is taking from the store right now (claim in flight). */
  private readonly claiming = new Set<string>();
  private readonly mocks = new Map<string, Record<string, StepMock>>();
  /**
   * Executions driven (or being claimed) here that this process knows were cancelled in the store
   * (cancelExecution here, or their lease found lost to a cancel): their run stops before its next
   * step, whether or not they have a key. Emptied as their drives end.
   */
  private readonly cancelNoticed = new Set<string>();
  /**
   * Executions driven here whose record is not stored yet (a deferred start, Engine.start
   * `deferInsert`): their run once it is made (null before), until their first write or their end.
   */
  private readonly unstored = new Map<string, ExecutionRun | null>();
  /** What every drive's ExecutionRun is given (runHost), made at the first drive. */
  private sharedRunHost: RunHost | undefined;
  /** These drives as take-over and the sweep see them. */
  readonly takeOverHost: TakeOverHost;

  constructor(private readonly host: DriveHost) {
    this.takeOverHost = {
      store: host.store,
      scheduler: host.scheduler,
      logger: host.logger,
      leases: host.leases,
      isHeldHere: (id) => this.active.has(id) || this.claiming.has(id),
      claim: (id, takeOverFrom) => this.claimHere(id, takeOverFrom),
      drive: (record) => this.drive(record),
    };
  }

  /** Ids of the executions being driven in this process now. */
  runningIds(): string[] {
    return [...this.active.keys()];
  }

  /** Resolves when every drive in progress has ended (shutdown). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.active.values()]);
  }

  /** A flow test's mocks for the steps of execution `id`, kept until it ends. */
  setMocks(id: string, mocks: Record<string, StepMock>): void {
    this.mocks.set(id, mocks);
  }

  /**
   * Execution `id` was cancelled in the store: when driven or being claimed here, its run stops
   * before its next step. True when it is driven here (its drive's end tells who awaits it).
   */
  noticeCancel(id: string): boolean {
    const driven = this.active.has(id);
    if (driven || this.claiming.has(id)) this.cancelNoticed.add(id);
    return driven;
  }

  /** ExecutionStore.claim with a fresh lease of this process; the id counts as claimed here meanwhile. */
  private async claimHere(id: string, takeOverFrom?: string): Promise<ClaimResult> {
    this.claiming.add(id);
    try {
      return await this.host.store.claim(id, this.host.leases.fresh(), takeOverFrom);
    } finally {
      this.claiming.delete(id);
    }
  }

  /** Engine.resume (see there). */
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
    const claimed = await claimOrLookLater(this.takeOverHost, id, this.host.signal);
    if (!claimed) return undefined;
    if (!claimed.record) {
      this.cancelNoticed.delete(id);
      return this.host.store.get(id);
    }
    if (claimed.record.status !== 'running') return claimed.record;
    return this.drive(claimed.record);
  }

  /**
   * Drives a record claimed for this process, its lease kept renewed meanwhile; resolves when the
   * drive ends. With `unstored`, the record is not in the store yet: the drive's first write inserts
   * it (run-saves.ts), and a failure to store it is told to whoever awaits its answer.
   */
  drive(record: ExecutionRecord, unstored = false): Promise<ExecutionRecord> {
    if (unstored) this.unstored.set(record.id, null);
    const stopRenewal = this.host.leases.keepRenewed(
      this.host.store,
      record,
      this.host.logger,
      () => this.active.has(record.id) && !this.isUnstored(record.id),
      () => this.cancelNoticed.add(record.id),
    );
    const promise = this.driveOnce(record).finally(() => {
      stopRenewal();
      this.unstored.delete(record.id);
      this.active.delete(record.id);
      this.cancelNoticed.delete(record.id);
      if (this.wakeRequested.delete(record.id) && !this.host.signal.aborted) void this.resume(record.id);
    });
    this.active.set(record.id, promise);
    // Storing the end failed (the database went away): the record stays `running` under this lease.
    // It is woken again shortly (resume re-claims it with this lease, and keeps trying while the
    // database is away); the sweep is the backstop. Logged here so it never goes unhandled.
    promise.catch((err: unknown) => {
      this.host.logger.error(
        { execution: record.id, flow: record.flow, err: (err as Error).message },
        'could not store the state of an execution; it is taken back later',
      );
      if (!this.host.signal.aborted) this.host.scheduler.schedule(record.id, Date.now() + DEPENDENCY_RETRY_MS);
    });
    return promise;
  }

  /** One drive: marks the record running, walks its steps on its own flow version, and stores where it ended (finish). */
  private async driveOnce(record: ExecutionRecord): Promise<ExecutionRecord> {
    const pinned = await this.host.versions.flowFor(record, this.host.flow(record.flow));
    const unstored = this.unstored.has(record.id);
    const startedAt = performance.now();
    record.status = 'running';
    const wakeAt = record.wake_at;
    // A wait resumed (not a queued start, which has no step yet): how late, for metrics.
    if (wakeAt !== undefined && record.steps.length > 0)
      notifyObserver(this.host.observer, this.host.logger, (o) => o.waitResumed?.(Math.max(0, Date.now() - wakeAt), record));
    delete record.wake_at;
    if (!pinned.flow) {
      record.status = 'failed';
      record.error = { name: 'Error', message: pinned.error };
      return this.finish(record, startedAt);
    }
    const flow = pinned.flow;
    const insert = unstored ? (r: ExecutionRecord) => this.host.store.insertLeased(r, this.host.leases.fresh()) : undefined;
    const run = new ExecutionRun(this.runHost(record), flow, record, this.host.flowEnv(flow), insert);
    if (unstored) this.unstored.set(record.id, run);
    try {
      record.output = await run.run();
      record.status = 'success';
    } catch (err) {
      recordThrown(record, err, this.host.signal.aborted);
    }
    await run.flush();
    await reportFlowMetrics(this.host.observer, this.host.logger, flow, record);
    return this.finish(record, startedAt, run);
  }

  /**
   * Stores where a drive ended: a wait parks the record (ExecutionStore.park: the steps since the
   * last save and the wake time, not the whole record again) when its run can say what changed;
   * anything else, or a park that found no row, writes it whole (ExecutionStore.update).
   */
  private async store(record: ExecutionRecord, run: ExecutionRun | undefined): Promise<void> {
    if (this.isUnstored(record.id)) return this.insertFinal(record);
    const entry = record.status === 'waiting' ? run?.parkEntry(record.updated_at) : undefined;
    if (entry && (await this.host.store.park(entry, { wake_at: record.wake_at ?? null, updated_at: record.updated_at }))) return;
    await this.host.store.update(record);
  }

  /**
   * The end of a drive whose record was never stored: it is inserted as it ended, in one write, and
   * a respond step's answer held meanwhile is handed on; when that fails, whoever awaits the answer
   * is told (EndWaiters.failed) and the drive rejects.
   */
  private async insertFinal(record: ExecutionRecord): Promise<void> {
    try {
      await this.host.store.insert(record);
    } catch (err) {
      this.host.waiters.failed(record.id, err);
      throw err;
    }
    this.unstored.delete(record.id);
    if (record.response) this.host.waiters.respond(record.id, record.response);
  }

  /**
   * Resolves once execution `id`'s record is in the store: at once unless it is a deferred start
   * driven here and not written yet, which is then inserted now (RunSaves.store). Rejects when that
   * insert fails.
   */
  async stored(id: string): Promise<void> {
    if (!this.isUnstored(id)) return;
    const run = this.unstored.get(id);
    if (run) return run.saves.store();
    // The run is not made yet (its flow version is being read): its drive ends with the record stored, or rejects.
    await this.active.get(id);
  }

  /** Whether `id` is a deferred start driven here whose record is not written yet. */
  private isUnstored(id: string): boolean {
    return this.unstored.has(id) && this.unstored.get(id)?.saves.stored !== true;
  }

  /** What an ExecutionRun of `record` is given: node types, services, and the engine's hooks (the same for every drive but the mocks). */
  private runHost(record: ExecutionRecord): RunHost {
    this.sharedRunHost ??= this.makeRunHost();
    const mocks = this.mocks.get(record.id);
    return mocks ? { ...this.sharedRunHost, mocks } : this.sharedRunHost;
  }

  private makeRunHost(): RunHost {
    return {
      registry: this.host.registry,
      services: this.host.services,
      logger: this.host.logger,
      signal: this.host.signal,
      save: (r) => this.host.store.update(r),
      append: (entry: JournalEntry) => this.host.store.appendJournal(entry),
      isCancelled: async (id) => (await this.host.store.statusOf(id)) === 'cancelled',
      cancelNoticed: (id) => this.cancelNoticed.has(id),
      startFlow: (parent, name, input, options) => this.host.children.startFlow(parent, name, input, options),
      cancelFlow: (parent, name, key, reason) => this.host.children.cancelFlow(parent, name, key, reason),
      respond: (r) => this.host.waiters.respond(r.id, r.response),
      callFlow: (parent, stepKey, name, input, state) => this.host.children.callFlow(parent, stepKey, name, input, state),
      observer: this.host.observer,
      saveResponses: this.host.queued,
      interruptedPeersUntil: (r: ExecutionRecord) => interruptedPeersUntil(this.takeOverHost, r),
    };
  }

  private async finish(record: ExecutionRecord, startedAt: number, run?: ExecutionRun): Promise<ExecutionRecord> {
    record.updated_at = isoNow();
    if (isFinalStatus(record.status)) record.finished_at = record.updated_at;
    await this.store(record, run);
    // A keyed execution may have been cancelled meanwhile, in any process, and one this process was
    // told of (cancelExecution) too: the store kept that.
    if (record.concurrency_key !== undefined || record.status === 'cancelled' || this.cancelNoticed.has(record.id))
      await adoptCancel(this.host.store, record);
    reportDriveEnd(this.host.logger, this.host.observer, record, Math.round(performance.now() - startedAt));
    if (record.status === 'waiting') {
      // Shutting down, a shared scheduler still takes the wait (another process resumes it).
      if (record.wake_at !== undefined && (!this.host.signal.aborted || this.host.scheduler.durable))
        this.host.scheduler.schedule(record.id, record.wake_at);
      return record;
    }
    this.mocks.delete(record.id);
    this.host.waiters.ended(record);
    return record;
  }
}
