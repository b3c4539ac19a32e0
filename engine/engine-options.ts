// What an Engine is built from (EngineOptions) and what its methods take and give: a trigger's
// input, the options of a start, the handle of a started execution, the outcome of a cancel.
import type { EngineObserver } from './observer.js';
import type { Logger } from './logger.js';
import type { NodeRegistry } from './registry.js';
import type { StepMock } from './run/run-host.js';
import type { Scheduler } from './scheduler/scheduler.js';
import type { ExecutionStore } from './store/execution-store.js';
import type { TickStore } from './store/tick-store.js';
import type { ExecutionRecord, JsonObject, JsonValue, LoadedFlow } from './types.js';

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
  /** The execution this one replays (recordedTriggerInput), recorded and seen as `trigger.replay_of`. */
  replay_of?: string;
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
  /**
   * The record is written by the drive's first write instead of before the drive (run-saves.ts):
   * before its first step that is not read-only, before a respond step's answer is handed on, or,
   * when the drive walks read-only steps only, once as it ends. For a caller that tells no one the
   * execution id before its answer (a webhook answered by a respond step). Ignored in queue mode,
   * with a key, a parent, a dry run or mocks. Default false.
   */
  deferInsert?: boolean;
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
  /**
   * Resolves once the record is in the store: at once, but for a deferred start (`deferInsert`)
   * not written yet, which is then written now. Rejects when it cannot be. Absent: stored already.
   */
  stored?: () => Promise<void>;
}
