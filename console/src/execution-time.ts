// How long an execution has lasted, one rule for every page that shows it (the executions list, an
// execution's facts and its waterfall's total): from `created_at` to `finished_at` once it ended
// (else `updated_at`), or to now while it runs or waits, then read "… até agora".
import { formatDuration } from './format.js';
import { t } from './i18n/index.js';

const DAY_MS = 86_400_000;

/** A length of time: formatDuration, to the nearest minute from an hour on, in days and hours from a day on. */
export function formatSpan(exact: number): string {
  const ms = exact >= 3_600_000 ? Math.round(exact / 60_000) * 60_000 : exact;
  if (ms < DAY_MS) return formatDuration(ms);
  return t.execution.days(Math.floor(ms / DAY_MS), Math.floor((ms % DAY_MS) / 3_600_000));
}

/** The times of an execution that its duration needs (a list line or a whole record). */
export interface ExecutionTimes {
  status: string;
  created_at: string;
  updated_at: string;
  finished_at?: string | null;
}

/** True while the execution runs or waits. */
export function isUnfinished(status: string): boolean {
  return status === 'running' || status === 'waiting';
}

/** Its length in ms at `now` (ms since epoch; see the header); never negative. */
export function executionMs(r: ExecutionTimes, now: number = Date.now()): number {
  const end = isUnfinished(r.status) ? now : Date.parse(r.finished_at ?? r.updated_at);
  const ms = end - Date.parse(r.created_at);
  return Number.isFinite(ms) ? Math.max(0, ms) : 0;
}

/** Its length as text: "2,4 s", or "3 min 5 s até agora" while it runs or waits. */
export function executionDurationText(r: ExecutionTimes, now: number = Date.now()): string {
  const text = formatSpan(executionMs(r, now));
  return isUnfinished(r.status) ? t.execution.soFar(text) : text;
}
