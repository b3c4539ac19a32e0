// The take-over check of `serve` and `worker`: every LEADFLOW_TAKE_OVER_CHECK_MS (default 2000) the
// process asks the store for the running executions (one query on the executions' status index,
// returning their id, flow and lease: no payload) and takes over at once those whose holder is a dead
// process of this machine (Engine.takeOverDeadHolders), instead of waiting for the minute sweep or
// the lease's lapse. A holder on another machine is known dead only when its lease lapses.
import type { Logger } from '../engine/logger.js';

/** Default period of the take-over check, ms: one light query per process every 2 s. */
export const DEFAULT_TAKE_OVER_CHECK_MS = 2_000;

/** Shortest period of the take-over check, ms: a smaller LEADFLOW_TAKE_OVER_CHECK_MS is raised to it. */
export const MIN_TAKE_OVER_CHECK_MS = 250;

/**
 * LEADFLOW_TAKE_OVER_CHECK_MS: how often the process looks for executions held by a dead process of
 * this machine, ms. Default 2000; `0` turns the check off (the minute sweep and the lease's lapse
 * remain); 1–249 count as 250; anything but a whole number >= 0 gives the default.
 */
export function takeOverCheckMsFromEnv(env: Record<string, string | undefined>): number {
  const text = env.LEADFLOW_TAKE_OVER_CHECK_MS?.trim();
  const ms = Number(text || DEFAULT_TAKE_OVER_CHECK_MS);
  if (!Number.isInteger(ms) || ms < 0) return DEFAULT_TAKE_OVER_CHECK_MS;
  return ms === 0 ? 0 : Math.max(MIN_TAKE_OVER_CHECK_MS, ms);
}

/** What the check runs: Engine.takeOverDeadHolders. */
export interface DeadHolderTaker {
  takeOverDeadHolders(): Promise<string[]>;
}

/**
 * Runs `engine.takeOverDeadHolders()` every `everyMs` (0: never), one at a time (a period whose
 * previous check is still running is skipped). A failure (the store away) is logged at warn once,
 * until a check works again. Returns the function that stops it.
 */
export function startTakeOverCheck(engine: DeadHolderTaker, logger: Logger, everyMs: number): () => void {
  if (everyMs <= 0) return () => undefined;
  let running = false;
  let failing = false;
  const check = async () => {
    if (running) return;
    running = true;
    try {
      await engine.takeOverDeadHolders();
      if (failing) logger.info({}, 'the take-over check works again');
      failing = false;
    } catch (err) {
      if (!failing) logger.warn({ err: (err as Error).message, every_ms: everyMs }, 'the take-over check failed; it keeps trying');
      failing = true;
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void check(), everyMs).unref();
  return () => clearInterval(timer);
}
