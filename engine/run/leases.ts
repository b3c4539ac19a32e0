// Leases: a process's hold on the executions it drives, when several processes share one store.
// Names the holder (`host:pid:random`), makes leases of a set life and keeps them renewed while a
// drive lasts. A holder that stops renewing loses its executions to another process (take-over.ts).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { ExecutionStore, Lease } from '../store/execution-store.js';
import type { ExecutionRecord } from '../types.js';
import type { Logger } from '../logger.js';

/** Default life of a lease on a running execution, ms (LEADFLOW_LEASE_MS overrides it in the CLI). */
export const DEFAULT_LEASE_MS = 30_000;

/** Shortest renewal period, ms, whatever the lease life. */
const MIN_RENEWAL_MS = 50;

/**
 * The names leaseOwnerName gave out in this process, shared by every copy of this module the process
 * loaded (a global registry), so isDeadLocalOwner tells this process's names from a dead one's.
 */
const OWN_NAMES_KEY = Symbol.for('leadflow.leaseOwnerNames');
const registry = globalThis as unknown as Record<symbol, Set<string> | undefined>;
registry[OWN_NAMES_KEY] ??= new Set<string>();
const ownNames: Set<string> = registry[OWN_NAMES_KEY];

/**
 * A new name for this process on leases: `host:pid:random`. The random part (8 hex digits) tells
 * apart two engines of one process, and this process from an earlier one that had the same pid.
 * Never throws.
 */
export function leaseOwnerName(): string {
  const name = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  ownNames.add(name);
  return name;
}

/**
 * True when a lease owner (`host:pid:random`, see leaseOwnerName) is a process of this machine that
 * no longer exists, so its executions can be taken over without waiting for the lease to lapse:
 * `host` is this machine's hostname and no process has that pid (a signal-0 probe says ESRCH), or
 * the pid is this process's own but the name is not one this process gave out (an earlier process
 * with the same pid, as a restarted container's). False for this process's names, a live pid (or one
 * reused since), another machine, or an owner name it cannot read. "This machine" is the hostname:
 * processes sharing one hostname must share their process ids too (not so for containers given the
 * same hostname, or the host's, each with its own pid namespace: such deployments must give each
 * process a hostname of its own). Never throws.
 */
export function isDeadLocalOwner(owner: string): boolean {
  const [host, pidText] = owner.split(':');
  const pid = Number(pidText);
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return !ownNames.has(owner);
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * One process's leases: who holds them and for how long. A lease lives `ms` milliseconds and is
 * renewed every third of it, so a lease ending sooner than a third of `ms` from now missed a renewal.
 *
 * @example
 * const leases = new Leases(leaseOwnerName(), DEFAULT_LEASE_MS);
 * const claimed = await store.claim(id, leases.fresh());
 */
export class Leases {
  /**
   * @param owner this process's name on leases (see leaseOwnerName)
   * @param ms life of a lease, ms (positive)
   */
  constructor(
    readonly owner: string,
    readonly ms: number,
  ) {}

  /** A lease held by this owner from now until `ms` from now. */
  fresh(): Lease {
    return { owner: this.owner, until: Date.now() + this.ms };
  }

  /**
   * True when a lease lapsing at `until` (ms since epoch) was not renewed on time at `now`: it ends
   * sooner than a third of the lease life from `now`. Assumes its holder runs with the same lease life.
   */
  missedRenewal(until: number, now: number): boolean {
    return until < now + this.ms / 3;
  }

  /**
   * Renews the lease on `record` every third of the lease life (at least every 50 ms) until the
   * returned function is called. A lease lost to a cancel
   * (the store holds the execution cancelled) calls `onCancelled`; any other lost lease (while
   * `stillDriven()` holds) and a failed renewal are logged at warn, never thrown.
   */
  keepRenewed(
    store: ExecutionStore,
    record: ExecutionRecord,
    logger: Logger,
    stillDriven: () => boolean,
    onCancelled?: () => void,
  ): () => void {
    const renew = () =>
      store.renewLease(record.id, this.fresh()).then(
        async (kept) => {
          if (kept || !stillDriven()) return;
          // Cancelled meanwhile, in any process (it holds no lease then): it ends after the step it is in.
          if ((await store.get(record.id).catch(() => undefined))?.status === 'cancelled') {
            onCancelled?.();
            return;
          }
          logger.warn(
            { execution: record.id, flow: record.flow },
            'lost the lease on a running execution (another process may take it over)',
          );
        },
        (err: unknown) => logger.warn({ execution: record.id, err: (err as Error).message }, 'renewing the lease failed'),
      );
    const renewal = setInterval(renew, Math.max(MIN_RENEWAL_MS, Math.floor(this.ms / 3)));
    renewal.unref();
    return () => clearInterval(renewal);
  }
}
