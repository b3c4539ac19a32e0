// The sweep: hands the scheduler every execution the store says needs a process, so a scheduler that
// lost its timers (restart, Redis flushed) recovers and a crashed process's executions are found.
// `serve` and `worker` run it at start and every minute.
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
    if (running.lease_owner && isDeadLocalOwner(running.lease_owner)) takenOver.push(takeOver(host, running.id, running.lease_owner));
    else host.scheduler.schedule(running.id, running.lease_until ?? Date.now());
  }
  if (takenOver.length > 0)
    await Promise.race([Promise.allSettled(takenOver), new Promise((r) => setTimeout(r, TAKE_OVER_HEAD_START_MS).unref())]);
}
