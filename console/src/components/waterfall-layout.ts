// Where each step of an execution sits on the execution page's waterfall: one time axis shared by
// every step, in ms since the execution's `created_at`, mapped to percent of the track's width.
//
// A step's bar starts at its `started_at` (first attempt) and lasts its `ms` (last attempt; for a
// `wait` that ended, what it waited, `output.waited_ms`). A step still waiting is open-ended: its
// bar runs to its wake time (`state.wake_at`, else the record's `wake_at`), or to now when it waits
// for another execution (no wake time); a step running in an unfinished record runs to now. In a
// record that ended (e.g. cancelled while waiting) a waiting step ends where the record ended.
// A step of a type that suspends and records no `waited_ms` (SUSPENDING_TYPES: the grouping window,
// `debounce`) keeps only its last attempt's `ms` (a few ms after it woke): once it finished, its bar
// runs from its first attempt to where the next step started (or the record ended), like any wait.
//
// Long gaps: a stretch of the axis longer than CUT_MIN_MS and more than CUT_RATIO times the shorter
// stretches together (a follow-up waiting a day after steps of a few ms) is cut: drawn as a break of
// a fixed width, hatched and labelled with its length, instead of at scale. Everything outside the
// breaks keeps one linear scale, so bars on either side of a break stay comparable; a log scale was
// the other choice, but there equal lengths mean different durations and short steps are no easier
// to compare. Pure functions: no DOM, so this is tested on its own.
import type { ExecutionRecord, StepRecord } from '../api/execution-types.js';

/** A stretch at least this long (ms) may be cut. */
export const CUT_MIN_MS = 60_000;
/** ...when it is longer than this many times every uncut stretch together. */
export const CUT_RATIO = 4;
/** Width of one break, percent of the track (smaller when there are many: breaks never take more than half). */
export const BREAK_PERCENT = 8;
/** Node types that suspend without recording what they waited: their bar runs to the next step's start. */
export const SUSPENDING_TYPES: ReadonlySet<string> = new Set(['debounce']);
/** Narrowest bar drawn, percent (so a 0 ms step is still seen). */
export const MIN_BAR_PERCENT = 0.5;

/** One step on the axis; times in ms since the execution's creation. */
export interface StepSpan {
  key: string;
  start: number;
  end: number;
  /** Still going: waiting (to its wake time, or to now) or running. */
  open: boolean;
  /** When a waiting step wakes, ms since epoch (only for an open waiting step with a wake time). */
  wakeAt?: number;
  /** Left edge and width on the track, percent. */
  left: number;
  width: number;
}

/** A stretch of the axis: linear (`cut` false) or a break. */
export interface AxisPiece {
  from: number;
  to: number;
  /** Left and right edges on the track, percent. */
  x0: number;
  x1: number;
  cut: boolean;
}

/** The waterfall of one execution: its axis (pieces, with breaks over long gaps) and one span per step, in the steps' order. */
export interface WaterfallLayout {
  /** Where the axis ends, ms since creation (the latest end, wake time, or the record's end). */
  axisEnd: number;
  /** From creation to the end of the record, or to now while unfinished, ms. */
  total: number;
  pieces: AxisPiece[];
  spans: StepSpan[];
}

type RecordTimes = Pick<ExecutionRecord, 'created_at' | 'updated_at' | 'finished_at' | 'status' | 'wake_at'>;

const numberOr = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

function isUnfinished(record: RecordTimes): boolean {
  return record.status === 'running' || record.status === 'waiting';
}

/** Start, end and openness of one step, ms since `t0`. */
function spanOf(step: StepRecord, record: RecordTimes, t0: number, recordEnd: number, now: number): Omit<StepSpan, 'left' | 'width'> {
  const parsed = Date.parse(step.started_at) - t0;
  const start = Number.isFinite(parsed) ? Math.max(0, parsed) : 0;
  const unfinished = isUnfinished(record);
  if (step.status === 'waiting' && unfinished) {
    const wakeAt = numberOr(step.state?.wake_at) ?? (record.status === 'waiting' ? numberOr(record.wake_at) : undefined);
    if (wakeAt !== undefined) return { key: step.key, start, end: Math.max(start, wakeAt - t0), open: true, wakeAt };
    return { key: step.key, start, end: Math.max(start, now - t0), open: true };
  }
  if (step.status === 'running' && unfinished) return { key: step.key, start, end: Math.max(start, now - t0), open: true };
  if (step.status === 'waiting') return { key: step.key, start, end: Math.max(start, recordEnd), open: false };
  const output = step.output as { waited_ms?: unknown } | null | undefined;
  const waited = step.type === 'wait' && output && typeof output === 'object' ? (numberOr(output.waited_ms) ?? 0) : 0;
  return { key: step.key, start, end: start + Math.max(step.ms || 0, waited), open: false };
}

/** A finished step of SUSPENDING_TYPES ends where the next step started, or at `recordEnd` when it was the last. */
function stretchSuspended(steps: StepRecord[], spans: Array<Omit<StepSpan, 'left' | 'width'>>, recordEnd: number | undefined): void {
  steps.forEach((step, i) => {
    const span = spans[i]!;
    if (span.open || step.status !== 'success' || !SUSPENDING_TYPES.has(step.type)) return;
    const next = spans[i + 1]?.start ?? recordEnd;
    if (next !== undefined && next > span.end) span.end = next;
  });
}

/**
 * The stretches between consecutive moments, the long ones marked to cut: shortest first, a stretch
 * is cut when it is at least CUT_MIN_MS and longer than CUT_RATIO times the uncut stretches shorter
 * than it together (so two long gaps of one execution are both cut; a stretch with nothing shorter
 * beside it is not: there is nothing to make readable). Adjacent stretches of one kind are merged.
 */
function cutStretches(moments: number[]): Array<{ from: number; to: number; cut: boolean }> {
  const stretches = moments.slice(1).map((to, i) => ({ from: moments[i]!, to, cut: false }));
  const length = (s: { from: number; to: number }) => s.to - s.from;
  let shorter = 0;
  for (const s of [...stretches].sort((a, b) => length(a) - length(b))) {
    if (length(s) >= CUT_MIN_MS && shorter > 0 && length(s) > CUT_RATIO * shorter) s.cut = true;
    else shorter += length(s);
  }
  const merged: typeof stretches = [];
  for (const s of stretches) {
    const last = merged.at(-1);
    if (last && last.cut === s.cut) last.to = s.to;
    else merged.push({ ...s });
  }
  return merged;
}

/** The stretches placed on the track (percent): breaks a fixed width, the rest one linear scale. */
function place(stretches: Array<{ from: number; to: number; cut: boolean }>): AxisPiece[] {
  const breaks = stretches.filter((s) => s.cut).length;
  const breakWidth = breaks === 0 ? 0 : Math.min(BREAK_PERCENT, 50 / breaks);
  const linear = stretches.filter((s) => !s.cut).reduce((sum, s) => sum + (s.to - s.from), 0);
  const linearWidth = 100 - breaks * breakWidth;
  const pieces: AxisPiece[] = [];
  let x = 0;
  for (const s of stretches) {
    const width = s.cut ? breakWidth : linear > 0 ? ((s.to - s.from) / linear) * linearWidth : 0;
    pieces.push({ from: s.from, to: s.to, x0: x, x1: x + width, cut: s.cut });
    x += width;
  }
  const last = pieces.at(-1);
  if (last) last.x1 = 100;
  return pieces;
}

/** Percent of the track at `t` (ms since creation), through the pieces. */
export function positionOf(pieces: AxisPiece[], t: number): number {
  if (pieces.length === 0) return 0;
  if (t <= pieces[0]!.from) return pieces[0]!.x0;
  for (const p of pieces) {
    if (t <= p.to) return p.x0 + (p.to === p.from ? 0 : ((t - p.from) / (p.to - p.from)) * (p.x1 - p.x0));
  }
  return 100;
}

/**
 * The waterfall of `record`'s steps at `now` (ms since epoch): the axis (cut over long gaps) and
 * each step's bar on it, in the order of `record.steps`.
 */
export function waterfallLayout(record: RecordTimes & { steps: StepRecord[] }, now: number): WaterfallLayout {
  const t0 = Date.parse(record.created_at);
  const endText = record.finished_at ?? record.updated_at;
  const recordEnd = isUnfinished(record) ? now - t0 : Date.parse(endText) - t0;
  const total = Math.max(0, Number.isFinite(recordEnd) ? recordEnd : 0);
  const spans = record.steps.map((step) => spanOf(step, record, t0, total, now));
  stretchSuspended(record.steps, spans, isUnfinished(record) ? undefined : total);
  // The moments that matter: starts, ends, and the record's own end when it ended (now is not one,
  // unless a bar is open to it: it would only split a gap in two).
  const moments = new Set<number>([0]);
  for (const s of spans) {
    moments.add(s.start);
    moments.add(s.end);
  }
  if (!isUnfinished(record)) moments.add(total);
  const sorted = [...moments].filter((m) => Number.isFinite(m) && m >= 0).sort((a, b) => a - b);
  const pieces = place(cutStretches(sorted));
  const axisEnd = sorted.at(-1) ?? 0;
  return {
    axisEnd,
    total,
    pieces,
    spans: spans.map((s) => {
      const left = positionOf(pieces, s.start);
      const right = positionOf(pieces, s.end);
      const width = Math.max(MIN_BAR_PERCENT, right - left);
      return { ...s, left: Math.min(left, 100 - MIN_BAR_PERCENT), width: Math.min(width, 100 - Math.min(left, 100 - MIN_BAR_PERCENT)) };
    }),
  };
}
