/**
 * Copies own members of `source` onto `target` as plain data: a `__proto__` key (possible in hostile
 * JSON input) becomes an ordinary member instead of replacing the target's prototype.
 */
export function assignOwn<T extends object>(target: T, source: object): T {
  for (const [key, value] of Object.entries(source)) {
    if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
    else (target as Record<string, unknown>)[key] = value;
  }
  return target;
}
