// What the engine tells a watcher (metrics) as executions run. Every method is optional and is called
// synchronously where the event happens; a method that throws (or returns a promise that rejects) is
// logged and ignored: an observer can never change or break an execution.
import type { Logger } from './logger.js';
import type { ExecutionRecord, LoadedFlow } from './types.js';

/** One step finished its last attempt (retries in between are not reported). */
export interface StepEndedEvent {
  flow: string;
  execution: string;
  /** Step id (`steps.<id>`). */
  step: string;
  node_type: string;
  /** `error` also when on_error continued or jumped. */
  status: 'success' | 'error' | 'stopped';
  /** Wall time of the last attempt, ms. */
  ms: number;
  attempt: number;
}

/** One value of a metric a flow declares (`metrics:` in the flow file), for one execution. */
export interface FlowMetricObservation {
  /** The declared metric's name (FlowMetric.name). */
  name: string;
  /** A finite number, zero or more, in the metric's unit. */
  value: number;
}

/** The values a successful execution gives the metrics its flow declares; only those it has a value for. */
export interface FlowMetricsEvent {
  flow: string;
  execution: string;
  observations: FlowMetricObservation[];
}

/** Hooks of a watcher of the engine (metrics); see the file header for how they are called. */
export interface EngineObserver {
  /**
   * The flows the engine runs: when it is created and on each reload (`setFlows`). Their `metrics`
   * declarations let a watcher register those figures before anything is observed. Read only.
   */
  flowsLoaded?(flows: readonly LoadedFlow[]): void;
  /** After a successful execution, the values of its flow's declared metrics (never an empty list). */
  flowMetrics?(event: FlowMetricsEvent): void;
  /**
   * One drive of an execution ended: final (success, failed, stopped, cancelled) or parked (waiting). `ms` is
   * this drive's wall time (a resumed execution reports each drive). A drive that ends `cancelled`
   * ends an execution already told by executionCancelled (where it was cancelled): a watcher counting
   * executions counts it once, from one of the two. The record is the engine's own: read it, never change it.
   */
  executionEnded?(record: Readonly<ExecutionRecord>, ms: number): void;
  /**
   * An execution was cancelled by this process: by id (Engine.cancelExecution), by flow and key
   * (Engine.cancel, a flow.cancel step) or replaced by a newer execution of its key. Told once per
   * execution, by the process that cancelled it, whether it was waiting (it then ends without a
   * drive) or running (its drive, in whichever process, then ends with executionEnded, `cancelled`).
   * The record is the stored one, now cancelled: read it only.
   */
  executionCancelled?(record: Readonly<ExecutionRecord>): void;
  stepEnded?(event: StepEndedEvent): void;
  /** A waiting execution with a wake time is driven again, `lagMs` after that time (0 when early). */
  waitResumed?(lagMs: number, record: Readonly<ExecutionRecord>): void;
}

/**
 * Calls `notify` with the observer (and `arg`, when given), if there is an observer; errors (thrown,
 * or a returned promise that rejects) are logged at warn and swallowed. `notify` may be a function
 * made once (taking what it tells as `arg`), so a call per step makes no closure.
 */
export function notifyObserver<A>(
  observer: EngineObserver | undefined,
  logger: Logger,
  notify: (o: EngineObserver, arg: A) => unknown,
  arg?: A,
): void {
  if (!observer) return;
  try {
    const result = notify(observer, arg as A);
    if (result && typeof (result as PromiseLike<unknown>).then === 'function')
      (result as Promise<unknown>).then(undefined, (err: unknown) => reportFailure(logger, err));
  } catch (err) {
    reportFailure(logger, err);
  }
}

function reportFailure(logger: Logger, err: unknown): void {
  logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'engine observer failed (ignored)');
}

/** The hooks of EngineObserver, by name. */
/** Every hook of EngineObserver (a Record, so a hook added to the interface but not here fails to compile). */
const HOOK_SET: Record<keyof EngineObserver, true> = {
  flowsLoaded: true,
  flowMetrics: true,
  executionEnded: true,
  executionCancelled: true,
  stepEnded: true,
  waitResumed: true,
};
const OBSERVER_HOOKS = Object.keys(HOOK_SET) as Array<keyof EngineObserver>;

/**
 * One observer telling each of `observers` in turn (the engine takes one; the host has several, e.g.
 * metrics and the console's activity recorder). A hook exists when any of them has it. Each is told
 * even when one before it throws; the first error (thrown, or a rejected promise) is passed on to
 * the engine, which logs it.
 */
export function composeObservers(...observers: Array<EngineObserver | undefined>): EngineObserver {
  const present = observers.filter((o): o is EngineObserver => o !== undefined);
  const composed: Record<string, (...args: unknown[]) => unknown> = {};
  for (const hook of OBSERVER_HOOKS) {
    const parts = present.filter((o) => typeof o[hook] === 'function');
    if (parts.length === 0) continue;
    composed[hook] = (...args: unknown[]) => {
      // Allocated only when a part throws or answers with a promise.
      let errors: unknown[] | undefined;
      let pending: Promise<unknown>[] | undefined;
      for (const part of parts) {
        try {
          const result = (part[hook] as (...a: unknown[]) => unknown).apply(part, args);
          if (result && typeof (result as PromiseLike<unknown>).then === 'function') {
            pending ??= [];
            pending.push(Promise.resolve(result));
          }
        } catch (err) {
          errors ??= [];
          errors.push(err);
        }
      }
      if (errors) {
        for (const p of pending ?? []) p.catch(() => undefined);
        throw errors[0];
      }
      return pending ? Promise.all(pending) : undefined;
    };
  }
  return composed as EngineObserver;
}
