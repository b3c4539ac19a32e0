// Plain JSON out of what an expression or a node gives (JSONata sequences, null-prototype objects,
// functions, dates): what is recorded on an execution is always a fresh copy of plain JSON.
import { MAX_RECORDED_DEPTH, ValueTooDeepError } from './errors/value-too-deep-error.js';
import type { JsonValue } from './types.js';

/** Sets an own member, `__proto__` included (assigning that key would replace the object's prototype). */
export function setMember(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Converts a JSONata result (sequences, null-prototype objects, functions) to plain JSON: a fresh
 * copy. Throws ValueTooDeepError when `value` nests deeper than MAX_RECORDED_DEPTH levels (what a
 * step's output, params or vars may hold), never a stack overflow.
 */
export function toPlainJson(value: unknown, depth = 1): JsonValue | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : null;
    case 'object':
      return value === null ? null : objectToPlainJson(value, depth);
    default:
      // undefined, functions, symbols, bigints: not JSON.
      return undefined;
  }
}

function objectToPlainJson(value: object, depth: number): JsonValue | undefined {
  // JSONata function values are objects (builtins hold their implementation, lambdas their whole
  // environment, which is cyclic): functions as far as JSONata's own isFunction goes, so not data.
  const marked = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  if (marked._jsonata_function === true || marked._jsonata_lambda === true) return undefined;
  if (depth > MAX_RECORDED_DEPTH) throw new ValueTooDeepError();
  if (Array.isArray(value)) {
    // Items that are not JSON (and holes) are left out.
    const out: JsonValue[] = [];
    for (let i = 0; i < value.length; i++) {
      const plain = toPlainJson(value[i], depth + 1);
      if (plain !== undefined) out.push(plain);
    }
    return out;
  }
  if (value instanceof Date) return value.toISOString();
  // Own enumerable string keys, in Object.keys order; members that are not JSON are left out.
  const out: Record<string, JsonValue> = {};
  const source = value as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const plain = toPlainJson(source[key], depth + 1);
    if (plain !== undefined) setMember(out, key, plain);
  }
  return out;
}
