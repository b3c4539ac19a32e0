// Errors that say a dependency of the process (the database, Redis) cannot be reached right now,
// as opposed to an error of the step itself. A step failing this way is not a failure of the
// execution: the engine parks it and runs the step again later (execution-run.ts), so a database
// restart or a network blip loses nothing. Gateway and AI errors are not included: their clients
// retry on their own and their final failure is the step's (and is recorded as such).

/** Node network error codes of a connection that could not be made or was cut. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01-57P03 (shutdown, cannot connect now). */
const PG_STATES = /^(08\d{3}|57P0[123])$/;
/** Messages of pg, knex and ioredis when the connection is gone. */
const MESSAGES =
  /Connection terminated|connection is closed|Timeout acquiring a connection|Client has encountered a connection error|the database system is (starting up|shutting down)/i;

/** How long a step parked for an unreachable dependency waits before it runs again, ms. */
export const DEPENDENCY_RETRY_MS = 2_000;

/**
 * True for the errors the database driver (pg, knex) and the Redis client (ioredis) raise when the
 * server cannot be reached. Not for outside calls: `fetch` (http.request, the AI SDKs' transports)
 * wraps its network errors in a TypeError, and the gateway and AI clients in their own classes —
 * those are the step's failures, retried by their own policies.
 */
export function isDependencyUnavailable(err: unknown): boolean {
  if (!err || typeof err !== 'object' || err instanceof TypeError) return false;
  const e = err as { name?: string; code?: unknown; message?: unknown };
  if (typeof e.name === 'string' && /^(Gateway|Provider|RateLimit|AgentFailed|EmptyOutput|APIConnection|HttpStatus|Timeout)/.test(e.name))
    return false;
  if (e.name === 'KnexTimeoutError' || e.name === 'MaxRetriesPerRequestError') return true;
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || PG_STATES.test(e.code))) return true;
  return typeof e.message === 'string' && MESSAGES.test(e.message);
}
