// Console sessions (issue 14): what the cookie `lf_session` stands for, kept server-side in the
// key-value store (Redis, or the in-process store written through to the database) so every process
// knows them and signing out revokes them everywhere.
//
//   cookie value  `<id>.<signature>`: id = 32 random bytes (base64url), signature = HMAC-SHA256 of the
//                 id under LEADFLOW_ADMIN_TOKEN; a changed token invalidates every session at once.
//   stored        the lock `console-session:<sha256(id)>` (the raw id is never stored), holding
//                 `until:<ms>` (signed in with the admin token) or `until:<ms>;user:<id>` (signed in
//                 as the account `usuarios.id`): the session ends 12 h after signing in (not renewed by use), by the
//                 service's clock (`services.clock`); the lock's own life (the same 12 h, by the
//                 store's clock) only clears it away.
//   CSRF token    HMAC-SHA256 of the id under the admin token (base64url): derived, never stored, a
//                 different value for every session.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { KeyValue } from '../../adapters/kv/key-value.js';
import { type Clock, systemClock } from '../../adapters/clock.js';
import { constantTimeEqual } from '../../engine/constant-time.js';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'lf_session';
/** Life of a session, ms (12 h); the cookie's Max-Age is the same in seconds. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Random bytes of a session id. */
const ID_BYTES = 32;
/** What the stored lock holds: the instant (ms since the epoch) the session ends, and its account. */
const holderOf = (untilMs: number, userId: number | null): string => `until:${untilMs}${userId === null ? '' : `;user:${userId}`}`;
/** The end and account a stored holder names, or undefined for anything else. */
function parseHolder(holder: string | null): { until: number; userId: number | null } | undefined {
  const match = /^until:([0-9]{1,16})(?:;user:([0-9]{1,15}))?$/.exec(holder ?? '');
  return match ? { until: Number(match[1]), userId: match[2] === undefined ? null : Number(match[2]) } : undefined;
}

/** A live session: its CSRF token and who signed in (`userId` null: the admin token). */
export interface Session {
  csrf: string;
  /** `usuarios.id` of the account signed in, or null for the admin token. */
  userId: number | null;
}

/** The console's sessions (see the header): created on sign-in, checked on every request with the cookie, ended on sign-out; kept in the key-value store so every process shares them. */
export class ConsoleSessions {
  constructor(
    private readonly kv: KeyValue,
    /** LEADFLOW_ADMIN_TOKEN: the key of the cookie's signature and of the CSRF token. */
    private readonly secret: string,
    /** What "now" is when a session starts and when it is checked (the service's `services.clock`). */
    private readonly clock: Clock = systemClock,
  ) {}

  /** Starts a session (a new id every time) for the account `userId` (null: the admin token); returns the cookie value and its CSRF token. */
  async create(userId: number | null = null): Promise<{ cookie: string; csrf: string }> {
    const id = randomBytes(ID_BYTES).toString('base64url');
    const taken = await this.kv.acquireLock(storeKey(id), SESSION_TTL_MS, holderOf(this.clock.now() + SESSION_TTL_MS, userId));
    if (taken === null) throw new Error('session id collision');
    return { cookie: `${id}.${this.mac('session', id)}`, csrf: this.mac('csrf', id) };
  }

  /** The session a cookie value names, or undefined when it is malformed, forged, expired or revoked. */
  async find(cookie: string | undefined): Promise<Session | undefined> {
    const id = this.verifiedId(cookie);
    if (!id) return undefined;
    const held = parseHolder(await this.kv.lockHolder(storeKey(id)));
    return held !== undefined && this.clock.now() < held.until ? { csrf: this.mac('csrf', id), userId: held.userId } : undefined;
  }

  /** Ends the session a cookie value names (nothing when it names none). */
  async revoke(cookie: string | undefined): Promise<void> {
    const id = this.verifiedId(cookie);
    if (!id) return;
    const holder = await this.kv.lockHolder(storeKey(id));
    if (holder !== null) await this.kv.releaseLock(storeKey(id), holder);
  }

  private verifiedId(cookie: string | undefined): string | undefined {
    const match = /^([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})$/.exec(cookie ?? '');
    if (!match) return undefined;
    return constantTimeEqual(match[2]!, this.mac('session', match[1]!)) ? match[1] : undefined;
  }

  private mac(purpose: string, id: string): string {
    return createHmac('sha256', this.secret).update(`${purpose}:${id}`).digest('base64url');
  }
}

function storeKey(id: string): string {
  return `console-session:${createHash('sha256').update(id).digest('hex')}`;
}

/** The value of cookie `name` in a `Cookie` header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
