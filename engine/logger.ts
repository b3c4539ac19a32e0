// Structured logging as the engine uses it: the contract every part of the engine logs through
// (executions, triggers, observers), and the logger that drops everything. A file of its own so the
// parts that log (observer, run, step context) depend on it and not on one another.

/** Structured logging as the engine uses it (pino-compatible): fields first, then the message. Must not throw. */
export interface Logger {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
  /**
   * Whether lines of `level` are written (pino's). Optional: without it every level counts as
   * written. The engine asks once per drive whether to build its per-step debug lines.
   */
  isLevelEnabled?(level: 'debug' | 'info' | 'warn' | 'error'): boolean;
}

/** A Logger that drops everything (tests, benchmarks, and the default of EngineOptions.logger). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
