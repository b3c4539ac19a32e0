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
   * Takes the tick `tickAt` of `flow` at `at` (default now): resolves true for exactly one caller per
   * (flow, tickAt) among every process sharing the store (that caller starts the execution), false
   * for every other.
   */
  claimTick(flow: string, tickAt: number, at?: number): Promise<boolean>;
  /** Notes that the execution of a claimed tick is recorded: the claim is no longer lost if its claimer dies. */
  tickStarted(flow: string, tickAt: number): Promise<void>;
  /** Ticks of `flow` claimed before `claimedBefore` whose execution was never noted recorded (tickStarted), oldest first. */
  lostTicks(flow: string, claimedBefore: number): Promise<number[]>;
  /**
   * Takes a lost tick over at `at` (default now): true for exactly one caller, and only while the
   * tick is still not started and was claimed before `claimedBefore`; that caller starts it.
   */
  reclaimTick(flow: string, tickAt: number, claimedBefore: number, at?: number): Promise<boolean>;
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
  /** Per flow: tick -> when it was claimed, and whether its execution is recorded. */
  private readonly claimed = new Map<string, Map<number, { at: number; started: boolean }>>();
  private readonly seen = new Map<string, number>();

  private claimsOf(flow: string): Map<number, { at: number; started: boolean }> {
    const claims = this.claimed.get(flow) ?? new Map<number, { at: number; started: boolean }>();
    this.claimed.set(flow, claims);
    return claims;
  }

  async claimTick(flow: string, tickAt: number, at: number = Date.now()): Promise<boolean> {
    const claims = this.claimsOf(flow);
    if (claims.has(tickAt)) return false;
    claims.set(tickAt, { at, started: false });
    return true;
  }

  async tickStarted(flow: string, tickAt: number): Promise<void> {
    const claim = this.claimsOf(flow).get(tickAt);
    if (claim) claim.started = true;
  }

  async lostTicks(flow: string, claimedBefore: number): Promise<number[]> {
    return [...this.claimsOf(flow)]
      .filter(([, claim]) => !claim.started && claim.at < claimedBefore)
      .map(([tick]) => tick)
      .sort((a, b) => a - b);
  }

  async reclaimTick(flow: string, tickAt: number, claimedBefore: number, at: number = Date.now()): Promise<boolean> {
    const claim = this.claimsOf(flow).get(tickAt);
    if (!claim || claim.started || claim.at >= claimedBefore) return false;
    claim.at = at;
    return true;
  }

  async lastTick(flow: string): Promise<number | undefined> {
    const ticks = [...this.claimsOf(flow).keys()];
    return ticks.length > 0 ? Math.max(...ticks) : undefined;
  }

  async scheduleSeen(flow: string, spec: string, at: number): Promise<number> {
    const key = `${flow}\u0000${spec}`;
    const first = this.seen.get(key) ?? at;
    this.seen.set(key, first);
    return first;
  }
}
