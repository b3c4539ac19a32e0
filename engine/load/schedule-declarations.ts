// The `trigger.schedule` block: its defaults filled in, and the checks the flow schema cannot make
// (the cron pattern and the time zone, read by croner; a webhook beside a schedule).
import { scheduleProblem } from '../triggers/schedule.js';
import type { LoadProblem, ScheduleTrigger } from '../types.js';
import { SCHEDULE_DEFAULTS } from './defaults.js';
import type { YamlSource } from './yaml-source.js';

type Raw = Record<string, unknown>;

/** `trigger.schedule` as loaded (timezone defaulted, SCHEDULE_DEFAULTS), or undefined when the flow has none. */
export function buildSchedule(trigger: unknown): ScheduleTrigger | undefined {
  const schedule = (trigger as Raw | undefined)?.schedule as Raw | undefined;
  if (!schedule || typeof schedule !== 'object') return undefined;
  return { cron: String(schedule.cron), timezone: String(schedule.timezone ?? SCHEDULE_DEFAULTS.timezone) };
}

/**
 * `invalid-value` problems of `trigger.schedule`: a cron pattern croner refuses or that never fires
 * (at `cron`), an unknown time zone (at `timezone`), a flow with both a webhook and a schedule (at
 * `schedule`). Values of the wrong type are left to the schema. Never throws.
 */
export function scheduleProblems(trigger: unknown, source: YamlSource): LoadProblem[] {
  const raw = trigger as Raw | undefined;
  const schedule = raw?.schedule as Raw | undefined;
  if (!schedule || typeof schedule !== 'object') return [];
  if (raw?.webhook !== undefined)
    return [source.problem(['trigger', 'schedule'], 'invalid-value', 'a flow has a webhook or a schedule trigger, not both')];
  if (typeof schedule.cron !== 'string' || (schedule.timezone !== undefined && typeof schedule.timezone !== 'string')) return [];
  const problem = scheduleProblem(buildSchedule(raw)!);
  return problem ? [source.problem(['trigger', 'schedule', problem.field], 'invalid-value', problem.message)] : [];
}
