import type { JsonValue } from '../types.js';

/**
 * The `env` a flow sees: only the names it declares, each read from the process environment and
 * converted to the type of its default (number, boolean or string). An unset, empty or unparsable
 * value falls back to the default. A `null` default declares a text where "set but empty" means
 * something: the value as set (an empty text included), null when unset.
 */
export function flowEnv(declared: Record<string, JsonValue>, source: Record<string, string | undefined>): Record<string, JsonValue> {
  const env: Record<string, JsonValue> = {};
  for (const [name, fallback] of Object.entries(declared)) {
    const raw = source[name];
    if (fallback === null) {
      env[name] = raw ?? null;
    } else if (raw === undefined || raw === '') {
      env[name] = fallback;
    } else if (typeof fallback === 'number') {
      const n = Number(raw);
      env[name] = Number.isFinite(n) ? n : fallback;
    } else if (typeof fallback === 'boolean') {
      env[name] = /^(1|true|yes|on)$/i.test(raw) ? true : /^(0|false|no|off)$/i.test(raw) ? false : fallback;
    } else {
      env[name] = raw;
    }
  }
  return env;
}
