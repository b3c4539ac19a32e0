// Which execution the code running now belongs to: the engine runs each step's node inside
// `runInExecution`, so anything a node calls (an AI provider client, a gateway client …) can ask
// `currentExecution()` without the id being passed through every layer. Built on Node's
// AsyncLocalStorage: the answer follows the node's promises and timers, and a node started by a
// nested execution (call-flow) sees that execution. Outside any step: undefined. Read only.
import { AsyncLocalStorage } from 'node:async_hooks';

/** The execution a step runs in. */
export interface CurrentExecution {
  /** ExecutionRecord.id. */
  readonly id: string;
  /** The flow's name. */
  readonly flow: string;
  /** True in a dry run (nothing leaves; a host records nothing of it). */
  readonly dryRun: boolean;
}

const storage = new AsyncLocalStorage<CurrentExecution>();

/** Runs `fn` as part of `execution` (the engine, around each node run). */
export function runInExecution<T>(execution: CurrentExecution, fn: () => T): T {
  return storage.run(execution, fn);
}

/** The execution whose step is running here, or undefined outside any step. */
export function currentExecution(): CurrentExecution | undefined {
  return storage.getStore();
}
