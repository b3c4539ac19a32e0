// A schedule trigger's ticks: when they fall, computed with croner (a maintained cron parser with
// time zones and a seconds field). Ticks are instants in ms since the epoch, on whole seconds; the
// same pattern gives the same ticks in every process, whatever its clock reads, which is what lets
// the processes agree on each tick (schedule-runner.ts).
import { createHash } from 'node:crypto';
import { Cron } from 'croner';
import type { JsonObject, ScheduleTrigger } from '../types.js';

/** A paused croner job for `schedule` (it never runs anything itself). Throws on a bad pattern or time zone. */
function cronOf(schedule: ScheduleTrigger): Cron {
  return new Cron(schedule.cron, { timezone: schedule.timezone, paused: true });
}

/**
 * Why `cron` read in `timezone` cannot be a schedule (a bad pattern, an unknown time zone, a pattern
 * that never fires), or undefined when it is a good one. Never throws.
 */
export function scheduleProblem(schedule: ScheduleTrigger): { field: 'cron' | 'timezone'; message: string } | undefined {
  try {
    new Intl.DateTimeFormat('en', { timeZone: schedule.timezone });
  } catch {
    return { field: 'timezone', message: `unknown time zone "${schedule.timezone}" (an IANA name such as America/Sao_Paulo)` };
  }
  let cron: Cron;
  try {
    cron = cronOf(schedule);
  } catch (err) {
    return { field: 'cron', message: `bad cron pattern "${schedule.cron}": ${(err as Error).message.replace(/^CronPattern: /, '')}` };
  }
  if (!cron.nextRun()) return { field: 'cron', message: `cron pattern "${schedule.cron}" never fires` };
  return undefined;
}

/** The first tick strictly after `after` (ms since epoch), or undefined when the pattern fires no more. Throws on a bad schedule. */
export function nextTick(schedule: ScheduleTrigger, after: number): number | undefined {
  return cronOf(schedule).nextRun(new Date(after))?.getTime();
}

/** The latest tick at or before `at` (ms since epoch), or undefined when there is none. Throws on a bad schedule. */
export function latestTick(schedule: ScheduleTrigger, at: number): number | undefined {
  return cronOf(schedule)
    .previousRuns(1, new Date(at + 1))[0]
    ?.getTime();
}

/**
 * What an execution started by a tick records as `trigger.schedule` (seen by expressions):
 * `tick` (ISO instant), `cron`, `timezone`, and `catch_up` — true for the one run at start of a tick
 * missed while no process was up.
 */
export function scheduleTriggerValue(schedule: ScheduleTrigger, tick: number, catchUp: boolean): JsonObject {
  return { tick: new Date(tick).toISOString(), cron: schedule.cron, timezone: schedule.timezone, catch_up: catchUp };
}

/**
 * The id of the execution a tick of `flow` starts (UUID-shaped, from a SHA-256 of flow and tick): the
 * same in every process, so a tick taken over after its claimer died is never recorded twice.
 */
export function tickExecutionId(flow: string, tick: number): string {
  const h = createHash('sha256').update(`schedule\u0000${flow}\u0000${tick}`).digest('hex');
  const variant = ((Number.parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
