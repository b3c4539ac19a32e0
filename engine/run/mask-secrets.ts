import type { JsonValue } from '../types.js';

/**
 * Keys whose values are credentials, at any depth of recorded params: the usual header names, and
 * `token` / `secret` alone or as the last word of a name (`access_token`, `verify-token`,
 * `app_secret`, `client_secret`), `jwt_key`.
 */
const SECRET_KEY =
  /^(authorization|proxy-authorization|([a-z0-9]+[-_])*token|api[-_]?key|x-api-key|password|([a-z0-9]+[-_])*secret|jwt[-_]?key|cookie|set-cookie)$/i;
/** What a credential's value becomes in recorded params and outbound calls. */
export const MASK = '***';

/** A copy of `value` with every credential-named member replaced by "***" (what execution records keep). */
export function maskSecrets(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value && typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) {
      const masked = SECRET_KEY.test(k) && v !== null && v !== '' ? MASK : maskSecrets(v);
      if (k === '__proto__') Object.defineProperty(out, k, { value: masked, enumerable: true, writable: true, configurable: true });
      else out[k] = masked;
    }
    return out;
  }
  return value;
}

/** True when a recorded value had credentials masked (it cannot be reused as-is on resume). */
export function containsMasked(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.some(containsMasked);
  if (value && typeof value === 'object')
    return Object.entries(value).some(([k, v]) => (SECRET_KEY.test(k) && v === MASK) || containsMasked(v));
  return false;
}
