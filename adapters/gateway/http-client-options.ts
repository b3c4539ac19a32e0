// The options every provider's HTTP client takes besides its instance's address and credentials:
// limits, retries, the injected fetch and random source, the logger and the metrics hook. Units: ms,
// bytes. The defaults are the clients' own (each applies them the same way).
import type { GatewayCallEvent } from './gateway-client.js';
import type { GatewayLogger } from './http-call.js';

/** The shared options of every provider's client (see the file's head); each field optional, defaulted by http-client.ts. */
export interface GatewayHttpOptions {
  /** Time limit of one attempt, ms. Default 15000. */
  timeoutMs?: number;
  /** Retries after the first attempt (429, 5xx and network failures; never other 4xx). Default 3. */
  retries?: number;
  /** First backoff delay, ms (doubles per retry, with jitter). Default 500. */
  baseDelayMs?: number;
  /** Cap of one backoff delay, ms. Default 8000. */
  maxDelayMs?: number;
  /** Longest Retry-After waited for, ms; a longer one fails at once (error carries retryAfterMs). Default 30000. */
  maxRetryAfterMs?: number;
  /** Largest media download read, bytes. Default 64 MiB. */
  maxDownloadBytes?: number;
  /** Injected fetch (tests); default the global fetch. */
  fetch?: typeof fetch;
  /** Random source for jitter, [0, 1). Default Math.random. */
  random?: () => number;
  logger?: GatewayLogger;
  /**
   * Called for metrics (must not throw): `retried` before each retry of a call, then once `ok` or
   * `error` when the call ends (an abort counts as `error`).
   */
  onCall?: (event: GatewayCallEvent) => void;
}
