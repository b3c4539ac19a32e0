// LruCache (adapters/phones/lru-cache.ts): bounded by entry count, the least recently used goes first.
import { describe, expect, it } from 'vitest';
import { LruCache } from '../../adapters/phones/lru-cache.js';

describe('LruCache', () => {
  it('keeps at most `capacity` entries, evicting the least recently written first', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.has('a')).toBe(false);
    expect(cache.get('b')).toBe(2);
    expect(cache.get('c')).toBe(3);
  });

  it('a read refreshes an entry: the other one is evicted next', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.has('a')).toBe(true);
    expect(cache.has('b')).toBe(false);
  });

  it('holds null values (a cached "no result"), and writing a key again replaces it without growing', () => {
    const cache = new LruCache<string, string | null>(3);
    cache.set('x', null);
    expect(cache.has('x')).toBe(true);
    expect(cache.get('x')).toBeNull();
    expect(cache.get('y')).toBeUndefined();
    cache.set('x', 'v');
    expect(cache.size).toBe(1);
    expect(cache.get('x')).toBe('v');
  });

  it('refuses a capacity below 1 or not an integer', () => {
    expect(() => new LruCache(0)).toThrow(RangeError);
    expect(() => new LruCache(1.5)).toThrow(RangeError);
  });
});
