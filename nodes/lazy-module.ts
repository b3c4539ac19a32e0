// A module a node loads on its first run, not when node definitions load (describing or validating
// flows never needs it), and then holds: `import()` of a module already loaded still costs a trip
// through the module loader on every call (a promise and a resolution; far more under a loader hook),
// which a node run thousands of times a minute should not pay each time.

/**
 * `load` called once, on the first call of the returned function; every later call gets the same
 * promise. A rejected load is forgotten, so the next call tries again.
 *
 * @example
 * const phones = lazyModule(() => import('../../adapters/phones/normalize-form-phone.js'));
 * const { normalizeFormPhone } = await phones();
 */
export function lazyModule<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
}
