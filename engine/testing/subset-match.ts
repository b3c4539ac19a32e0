// "Does the actual value contain what the test expects?" — the comparison behind every flow test
// expectation. Objects match when every expected key matches (extra actual keys are fine); arrays
// when lengths are equal and each element matches; anything else with strict equality (no type
// coercion: "1" is not 1). Each mismatch is one message: `path: expected X got Y`.

/** Longest rendering of a value inside a message, characters. */
const MAX_VALUE_CHARS = 120;

/** A value as shown in messages: JSON, cut to a readable length; `nothing` when absent. */
export function showValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}

/** `base.key`, or `base["odd key"]` when the key is not a plain name. */
export function childPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (/^[A-Za-z_$][\w$-]*$/.test(key)) return base ? `${base}.${key}` : key;
  return `${base}[${JSON.stringify(key)}]`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Mismatches of `actual` against `expected` under `path`; empty when it matches. */
export function subsetMismatches(expected: unknown, actual: unknown, path: string): string[] {
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual))
      return [`${path}: expected an object got ${kindOf(actual)} ${actual === undefined ? '' : showValue(actual)}`.trimEnd()];
    return Object.entries(expected).flatMap(([key, value]) => subsetMismatches(value, actual[key], childPath(path, key)));
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual))
      return [`${path}: expected an array got ${kindOf(actual)} ${actual === undefined ? '' : showValue(actual)}`.trimEnd()];
    const out: string[] = [];
    if (expected.length !== actual.length)
      out.push(`${path}: expected ${expected.length} item(s) got ${actual.length} ${showValue(actual)}`);
    const common = Math.min(expected.length, actual.length);
    for (let i = 0; i < common; i++) out.push(...subsetMismatches(expected[i], actual[i], childPath(path, i)));
    return out;
  }
  if (Object.is(expected, actual) || expected === actual) return [];
  return [`${path}: expected ${showValue(expected)} got ${showValue(actual)}`];
}

/** True when `actual` contains `expected` (see subsetMismatches). */
export function subsetMatches(expected: unknown, actual: unknown): boolean {
  return subsetMismatches(expected, actual, '').length === 0;
}
