// Structured logs (pino). Services log JSON lines to stdout; one-shot commands log to stderr so their
// stdout stays clean (e.g. `run --json`). Level from LOG_LEVEL (default `info`, `warn` for one-shots).
import pino from 'pino';
import type { Logger } from '../engine/run/execution-run.js';

/** Fields never printed, wherever they appear one level deep. */
const REDACT = ['token', 'authorization', 'secret', 'apiKey', 'api_key', 'password'].flatMap((k) => [k, `*.${k}`]);

export function createLogger(options: { toStderr?: boolean; level?: string } = {}): Logger & pino.Logger {
  const level = process.env.LOG_LEVEL ?? options.level ?? 'info';
  return pino({ level, redact: { paths: REDACT, censor: '***' }, base: { service: 'leadflow' } }, pino.destination(options.toStderr ? 2 : 1));
}
