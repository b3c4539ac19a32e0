// Take-over: driving executions whose holder died in the middle of a step. A holder that is a dead
// process of this machine is known dead at once (isDeadLocalOwner); any other holder is known dead
// when its lease lapses unrenewed. Used by the sweep and the take-over check (sweep.ts) and by
// NodeContext.interruptedPeersUntil.
import { DEPENDENCY_RETRY_MS, isDependencyUnavailable } from '../errors/dependency-unavailable.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import type { ClaimResult, ExecutionStore } from '../store/execution-store.js';
import type { ExecutionRecord } from '../types.js';
import type { Logger } from '../logger.js';
import { isDeadLocalOwner, type Leases } from './leases.js';

/** How much later than a lapsed lease its execution is looked at again, ms (the lapse is then certain). */
export const AFTER_LAPSE_MS = 100;

/** What taking over needs from the engine. */
export interface TakeOverHost {
  readonly store: ExecutionStore;
  readonly scheduler: Scheduler;
  readonly logger: Logger;
  readonly leases: Leases;
  /** True when this process drives the execution, or is claiming it, now: it is never taken over. */
  isHeldHere(id: string): boolean;
  /** ExecutionStore.claim with a fresh lease of this process; the id counts as held here meanwhile. */
  claim(id: string, takeOverFrom?: string): Promise<ClaimResult>;
  /** Drives a record claimed for this process; resolves when the drive ends (finished or parked). */
  drive(record: ExecutionRecord): Promise<ExecutionRecord>;
}

/**
 * Engine.resume's claim of `id` (host.claim). Resolves to what the claim did, or undefined when
 * it is to be looked at again later, scheduled here: the store is away (in DEPENDENCY_RETRY_MS,
 * whatever the scheduler) or another process holds it (just after its lease lapses; taken over then
 * if its holder died). Nothing is scheduled once `signal` aborted (shutting down); a store error
 * then, or any other store error, rejects.
 */
export async function claimOrLookLater(host: TakeOverHost, id: string, signal: AbortSignal): Promise<ClaimResult | undefined> {
  let claimed: ClaimResult;
  try {
    claimed = await host.claim(id);
  } catch (err) {
    // The database is away: look again shortly (the same wake, later), whatever the scheduler.
    if (!isDependencyUnavailable(err) || signal.aborted) throw err;
    host.scheduler.schedule(id, Date.now() + DEPENDENCY_RETRY_MS);
    return undefined;
  }
  if (claimed.heldUntil === undefined) return claimed;
  // Another process holds it: look again when its lease lapses (taken over if its holder died).
  if (!signal.aborted) host.scheduler.schedule(id, claimed.heldUntil + AFTER_LAPSE_MS);
  return undefined;
}

/** Who found a dead holder's execution, as the take-over's log line says (`via`). */
export type TakeOverVia = 'sweep' | 'check' | 'peers';

/**
 * Claims execution `id` from `deadOwner` (whose lease may still be live) and drives it; the take-over
 * is logged at warn with `via` (who found it). Resolves with the drive's end, or undefined when the
 * execution is no longer running (finished meanwhile, or taken by another process). Rejects when the
 * store cannot be reached.
 */
export async function takeOver(host: TakeOverHost, id: string, deadOwner: string, via: TakeOverVia): Promise<ExecutionRecord | undefined> {
  const claimed = await host.claim(id, deadOwner);
  if (claimed.record?.status !== 'running') return undefined;
  host.logger.warn({ execution: id, flow: claimed.record.flow, via }, 'took over an execution whose process died');
  return host.drive(claimed.record);
}

/**
 * NodeContext.interruptedPeersUntil: running executions of `self`'s flow, not held here, whose holder
 * missed a lease renewal (see Leases.missedRenewal) or is a dead process of this machine. Each is
 * taken over now (dead local holder; a failure is logged, not thrown) or scheduled for just after its
 * lease lapses. Returns the latest of those times (ms since epoch), or null when there are none.
 * Rejects when the store cannot be reached.
 */
export async function interruptedPeersUntil(host: TakeOverHost, self: ExecutionRecord): Promise<number | null> {
  const now = Date.now();
  let latest: number | null = null;
  for (const running of await host.store.listRunning()) {
    if (running.id === self.id || running.flow !== self.flow || running.lease_until === null) continue;
    if (host.isHeldHere(running.id)) continue;
    const deadHere = running.lease_owner !== null && isDeadLocalOwner(running.lease_owner);
    if (!deadHere && !host.leases.missedRenewal(running.lease_until, now)) continue;
    const until = deadHere ? now : Math.max(now, running.lease_until);
    if (deadHere)
      void takeOver(host, running.id, running.lease_owner!, 'peers').catch((err: unknown) =>
        host.logger.warn({ execution: running.id, err: (err as Error).message }, 'taking over an interrupted execution failed'),
      );
    else host.scheduler.schedule(running.id, until + AFTER_LAPSE_MS);
    latest = Math.max(latest ?? 0, until);
  }
  return latest;
}
