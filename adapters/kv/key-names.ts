// How caller keys map to store keys, and the argument checks both implementations share.
// Store key = <namespace prefix><kind>:<caller key>, e.g. `leadflow:buf:5:5511987654321`.

/** The kinds of value a store keeps; each caller key may have one of each. */
export const KINDS = ['buf', 'dedupe', 'lock'] as const;
/** One of KINDS: a buffer, a dedupe mark or a lock. */
export type Kind = (typeof KINDS)[number];

/** The key namespace of a store opened without a prefix. */
export const DEFAULT_PREFIX = 'leadflow:';

/** The store key of a caller key: `<prefix><kind>:<key>`. */
export function storeKey(prefix: string, kind: Kind, key: string): string {
  return `${prefix}${kind}:${key}`;
}

/** `text` with Redis glob specials (`* ? [ ] \`) escaped, so SCAN MATCH takes it literally. */
export function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** Throws TypeError naming `what` unless `key` is a non-empty string. */
export function checkKey(what: string, key: unknown): asserts key is string {
  if (typeof key !== 'string' || key === '') throw new TypeError(`${what} must be a non-empty string`);
}

/** A duration in ms: a positive integer (Redis PX refuses 0 and fractions). */
export function checkTtl(what: string, ms: unknown): asserts ms is number {
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1)
    throw new RangeError(`${what} must be a positive integer of milliseconds, got ${String(ms)}`);
}

/** An instant or non-negative duration in ms. */
export function checkMs(what: string, ms: unknown): asserts ms is number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0)
    throw new RangeError(`${what} must be a non-negative number of milliseconds, got ${String(ms)}`);
}
