// A deep copy of a JSON value: what structuredClone gives for one (a step's params before its node
// gets them), without structuredClone's serialisation, which costs several times more on the small
// objects params are.
import { MAX_RECORDED_DEPTH, ValueTooDeepError } from '../errors/value-too-deep-error.js';

/**
 * A deep copy of `value`: plain objects (prototype Object.prototype or null) and arrays copied member
 * by member, their own enumerable members in their order (an own `__proto__` member stays a member;
 * a null-prototype object becomes a plain one, as with structuredClone); strings, numbers, booleans,
 * null, undefined and bigints as they are. Anything else (a Date, a Map, an object of a class, a
 * function) goes to structuredClone, which copies it or throws as it always did. A tree: an object
 * reached twice is copied twice (JSON has no shared members). Throws ValueTooDeepError when
 * `value` nests deeper than MAX_RECORDED_DEPTH levels (never a stack overflow).
 */
export function cloneJson<T>(value: T): T {
  return cloneAt(value, 1);
}

/** cloneJson of a value at level `depth` (1: the top). */
function cloneAt<T>(value: T, depth: number): T {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'function' || typeof value === 'symbol') return structuredClone(value);
    return value;
  }
  if (depth > MAX_RECORDED_DEPTH) throw new ValueTooDeepError();
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return structuredClone(value);
    const out: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      // A hole stays a hole (structuredClone keeps them).
      if (i in value) out[i] = cloneAt(value[i], depth + 1);
    }
    return out as T;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return structuredClone(value);
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const member = cloneAt(source[key], depth + 1);
    if (key === '__proto__') Object.defineProperty(out, key, { value: member, enumerable: true, writable: true, configurable: true });
    else out[key] = member;
  }
  return out as T;
}
