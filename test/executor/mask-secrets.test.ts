// maskSecrets: credential-named members become "***" at any depth; the value given is never changed,
// and a value with nothing to mask comes back as is (records keep it without a copy).
import { describe, expect, it } from 'vitest';
import { MASK, maskSecrets } from '../../engine/run/mask-secrets.js';
import type { JsonValue } from '../../engine/types.js';

describe('maskSecrets', () => {
  it('masks credential-named members at any depth, copying only the way to them', () => {
    const untouched = { text: 'oi', list: [1, { n: 2 }] };
    const value = { headers: { Authorization: 'Bearer x', accept: 'json' }, items: [{ api_key: 'k' }, { ok: true }], untouched };
    const before = structuredClone(value);
    const masked = maskSecrets(value as unknown as JsonValue) as Record<string, any>;
    expect(masked).toEqual({ headers: { Authorization: MASK, accept: 'json' }, items: [{ api_key: MASK }, { ok: true }], untouched });
    expect(value).toEqual(before);
    expect(masked).not.toBe(value);
    expect(masked.headers).not.toBe(value.headers);
    expect(masked.untouched).toBe(untouched);
    expect(masked.items[1]).toBe(value.items[1]);
  });

  it('gives the value itself when nothing is masked; empty or null credentials stay as they are', () => {
    const value = { token: '', secret: null, nested: [{ app_secret: '' }], name: 'Ana' } as JsonValue;
    expect(maskSecrets(value)).toBe(value);
    expect(maskSecrets('x')).toBe('x');
    expect(maskSecrets(null)).toBe(null);
  });

  it('keeps an own __proto__ member as a member of the copy, never a prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "token": "t"}') as JsonValue;
    const masked = maskSecrets(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(masked)).toBe(Object.prototype);
    expect(Object.hasOwn(masked, '__proto__')).toBe(true);
    expect(masked.token).toBe(MASK);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
