// Keeps a credential out of texts and values that may end up in errors, logs or records.

/** What stands for a removed credential. */
export const REDACTED = '***';

/** `text` with every occurrence of `secret` replaced by "***" (no-op for an empty secret). */
export function redactText(text: string, secret: string): string {
  return secret ? text.split(secret).join(REDACTED) : text;
}

/** A copy of a JSON value with `secret` removed from every string in it (keys included). */
export function redactValue<T>(value: T, secret: string): T {
  if (!secret) return value;
  if (typeof value === 'string') return redactText(value, secret) as T;
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secret)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const key = redactText(k, secret);
      if (key === '__proto__')
        Object.defineProperty(out, key, { value: redactValue(v, secret), enumerable: true, writable: true, configurable: true });
      else out[key] = redactValue(v, secret);
    }
    return out as T;
  }
  return value;
}
