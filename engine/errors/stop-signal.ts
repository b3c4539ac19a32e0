/** Thrown by a node (through `ctx.stop`) to end the execution on purpose; the execution's status is `stopped`. */
export class StopSignal extends Error {
  override name = 'StopSignal';
  constructor(
    readonly reason: string,
    /** Key of the step that stopped the execution. */
    readonly origin?: string,
  ) {
    super(`stopped: ${reason}`);
  }
}
