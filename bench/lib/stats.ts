// Figures of a series of samples, and the table every benchmark prints.

/** The p-th percentile (0..100) of `samples` (nearest rank); NaN when empty. Does not change its argument. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function mean(samples: number[]): number {
  return samples.length === 0 ? Number.NaN : samples.reduce((a, b) => a + b, 0) / samples.length;
}

/** `value` rounded to `digits` decimals (for results.json: stable, readable numbers). */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** One row of a printed table: the measure, LeadFlow's figure, the floor's (or the target), and the verdict. */
export interface Row {
  measure: string;
  value: string;
  against: string;
  verdict: string;
}

/** A plain-text table with aligned columns; `head` titles them (default: measure, leadflow, floor / target, verdict). */
export function table(
  rows: Row[],
  head: Row = { measure: 'measure', value: 'leadflow', against: 'floor / target', verdict: 'verdict' },
): string {
  return grid(
    [head.measure, head.value, head.against, head.verdict],
    rows.map((r) => [r.measure, r.value, r.against, r.verdict]),
  );
}

/** A plain-text table with aligned columns: a head line, a rule, then one line per row (as many cells as the head). */
export function grid(head: string[], rows: string[][]): string {
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    widths
      .map((w, i) => (r[i] ?? '').padEnd(w))
      .join('  ')
      .trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** "met" / "MISSED" for a target. */
export const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');
