// engine/run/clone-json.ts and engine/run/iso-now.ts: the per-step copies and clock reads of the
// executor give what structuredClone and `new Date().toISOString()` give.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cloneJson } from '../../engine/run/clone-json.js';
import { isoNow } from '../../engine/run/iso-now.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('cloneJson', () => {
  const samples: unknown[] = [
    null,
    undefined,
    0,
    -0,
    Number.NaN,
    'text',
    true,
    10n,
    [],
    {},
    { a: 1, b: [1, 'two', { c: null, d: [true, false] }], e: { f: { g: 'deep' } } },
    { 2: 'b', 1: 'a', z: 1, y: 2 },
    { missing: undefined, list: [undefined, null] },
    // biome-ignore lint/suspicious/noSparseArray: a hole is kept as a hole
    [1, , 3],
    JSON.parse('{"__proto__": {"polluted": true}, "x": [{"__proto__": 1}]}'),
    Object.assign(Object.create(null), { bare: { n: 1 } }),
    { when: new Date(0), pattern: /x/g, map: new Map([[1, 2]]) },
  ];

  it('gives what structuredClone gives, as a copy sharing nothing', () => {
    for (const sample of samples) {
      const copy = cloneJson(sample);
      const expected = structuredClone(sample);
      expect(copy).toStrictEqual(expected);
      if (sample !== null && typeof sample === 'object') {
        expect(copy).not.toBe(sample);
        expect(Object.keys(copy as object)).toEqual(Object.keys(expected as object));
        expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(expected));
      }
    }
    const source = JSON.parse('{"__proto__": {"polluted": true}}');
    const copy = cloneJson(source);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const nested = { a: { b: [{ c: 1 }] } };
    const deep = cloneJson(nested);
    deep.a.b[0]!.c = 2;
    expect(nested.a.b[0]!.c).toBe(1);
  });

  it('throws as structuredClone throws on what cannot be copied', () => {
    expect(() => cloneJson({ f: () => 1 })).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
    expect(() => cloneJson(Symbol('s'))).toThrow(expect.objectContaining({ name: 'DataCloneError' }));
  });
});

describe('isoNow', () => {
  it('is new Date().toISOString(), the clock moving or not', () => {
    vi.useFakeTimers({ now: Date.parse('2025-03-04T05:06:07.008Z') });
    expect(isoNow()).toBe('2025-03-04T05:06:07.008Z');
    expect(isoNow()).toBe(new Date().toISOString());
    vi.advanceTimersByTime(1);
    expect(isoNow()).toBe('2025-03-04T05:06:07.009Z');
    vi.setSystemTime(Date.parse('2024-01-01T00:00:00.000Z'));
    expect(isoNow()).toBe('2024-01-01T00:00:00.000Z');
    // Across minutes, days and years, before 1970 and past year 9999.
    const times = [
      0, -1, -59_999, -60_000, -60_001, 59_999, 60_000, 951_782_400_000, 253_402_300_799_999, 253_402_300_800_000, 8.64e15, -8.64e15,
    ];
    for (let i = 0; i < 2000; i++) times.push(Math.floor((i * 7_919_993_611) % 4_102_444_800_000) - 2_000_000_000_000 + i);
    for (const ms of times) {
      vi.setSystemTime(ms);
      expect(isoNow(), String(ms)).toBe(new Date(ms).toISOString());
    }
    vi.useRealTimers();
    for (let i = 0; i < 1000; i++) {
      const before = Date.now();
      const text = isoNow();
      const after = Date.now();
      expect(Date.parse(text)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(text)).toBeLessThanOrEqual(after);
    }
  });
});
