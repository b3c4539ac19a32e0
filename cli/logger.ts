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
//
// How lines reach stdout or stderr: FdLineWriter (cli/fd-line-writer.ts). The lines logged in one turn
// of the event loop go out together in one synchronous write at the end of that turn, so under load a
// write carries many lines, a line logged at idle is out at once, and none is lost or out of order when
// the process ends: what is still gathered is written on `exit` (process.exit, the graceful stop on
// SIGTERM/SIGINT ends with it, the event loop emptying, an uncaught exception or unhandled rejection);
// test/cli/logger-flush.test.ts checks each, and a process that ends while earlier lines are still
// going out. A reader of stdout that stops reading never blocks the process (a pipe is non-blocking):
// the lines wait in memory, and the process waits for them up to 5 s as it ends. A SIGKILL, a signal
// the process does not handle (e.g. SIGHUP) or an abort (out of memory) ends it without `exit`: the
// lines of that turn of the event loop are lost, and any the reader had not taken.
import pino from 'pino';
import { maskPhone } from '../adapters/phones/mask-phone.js';
import type { Logger } from '../engine/logger.js';
import { lineWriterFor } from './fd-line-writer.js';

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
/** Every credential field at the top level, one and two levels down, as pino paths: what no line holds. */
export const REDACT_PATHS = SECRET_FIELDS.flatMap((f) => [f, `*${dotted(f)}`, `*.*${dotted(f)}`]);

/** The credential field names as keys. */
const SECRET_KEYS = new Set(SECRET_FIELDS.map((f) => (f.startsWith('[') ? f.slice(2, -2) : f)));
/** What a credential's value is printed as. */
const CENSOR = '***';

/**
 * What pino redacts itself: the top-level fields, and one path below them. That one keeps pino
 * printing every top-level value and the message through its redaction (JSON.stringify for texts),
 * as with all of REDACT_PATHS; the fields one and two levels down are censored by censorNested
 * instead (formatters.log), since pino walks each path for each value of each line (tens of µs a
 * line with all of them). The lines are the same (test/cli/logger.test.ts compares them).
 */
const PINO_REDACT_PATHS = [...SECRET_FIELDS, '*.token'];

/**
 * `fields` with every credential field one and two levels below a top-level field printed as "***",
 * as pino's redaction of REDACT_PATHS prints them: an own enumerable member of that name, whatever
 * its value (undefined and null included). Top-level credential fields are left to pino. A copy of
 * each object on the way to a censored member; `fields` itself is never changed.
 */
export function censorNested(fields: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    if (SECRET_KEYS.has(key)) continue;
    const value = fields[key];
    const censored = censorMembers(value, 2);
    if (censored === value) continue;
    out ??= copyOf(fields);
    setOwn(out, key, censored);
  }
  return out ?? fields;
}

/** `value` with its credential members (`levels` deep) censored; a copy where one is, else `value` itself. */
function censorMembers(value: unknown, levels: number): unknown {
  if (levels === 0 || !value || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(source)) {
    const member = source[key];
    const censored = SECRET_KEYS.has(key) ? CENSOR : censorMembers(member, levels - 1);
    if (censored === member) continue;
    out ??= copyOf(source);
    setOwn(out, key, censored);
  }
  return out ?? value;
}

/** A shallow copy with the same prototype (an array's: an array) and the own enumerable members. */
function copyOf(value: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(value)) return value.slice() as unknown as Record<string, unknown>;
  const out = Object.create(Object.getPrototypeOf(value)) as Record<string, unknown>;
  for (const key of Object.keys(value)) setOwn(out, key, value[key]);
  return out;
}

/** Sets an own member (an own `__proto__` stays a member). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

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
export function maskPhonesDeep(value: unknown, depth = 0): unknown {
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

/** Where and from which level createLogger writes. */
export interface LoggerOptions {
  /** Write to stderr instead of stdout (one-shot commands, so their stdout stays clean). */
  toStderr?: boolean;
  /** The level when LOG_LEVEL is unset (default `info`). */
  level?: string;
  /** Where lines go instead of stdout/stderr (tests capture them). */
  destination?: pino.DestinationStream;
}

/**
 * The process's logger: JSON lines (pino) with `service: leadflow`, credentials redacted and phone
 * numbers masked in every field and message (see above). Level: LOG_LEVEL, else `options.level`, else `info`.
 */
export function createLogger(options: LoggerOptions = {}): Logger & pino.Logger {
  const level = process.env.LOG_LEVEL ?? options.level ?? 'info';
  return pino(
    {
      level,
      redact: { paths: PINO_REDACT_PATHS, censor: CENSOR },
      base: { service: 'leadflow' },
      formatters: {
        log: (fields) => censorNested(maskPhonesDeep(fields) as Record<string, unknown>),
        bindings: (bindings) => censorNested(bindings),
      },
      hooks: {
        logMethod(args, method) {
          const masked = args.map((a) => (typeof a === 'string' ? maskPhonesIn(a) : a)) as Parameters<typeof method>;
          method.apply(this, masked);
        },
      },
    },
    options.destination ?? lineWriterFor(options.toStderr ? 2 : 1),
  );
}
