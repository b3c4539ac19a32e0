// The depth guard of everything an execution records (engine/run/clone-json.ts, mask-secrets.ts,
// expressions.ts toPlainJson, the trigger of a new record, the store's JSON text): a value nested
// deeper than MAX_RECORDED_DEPTH fails the step (or the start) that produced it with this error,
// instead of overflowing the stack of a recursive walk or of JSON.stringify.

/**
 * Deepest value a record keeps, in levels of objects and arrays inside one another (the value's
 * own top level is level 1). Far above what an inbound body may hold (32 levels,
 * engine/triggers/json-limits.ts) plus what flows wrap around it, and far below what a recursive
 * walk of the default stack survives (thousands of levels).
 */
export const MAX_RECORDED_DEPTH = 256;

/** A value handed to the recorder nests deeper than MAX_RECORDED_DEPTH levels. */
export class ValueTooDeepError extends Error {
  override name = 'ValueTooDeepError';
  readonly code = 'value-too-deep';
  constructor(what = 'value') {
    super(`${what} nested deeper than ${MAX_RECORDED_DEPTH} levels`);
  }
}

/**
 * Throws ValueTooDeepError when `value` nests deeper than MAX_RECORDED_DEPTH. Iterative (an
 * explicit stack), so any depth is safe to check; visits each object and array once.
 */
export function assertRecordableDepth(value: unknown, what = 'value'): void {
  const values: unknown[] = [value];
  const depths: number[] = [0];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()! + 1;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_RECORDED_DEPTH) throw new ValueTooDeepError(what);
    for (const member of Array.isArray(v) ? v : Object.values(v)) {
      if (member !== null && typeof member === 'object') {
        values.push(member);
        depths.push(depth);
      }
    }
  }
}

/** JSON.stringify(value), a stack overflow on a too-deep value thrown as ValueTooDeepError instead. */
export function stringifyRecorded(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (err) {
    if (err instanceof RangeError && /call stack/i.test(err.message)) throw new ValueTooDeepError();
    throw err;
  }
}
