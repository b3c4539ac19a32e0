// An instant given to a node as a parameter: epoch ms (a number, or digits) as they are, an ISO 8601
// timestamp (with its offset) parsed. Shared by `wait` (`until`) and `hours.check` (`at`).

/**
 * `value` as ms since the epoch; throws `<what> must be …` naming the parameter (e.g. `wait: until`)
 * on a non-finite number or on text that is neither digits nor an ISO 8601 timestamp.
 */
export function instantOf(value: string | number, what: string): number {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${what} must be a finite number of ms since epoch, got ${value}`);
    return value;
  }
  const ms = /^\d+$/.test(value) ? Number(value) : /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new Error(`${what} must be an ISO 8601 timestamp or epoch ms, got "${value}"`);
  return ms;
}
