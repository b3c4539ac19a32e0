import { MAX_RECORDED_DEPTH, ValueTooDeepError } from '../errors/value-too-deep-error.js';
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

/** SECRET_KEY's answer by key: params and outbound calls repeat the same few names step after step. */
const secretByKey = new Map<string, boolean>();
/** Most keys remembered (keys of data, e.g. a webhook body in params, may be anything). */
const MAX_REMEMBERED_KEYS = 10_000;

/** Whether `key` names a credential (SECRET_KEY), remembered per key. */
function isSecretKey(key: string): boolean {
  let secret = secretByKey.get(key);
  if (secret === undefined) {
    secret = SECRET_KEY.test(key);
    if (secretByKey.size < MAX_REMEMBERED_KEYS) secretByKey.set(key, secret);
  }
  return secret;
}

/**
 * `value` with every credential-named member replaced by "***" (what execution records keep): a
 * copy of each object or array on the way to a masked member, `value` itself (no copy) when nothing
 * is masked. Never changes `value`. Throws ValueTooDeepError when `value` nests deeper than
 * MAX_RECORDED_DEPTH levels (never a stack overflow).
 */
export function maskSecrets(value: JsonValue): JsonValue {
  return maskAt(value, 1);
}

/** maskSecrets of a value at level `depth` (1: the top). */
function maskAt(value: JsonValue, depth: number): JsonValue {
  if (value !== null && typeof value === 'object' && depth > MAX_RECORDED_DEPTH) throw new ValueTooDeepError();
  if (Array.isArray(value)) {
    let out: JsonValue[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const masked = maskAt(value[i]!, depth + 1);
      if (masked === value[i]) continue;
      out ??= value.slice();
      out[i] = masked;
    }
    return out ?? value;
  }
  if (value && typeof value === 'object') {
    let out: Record<string, JsonValue> | undefined;
    for (const k of Object.keys(value)) {
      const v = value[k]!;
      const masked = isSecretKey(k) && v !== null && v !== '' ? MASK : maskAt(v, depth + 1);
      if (masked === v) continue;
      out ??= ownCopy(value);
      setOwn(out, k, masked);
    }
    return out ?? value;
  }
  return value;
}

/** A shallow copy of `object`'s own members (an own `__proto__` stays a member). */
function ownCopy(object: Record<string, JsonValue>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(object)) setOwn(out, k, v);
  return out;
}

function setOwn(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * True when a recorded value had credentials masked (it cannot be reused as-is on resume). Throws
 * ValueTooDeepError past MAX_RECORDED_DEPTH levels.
 */
export function containsMasked(value: JsonValue, depth = 1): boolean {
  if (value !== null && typeof value === 'object' && depth > MAX_RECORDED_DEPTH) throw new ValueTooDeepError();
  if (Array.isArray(value)) return value.some((v) => containsMasked(v, depth + 1));
  if (value && typeof value === 'object')
    return Object.entries(value).some(([k, v]) => (isSecretKey(k) && v === MASK) || containsMasked(v, depth + 1));
  return false;
}
