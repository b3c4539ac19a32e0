// A step's own abort signal. Calls made with a signal (fetch, AbortSignal.any, the AI SDKs) attach
// listeners to it and many never remove them; on the engine's signal, which lives as long as the
// process, those listeners (and what they hold) would pile up with every call. Each step gets a
// child instead: aborted with the parent (same reason) while the step runs, and let go with it.

/** A step's signal and the way to let it go. */
export interface ChildSignal {
  /** Aborted, with the parent's reason, when the parent aborts before `release`. */
  signal: AbortSignal;
  /** Stops following the parent (removes the one listener on it). Call when the step ends. */
  release(): void;
}

/**
 * A signal that follows `parent` until released (already aborted when `parent` is). Adds one
 * listener to `parent`, removed by `release`. Never throws.
 */
export function childSignal(parent: AbortSignal): ChildSignal {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release() {} };
  }
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  return { signal: controller.signal, release: () => parent.removeEventListener('abort', onAbort) };
}

/** lazyChildSignal's: one small object per step, its members on the prototype (no closures per step). */
class LazyChildSignal implements ChildSignal {
  private child: ChildSignal | undefined;

  constructor(private readonly parent: AbortSignal) {}

  get signal(): AbortSignal {
    this.child ??= childSignal(this.parent);
    return this.child.signal;
  }

  release(): void {
    this.child?.release();
  }
}

/**
 * childSignal made on first use of `signal`: most steps (set, if, switch ...) never look at their
 * signal, and they then cost nothing. `release` is a no-op when it was never made.
 */
export function lazyChildSignal(parent: AbortSignal): ChildSignal {
  return new LazyChildSignal(parent);
}
