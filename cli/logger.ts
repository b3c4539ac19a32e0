// Structured logs (pino). Services log JSON lines to stdout; one-shot commands log to stderr so their
// stdout stays clean (e.g. `run --json`). Level from LOG_LEVEL (default `info`, `warn` for one-shots).
//
// What a line never holds:
//   - credentials: fields named like a token, key, secret, password, authorization or cookie are
//     printed as "***" (pino `redact`), at the top level and two levels down (e.g. `err.headers.token`);
//   - phone numbers: every phone-like run of digits in any string (fields and message, e.g. a JID or a
//     lock key `3:5511987654321`) is masked as maskPhone does (`5511*******21`). Nodes mask the phones
//     they log themselves; this is the safety net for the rest (error messages, keys).
// Lines: one per execution drive at info (`execution finished` / `waiting` / `failed`, with `execution`
// and `flow`), one per step at debug (LOG_LEVEL=debug), rejected requests at warn.
import pino from 'pino';
import { maskPhone } from '../adapters/phones/mask-phone.js';
import type { Logger } from '../engine/run/execution-run.js';

/** Credential field names (pino paths; names with a dash in brackets). */
const SECRET_FIELDS = [
  'token',
  'instance_token',
  'authorization',
  'secret',
  'password',
  'apiKey',
  'api_key',
  'cookie',
  'app_secret',
  'verify_token',
  'jwt_key',
  '["x-webhook-secret"]',
  '["x-hub-signature-256"]',
  '["x-api-key"]',
  '["typeform-signature"]',
  '["tally-signature"]',
  '["set-cookie"]',
  '["proxy-authorization"]',
];
const dotted = (field: string) => (field.startsWith('[') ? field : `.${field}`);
/** Every credential field at the top level, one and two levels down. */
export const REDACT_PATHS = SECRET_FIELDS.flatMap((f) => [f, `*${dotted(f)}`, `*.*${dotted(f)}`]);

/**
 * A phone-like run: 10 to 15 digits, optionally `+` first and up to two spaces, dashes or
 * parentheses between two digits, not part of a longer word or number (ids and timestamps inside words stay).
 */
const PHONE_RUN = /(?<![\w-])\+?\d(?:[ ()-]{0,2}\d){9,14}(?![\w-])/g;

/** A run that starts like a date (`2025-01-02 10…`) is a timestamp, not a phone. */
const DATE_START = /^\d{4}-\d{2}-\d{2}\b/;

/** `text` with every phone-like run masked. */
export function maskPhonesIn(text: string): string {
  return text.replace(PHONE_RUN, (run) => (DATE_START.test(run) ? run : maskPhone(run)));
}

/** A copy of a log object with phone-like runs in its strings masked (depth-bounded). */
function maskPhonesDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskPhonesIn(value);
  if (depth > 6 || !value || typeof value !== 'object') return value;
  if (value instanceof Error) {
    const copy = new Error(maskPhonesIn(value.message));
    copy.name = value.name;
    copy.stack = value.stack === undefined ? undefined : maskPhonesIn(value.stack);
    return copy;
  }
  if (Array.isArray(value)) return value.map((v) => maskPhonesDeep(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = maskPhonesDeep(v, depth + 1);
  return out;
}

export interface LoggerOptions {
  toStderr?: boolean;
  level?: string;
  /** Where lines go instead of stdout/stderr (tests capture them). */
  destination?: pino.DestinationStream;
}

export function createLogger(options: LoggerOptions = {}): Logger & pino.Logger {
  const level = process.env.LOG_LEVEL ?? options.level ?? 'info';
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '***' },
      base: { service: 'leadflow' },
      formatters: { log: (fields) => maskPhonesDeep(fields) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          const masked = args.map((a) => (typeof a === 'string' ? maskPhonesIn(a) : a)) as Parameters<typeof method>;
          method.apply(this, masked);
        },
      },
    },
    options.destination ?? pino.destination(options.toStderr ? 2 : 1),
  );
}
