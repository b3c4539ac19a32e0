// The flows a step starts, cancels or calls (NodeContext.startFlow, cancelFlow, callFlow), as the
// engine does them for a step of `parent`. A dry run starts and cancels nothing. A parent awaiting a
// child is woken by the child's end, in whichever process ends it; in case that wake is lost (the
// process dies between the child's end and the parent's wake), the parent also has a wake time of
// its own, a lease life away, at which it looks at its child again: the sweep finds it like any
// other wait.
import type { ExecutionHandle, StartOptions, TriggerInput } from '../engine-options.js';
import { SuspendSignal } from '../errors/suspend-signal.js';
import type { ExecutionStore } from '../store/execution-store.js';
import type { ExecutionRecord, JsonObject, JsonValue, StartedFlow, StartFlowOptions } from '../types.js';

/** What child flows need of the engine. */
export interface ChildFlowHost {
  readonly store: ExecutionStore;
  /** Whether a flow of that name is served. */
  hasFlow(name: string): boolean;
  /** A new record of the flow, not stored (Engine's newRecord): what a dry run's start resolves the key with. */
  newRecord(name: string, input: TriggerInput, options: StartOptions): Promise<ExecutionRecord>;
  /** Engine.start. */
  start(name: string, input: TriggerInput, options: StartOptions): Promise<ExecutionHandle>;
  /** Engine.cancel. */
  cancel(name: string, key: string, reason: string, by?: string): Promise<string[]>;
  /**
   * How long a parent awaiting a child waits before it looks at the child again on its own, ms: the
   * engine's lease life, the bound in which a crashed process's running executions are taken over,
   * so a lost wake-up holds a parent up no longer than a crash mid-step does (plus the sweep's
   * minute when no process was up at that time). Each look is one claim and one write.
   */
  readonly recheckMs: number;
}

/** NodeContext.startFlow, cancelFlow and callFlow of the steps of an execution (`parent`). */
export class ChildFlows {
  constructor(private readonly host: ChildFlowHost) {}

  /** NodeContext.startFlow: starts the flow (no parent: nothing waits for it). In a dry run, only its key is found. */
  async startFlow(parent: ExecutionRecord, name: string, input: JsonValue, options: StartFlowOptions): Promise<StartedFlow> {
    if (parent.dry_run) {
      const record = await this.host.newRecord(name, { body: input }, { key: options.key, dryRun: true });
      return { execution_id: null, key: record.concurrency_key ?? null, replaced: [] };
    }
    // The step ran before (a crash after the start): the start is not made twice.
    const earlier = options.id ? await this.host.store.get(options.id) : undefined;
    if (earlier) return { execution_id: earlier.id, key: earlier.concurrency_key ?? null, replaced: [] };
    const handle = await this.host.start(name, { body: input }, { key: options.key, id: options.id });
    return { execution_id: handle.id, key: handle.record.concurrency_key ?? null, replaced: handle.replaced };
  }

  /** NodeContext.cancelFlow: Engine.cancel; in a dry run, nothing is cancelled (null). Throws for an unknown flow. */
  async cancelFlow(parent: ExecutionRecord, name: string, key: string, reason: string): Promise<string | null> {
    if (!this.host.hasFlow(name)) throw new Error(`unknown flow "${name}"`);
    if (parent.dry_run) return null;
    return (await this.host.cancel(name, key, reason, parent.id))[0] ?? null;
  }

  /**
   * `call-flow`: runs the child in this process and returns its output; if it parks, the parent
   * parks (SuspendSignal with the child's id as state) until the child's end wakes it, or at the
   * latest `recheckMs` from now, when it reads the child again (the same answer a wake gives: its
   * output, its failure, or another wait). Throws when the child failed or was cancelled.
   */
  async callFlow(
    parent: ExecutionRecord,
    stepKey: string,
    name: string,
    input: JsonValue,
    state: JsonObject | undefined,
  ): Promise<JsonValue> {
    let child: ExecutionRecord | undefined;
    if (state && typeof state.child_id === 'string') {
      child = await this.host.store.get(state.child_id);
    } else {
      const handle = await this.host.start(name, { body: input }, { dryRun: parent.dry_run, parentId: parent.id });
      child = await handle.settled;
    }
    if (!child) throw new Error(`child execution of flow "${name}" is missing`);
    if (child.status === 'success' || child.status === 'stopped') return child.output ?? null;
    if (child.status === 'failed')
      throw new Error(`flow "${name}" (execution ${child.id}) failed: ${child.error?.message ?? 'unknown error'}`);
    if (child.status === 'cancelled')
      throw new Error(`flow "${name}" (execution ${child.id}) was cancelled: ${child.stop_reason ?? 'no reason given'}`);
    throw new SuspendSignal(Date.now() + this.host.recheckMs, { child_id: child.id }, stepKey);
  }
}
