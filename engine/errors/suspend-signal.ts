import type { JsonObject } from '../types.js';

/**
 * Thrown by a node (through `ctx.suspend`) to park the execution until `wakeAt` (ms since epoch;
 * `null`: until something wakes it; no sweep finds such a wait). Not a failure.
 */
export class SuspendSignal extends Error {
  override name = 'SuspendSignal';
  constructor(
    readonly wakeAt: number | null,
    readonly state: JsonObject,
    /** Key of the step that suspended. */
    readonly origin?: string,
  ) {
    super(wakeAt === null ? 'execution suspended until woken' : `execution suspended until ${new Date(wakeAt).toISOString()}`);
  }
}
