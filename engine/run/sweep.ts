// The sweep: hands the scheduler every execution the store says needs a process, so a scheduler that
// lost its timers (restart, Redis flushed) recovers and a crashed process's executions are found.
// `serve` and `worker` run it at start and every minute. Between sweeps, the take-over check
// (takeOverDeadLocalHolders, every LEADFLOW_TAKE_OVER_CHECK_MS in cli/executing-process.ts) takes
// over at once what a dead process of this machine held.
import type { TakeOverHost } from './take-over.js';
import { takeOver } from './take-over.js';
import { isDeadLocalOwner } from './leases.js';

/** How long a sweep lets executions taken over from a dead process run before it wakes the overdue waits, ms. */
export const TAKE_OVER_HEAD_START_MS = 5_000;

/**
 * Hands the scheduler every stored wait with a wake time, and every running execution not held here
 * (for when its lease lapses). Running executions whose holder is a dead process of this machine are
 * taken over at once and given up to TAKE_OVER_HEAD_START_MS to reach their next wait before the
 * overdue waits are woken: a message accepted but not yet buffered when the process died joins its
 * burst instead of being answered on its own. Idempotent. Rejects when the store cannot be reached.
 */
export async function sweepExecutions(host: TakeOverHost): Promise<void> {
  await sweepRunning(host);
  for (const wait of await host.store.listWaiting()) {
    if (wait.wake_at !== null) host.scheduler.schedule(wait.id, wait.wake_at);
  }
}

/** The running half of the sweep: take over (dead local holder) or schedule for the lease's lapse. */
async function sweepRunning(host: TakeOverHost): Promise<void> {
  const takenOver: Array<Promise<unknown>> = [];
  for (const running of await host.store.listRunning()) {
    if (host.isHeldHere(running.id)) continue;
    if (running.lease_owner && isDeadLocalOwner(running.lease_owner))
      takenOver.push(takeOver(host, running.id, running.lease_owner, 'sweep'));
    else host.scheduler.schedule(running.id, running.lease_until ?? Date.now());
  }
  if (takenOver.length > 0)
    await Promise.race([Promise.allSettled(takenOver), new Promise((r) => setTimeout(r, TAKE_OVER_HEAD_START_MS).unref())]);
}

/**
 * The take-over check: one store read (ExecutionStore.listRunning: the running executions' id, flow
 * and lease, no payload), then every running execution not held here whose lease holder is a dead
 * process of this machine (isDeadLocalOwner, one signal-0 probe per distinct holder) is claimed from
 * it and driven, without waiting for its lease to lapse. A holder on another machine, or a live one,
 * is left alone (another machine's holder is known dead only when its lease lapses; the sweep and the
 * queue look again then). Resolves, with the claims under way (their ids count as held here at once),
 * to the ids it is taking over; their drives go on after, and a failure of one is logged at warn.
 * Rejects when the store cannot be reached.
 */
export async function takeOverDeadLocalHolders(host: TakeOverHost): Promise<string[]> {
  const dead = new Map<string, boolean>();
  const ids: string[] = [];
  for (const running of await host.store.listRunning()) {
    const owner = running.lease_owner;
    if (owner === null || host.isHeldHere(running.id)) continue;
    if (!dead.has(owner)) dead.set(owner, isDeadLocalOwner(owner));
    if (!dead.get(owner)) continue;
    ids.push(running.id);
    void takeOver(host, running.id, owner, 'check').catch((err: unknown) =>
      host.logger.warn({ execution: running.id, err: (err as Error).message }, 'taking over an execution whose process died failed'),
    );
  }
  return ids;
}
