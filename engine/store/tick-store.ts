// Where schedule ticks are claimed, so each tick of a flow's schedule starts one execution across
// every process sharing the store (engine/triggers/schedule-runner.ts). The database's is
// adapters/db/tick-store.ts (tables `schedule_ticks` and `schedule_seen`, shared by every `serve`
// and `worker`); MemoryTickStore serves one process.

/**
 * Claims of schedule ticks. Ticks and times are ms since the epoch. Every method rejects when the
 * store cannot be reached.
 *
 * @example
 * const ticks: TickStore = new MemoryTickStore();
 * const firstSeen = await ticks.scheduleSeen('report', '0 9 * * 1-5 America/Sao_Paulo', Date.now());
 * if (await ticks.claimTick('report', tick)) await engine.start('report', { body: {}, schedule }); // one claimer wins
 */
export interface TickStore {
  /**
   * Takes the tick `tickAt` of `flow`: resolves true for exactly one caller per (flow, tickAt) among
   * every process sharing the store (that caller starts the execution), false for every other.
   */
  claimTick(flow: string, tickAt: number): Promise<boolean>;
  /** The latest tick of `flow` ever claimed (and not pruned), or undefined when none was. */
  lastTick(flow: string): Promise<number | undefined>;
  /**
   * Notes that `flow` is served with the schedule `spec` (its cron and time zone in one text) and
   * resolves with when that was first noted: `at` the first time, the stored time afterwards. A
   * tick before that instant is never caught up (the schedule did not exist yet).
   */
  scheduleSeen(flow: string, spec: string, at: number): Promise<number>;
}

/** A TickStore in this process's memory: right for one process (tests, one-shot commands). Lost on exit. */
export class MemoryTickStore implements TickStore {
  private readonly claimed = new Map<string, Set<number>>();
  private readonly seen = new Map<string, number>();

  async claimTick(flow: string, tickAt: number): Promise<boolean> {
    const ticks = this.claimed.get(flow) ?? new Set<number>();
    this.claimed.set(flow, ticks);
    if (ticks.has(tickAt)) return false;
    ticks.add(tickAt);
    return true;
  }

  async lastTick(flow: string): Promise<number | undefined> {
    const ticks = [...(this.claimed.get(flow) ?? [])];
    return ticks.length > 0 ? Math.max(...ticks) : undefined;
  }

  async scheduleSeen(flow: string, spec: string, at: number): Promise<number> {
    const key = `${flow}\u0000${spec}`;
    const first = this.seen.get(key) ?? at;
    this.seen.set(key, first);
    return first;
  }
}
