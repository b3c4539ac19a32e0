// Schedule triggers: for each served flow with `trigger.schedule`, a timer set to its next tick.
// At the tick the process asks the TickStore to claim it; the one claim that succeeds, in whichever
// process, starts the execution; every other process sees the tick taken and does nothing. The same
// claim serves one process (embedded) and any number of `serve` and `worker` processes on one
// database (queue mode): there is no second mechanism.
//
// Catch-up: when a schedule starts being served here (process start, or a reload bringing a new or
// changed schedule), the latest tick at or before now is claimed and run once with
// `catch_up: true`, provided the store first saw this schedule (flow, cron and time zone) before
// that tick. A tick missed while every process was down thus runs once at the next start (never
// once per missed tick); a new or edited schedule never runs a tick from before it existed; a tick
// another process already ran is taken already, so nothing happens.
//
// A process that falls behind (its event loop blocked, a suspended machine) runs the latest due
// tick when its timer fires, not every tick it slept through.
//
// A process that dies between claiming a tick and recording its execution leaves a claim never
// noted started (TickStore.tickStarted). Past LOST_CLAIM_MS any process takes it over (at start and
// at each of its ticks) and starts it; the execution's id is the tick's own (tickExecutionId), so a
// claimer that was only slow and the one taking over never record it twice.
import { DEPENDENCY_RETRY_MS, isDependencyUnavailable } from '../errors/dependency-unavailable.js';
import type { Logger } from '../logger.js';
import type { TickStore } from '../store/tick-store.js';
import type { JsonObject, LoadedFlow, ScheduleTrigger } from '../types.js';
import { latestTick, nextTick, scheduleTriggerValue, tickExecutionId } from './schedule.js';

/** How long after a tick fell a starting process waits before catching it up, ms (see catchUp). */
const CATCH_UP_SETTLE_MS = 250;
/** A claim whose execution is not recorded this long after it was made is taken as lost (its claimer died), ms. */
export const LOST_CLAIM_MS = 60_000;
/** Longest single timer, ms: a later tick is reached through several (setTimeout holds at most ~24.8 days). */
const MAX_TIMER_MS = 60 * 60 * 1000;

/** What a ScheduleRunner works with; the engine hands over its own. */
export interface ScheduleHost {
  /** The flows served now; those with `trigger.schedule` get a timer. */
  flows(): LoadedFlow[];
  /** Starts an execution of `flow` with id `id` whose trigger records `schedule` (scheduleTriggerValue); rejects when that id is recorded already. */
  start(flow: string, schedule: JsonObject, id: string): Promise<unknown>;
  /** Whether an execution with that id is recorded. */
  exists(id: string): Promise<boolean>;
  ticks: TickStore;
  logger: Logger;
  /** Clock, ms since epoch. Default Date.now. */
  now?: () => number;
}

/** One served schedule: its spec (cron and time zone) and its armed timer, when one is set. */
interface Armed {
  flow: string;
  schedule: ScheduleTrigger;
  spec: string;
  timer?: NodeJS.Timeout;
}

/** The cron and time zone of a schedule as one text: a changed one is a new schedule. */
function specOf(schedule: ScheduleTrigger): string {
  return `${schedule.cron} ${schedule.timezone}`;
}

/**
 * Runs the schedule triggers of the host's flows (see the file comment): `start` catches up and
 * arms every schedule, `reload` follows a change of the served flows, `stop` clears every timer.
 * Timers are unref'd: they never keep a process alive. Never throws from a timer: store and start
 * errors are logged and the next tick is armed all the same.
 */
export class ScheduleRunner {
  private readonly armed = new Map<string, Armed>();
  private running = false;
  private readonly now: () => number;

  constructor(private readonly host: ScheduleHost) {
    this.now = host.now ?? Date.now;
  }

  /** Starts serving the schedules; resolves once each one's catch-up claim is done and its timer set. Idempotent. */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    await this.reload();
  }

  /**
   * Follows the host's flows now: a schedule that is unchanged keeps its timer; a new or changed one
   * is caught up and armed (resolves when done); a removed one is cleared. No-op before start.
   */
  async reload(): Promise<void> {
    if (!this.running) return;
    const wanted = new Map<string, ScheduleTrigger>();
    for (const flow of this.host.flows()) if (flow.trigger.schedule) wanted.set(flow.name, flow.trigger.schedule);
    for (const [name, entry] of this.armed) {
      const schedule = wanted.get(name);
      if (schedule && specOf(schedule) === entry.spec) wanted.delete(name);
      else this.clear(name);
    }
    await Promise.all([...wanted].map(([name, schedule]) => this.begin(name, schedule)));
  }

  /** Clears every timer; a tick being claimed or started goes on. */
  stop(): void {
    this.running = false;
    for (const name of [...this.armed.keys()]) this.clear(name);
  }

  private clear(name: string): void {
    clearTimeout(this.armed.get(name)?.timer);
    this.armed.delete(name);
  }

  /** Catch-up (see the file comment), then the timer of the next tick. */
  private async begin(flow: string, schedule: ScheduleTrigger): Promise<void> {
    const entry: Armed = { flow, schedule, spec: specOf(schedule) };
    this.armed.set(flow, entry);
    const now = this.now();
    try {
      await this.recoverLost(entry);
      await this.catchUp(entry, now);
    } catch (err) {
      this.host.logger.error({ flow, err: (err as Error).message }, 'schedule catch-up failed');
    }
    if (this.armed.get(flow) !== entry) return;
    this.arm(entry, now);
    const next = nextTick(schedule, now);
    this.host.logger.info(
      { flow, cron: schedule.cron, timezone: schedule.timezone, next: next && new Date(next).toISOString() },
      'schedule armed',
    );
  }

  /** Claims and runs the latest tick at or before `now` when the store saw the schedule before it. */
  private async catchUp(entry: Armed, now: number): Promise<void> {
    const firstSeen = await this.host.ticks.scheduleSeen(entry.flow, entry.spec, now);
    const due = latestTick(entry.schedule, now);
    if (due === undefined || due <= firstSeen) return;
    // A tick that just fell is left a moment to the timers of processes already up, so it runs as
    // the regular tick it is there; it is caught up here only when none of them claimed it.
    const settle = due + CATCH_UP_SETTLE_MS - this.now();
    if (settle > 0) await new Promise((resolve) => setTimeout(resolve, settle).unref());
    if (this.armed.get(entry.flow) === entry) await this.fire(entry, due, true);
  }

  /** Sets the timer of the first tick after `after`; when it fires, the latest due tick runs and the next is armed. */
  private arm(entry: Armed, after: number): void {
    const next = nextTick(entry.schedule, after);
    if (next === undefined) return;
    entry.timer = setTimeout(
      () => {
        if (this.armed.get(entry.flow) !== entry) return;
        const now = this.now();
        if (now < next) return this.arm(entry, after);
        const due = latestTick(entry.schedule, now) ?? next;
        void this.fire(entry, due, false);
        void this.recoverLost(entry).catch((err: unknown) =>
          this.host.logger.error({ flow: entry.flow, err: (err as Error).message }, 'schedule could not look for lost ticks'),
        );
        this.arm(entry, due);
      },
      Math.min(Math.max(0, next - this.now()), MAX_TIMER_MS),
    );
    entry.timer.unref();
  }

  /**
   * Claims the tick and, when this process wins it, starts the execution. Never rejects. While the
   * database cannot be reached it tries again every DEPENDENCY_RETRY_MS: a tick not claimed yet until
   * the schedule's next tick falls, a tick claimed here until its execution is recorded.
   */
  private async fire(entry: Armed, tick: number, catchUp: boolean, claimed = false): Promise<void> {
    const fields = { flow: entry.flow, tick: new Date(tick).toISOString(), ...(catchUp ? { catch_up: true } : {}) };
    try {
      if (!claimed && !(await this.host.ticks.claimTick(entry.flow, tick, this.now()))) return;
      claimed = true;
      await this.startTick(entry, tick, catchUp);
      this.host.logger.info(fields, catchUp ? 'schedule tick caught up' : 'schedule tick started');
    } catch (err) {
      const retryAt = this.now() + DEPENDENCY_RETRY_MS;
      const retry =
        isDependencyUnavailable(err) &&
        this.armed.get(entry.flow) === entry &&
        (claimed || retryAt < (nextTick(entry.schedule, tick) ?? Number.POSITIVE_INFINITY));
      if (!retry) return this.host.logger.error({ ...fields, err: (err as Error).message }, 'schedule tick failed to start');
      this.host.logger.warn(
        { ...fields, err: (err as Error).message, retry_ms: DEPENDENCY_RETRY_MS },
        'schedule tick waits for the database',
      );
      setTimeout(() => void this.fire(entry, tick, catchUp, claimed), DEPENDENCY_RETRY_MS).unref();
    }
  }

  /** Records the tick's execution under its own id (once, whoever else tries) and notes the claim started. */
  private async startTick(entry: Armed, tick: number, catchUp: boolean): Promise<void> {
    const id = tickExecutionId(entry.flow, tick);
    try {
      await this.host.start(entry.flow, scheduleTriggerValue(entry.schedule, tick, catchUp), id);
    } catch (err) {
      // Recorded already (a claimer that was only slow, or another process taking it over): done.
      if (isDependencyUnavailable(err) || !(await this.host.exists(id))) throw err;
    }
    await this.host.ticks.tickStarted(entry.flow, tick);
  }

  /** Takes over the ticks of this schedule whose claimer died before recording them, and starts them. */
  private async recoverLost(entry: Armed): Promise<void> {
    const claimedBefore = this.now() - LOST_CLAIM_MS;
    for (const tick of await this.host.ticks.lostTicks(entry.flow, claimedBefore)) {
      if (!(await this.host.ticks.reclaimTick(entry.flow, tick, claimedBefore, this.now()))) continue;
      this.host.logger.warn({ flow: entry.flow, tick: new Date(tick).toISOString() }, 'schedule tick taken over from a claimer that died');
      await this.fire(entry, tick, false, true);
    }
  }
}
