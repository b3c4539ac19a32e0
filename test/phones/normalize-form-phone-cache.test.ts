// normalizeFormPhone keeps its results (adapters/phones/normalize-form-phone.ts): the same text in the
// same country is parsed by libphonenumber once, and the cached answer is the parsed one (null too).
import { beforeEach, describe, expect, it, vi } from 'vitest';

const parses = vi.hoisted(() => ({ count: 0 }));
vi.mock('libphonenumber-js/max', async (importOriginal) => {
  const real = await importOriginal<typeof import('libphonenumber-js/max')>();
  return {
    ...real,
    parsePhoneNumberFromString: (...args: Parameters<typeof real.parsePhoneNumberFromString>) => {
      parses.count++;
      return real.parsePhoneNumberFromString(...args);
    },
  };
});

const { CACHE_ENTRIES, CACHE_KEY_MAX_CHARS, normalizeFormPhone } = await import('../../adapters/phones/normalize-form-phone.js');

describe('normalizeFormPhone cache', () => {
  beforeEach(() => {
    parses.count = 0;
  });

  it('parses a text once per country: the second answer comes from the cache and is the same', () => {
    expect(normalizeFormPhone('(43) 99980-6366')).toBe('5543999806366');
    const first = parses.count;
    expect(first).toBeGreaterThan(0);
    expect(normalizeFormPhone('(43) 99980-6366')).toBe('5543999806366');
    expect(parses.count).toBe(first);
    // Another country is another key: read there.
    expect(normalizeFormPhone('(43) 99980-6366', 'US')).toBeNull();
    expect(parses.count).toBeGreaterThan(first);
  });

  it('keeps "not a phone" too, and the legacy-mobile answer that needed a second parse', () => {
    expect(normalizeFormPhone('+55 43 3456-789')).toBeNull();
    expect(normalizeFormPhone('554399806366')).toBe('5543999806366');
    const after = parses.count;
    expect(normalizeFormPhone('+55 43 3456-789')).toBeNull();
    expect(normalizeFormPhone('554399806366')).toBe('5543999806366');
    expect(parses.count).toBe(after);
  });

  it('a number and the same digits as text share the answer', () => {
    expect(normalizeFormPhone('5511987654321')).toBe('5511987654321');
    const after = parses.count;
    expect(normalizeFormPhone(5511987654321)).toBe('5511987654321');
    expect(parses.count).toBe(after);
  });

  it('a text longer than CACHE_KEY_MAX_CHARS is parsed every time', () => {
    const long = `+55 43 99980-6366${' '.repeat(CACHE_KEY_MAX_CHARS)}`;
    expect(normalizeFormPhone(long)).toBe('5543999806366');
    expect(normalizeFormPhone(long)).toBe('5543999806366');
    expect(parses.count).toBe(2);
  });

  it('stays bounded: past CACHE_ENTRIES other numbers, the first is parsed again', () => {
    expect(normalizeFormPhone('(11) 98765-0000')).toBe('5511987650000');
    for (let i = 1; i <= CACHE_ENTRIES; i++) normalizeFormPhone(`(21) 9${String(i).padStart(4, '0')}-1234`);
    parses.count = 0;
    expect(normalizeFormPhone('(11) 98765-0000')).toBe('5511987650000');
    expect(parses.count).toBe(1);
  });
});
