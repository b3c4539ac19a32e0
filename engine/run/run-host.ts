// What the engine gives a run of an execution (RunHost): node types, services for nodes, and the
// hooks the run cannot do itself (store the record, start and cancel flows, answer a webhook).
import type { Logger } from '../logger.js';
import type { EngineObserver } from '../observer.js';
import type { NodeRegistry } from '../registry.js';
import type { JournalEntry } from '../store/journal.js';
import type { ExecutionRecord, ExecutionStatus, JsonObject, JsonValue, StartedFlow, StartFlowOptions } from '../types.js';

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

/**
 * Hook 3 of a run (mock): the flow test's replacement for step `stepId` among `mocks`. Returns the
 * replaced output, or undefined when the node runs; throws the mocked error (marked `mocked`: never
 * retried, never an outage).
 */
export function mockedOutput(mocks: Record<string, StepMock> | undefined, stepId: string): { output: JsonValue | undefined } | undefined {
  const mock = mocks?.[stepId];
  if (mock?.error)
    throw Object.assign(new Error(mock.error.message), {
      name: mock.error.name ?? 'MockError',
      status: mock.error.status,
      body: mock.error.body,
      mocked: true,
    });
  return mock && 'output' in mock ? { output: mock.output } : undefined;
}
