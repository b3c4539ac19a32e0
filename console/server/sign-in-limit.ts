// The sign-in lockout (CONTRACT.md §13): five failed sign-ins for one email within 15 minutes lock
// that email out (429) for 15 minutes, whether or not an account has it (so the answer does not tell).
// Kept in the key-value store so every process agrees: the lock `console-login:<sha256(email)>`
// holds either `f:<ms>,<ms>,…` (the instants of the recent failures) or `locked:<ms>` (until when).
// Instants are the service's clock (`services.clock`, so a test can move it); the lock's own life
// (30 minutes by the store's clock) only clears it away. Changes are compare-and-swap on the holder
// (release the holder read, acquire the new one), retried when another process changed it first.
import { createHash } from 'node:crypto';
import type { Clock } from '../../adapters/clock.js';
import type { KeyValue } from '../../adapters/kv/key-value.js';

/** Failures within WINDOW_MS that lock an email out. */
export const MAX_FAILURES = 5;
/** The window of failures and the length of a lockout, ms (15 minutes). */
export const LOCKOUT_MS = 15 * 60 * 1000;
/** Life of the stored lock, ms: long enough to outlive a window and a lockout. */
const STORE_TTL_MS = 2 * LOCKOUT_MS;
/** Attempts of one compare-and-swap before giving up (the failure is then not counted). */
const CAS_ATTEMPTS = 5;

type State = { kind: 'failures'; at: number[] } | { kind: 'locked'; until: number };

function parse(holder: string | null): State {
  const locked = /^locked:([0-9]{1,16})$/.exec(holder ?? '');
  if (locked) return { kind: 'locked', until: Number(locked[1]) };
  const list = /^f:([0-9,]{1,200})$/.exec(holder ?? '');
  const at = list ? list[1]!.split(',').filter(Boolean).map(Number) : [];
  return { kind: 'failures', at };
}

const format = (state: State): string => (state.kind === 'locked' ? `locked:${state.until}` : `f:${state.at.join(',')}`);

/** The per-email failure counts and lockouts of the console's sign-in (see the header). */
export class SignInLimit {
  constructor(
    private readonly kv: KeyValue,
    private readonly clock: Clock,
  ) {}

  /** True while `email` (normalized by the caller) is locked out. */
  async locked(email: string): Promise<boolean> {
    const state = parse(await this.kv.lockHolder(keyOf(email)));
    return state.kind === 'locked' && this.clock.now() < state.until;
  }

  /** Counts one failure for `email`; true when this one locked it out. */
  async fail(email: string): Promise<boolean> {
    const key = keyOf(email);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const holder = await this.kv.lockHolder(key);
      const now = this.clock.now();
      const before = parse(holder);
      const recent = before.kind === 'failures' ? before.at.filter((t) => t > now - LOCKOUT_MS && t <= now) : [];
      recent.push(now);
      const next: State = recent.length >= MAX_FAILURES ? { kind: 'locked', until: now + LOCKOUT_MS } : { kind: 'failures', at: recent };
      if (holder !== null && !(await this.kv.releaseLock(key, holder))) continue;
      if ((await this.kv.acquireLock(key, STORE_TTL_MS, format(next))) !== null) return next.kind === 'locked';
    }
    return false;
  }

  /** Forgets the failures of `email` (after a successful sign-in). */
  async clear(email: string): Promise<void> {
    const holder = await this.kv.lockHolder(keyOf(email));
    if (holder !== null && parse(holder).kind === 'failures') await this.kv.releaseLock(keyOf(email), holder);
  }
}

function keyOf(email: string): string {
  return `console-login:${createHash('sha256').update(email).digest('hex')}`;
}
