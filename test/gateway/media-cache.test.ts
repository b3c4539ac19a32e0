import { describe, expect, it } from 'vitest';
import { MediaCache } from '../../adapters/gateway/media-cache.js';

describe('MediaCache', () => {
  it('put returns an opaque handle; get reads it again, take removes it', () => {
    const cache = new MediaCache();
    const ref = cache.put(Buffer.from('abc'), 'audio/ogg');
    expect(ref).toMatch(/^media_[0-9a-f-]{36}$/);
    expect(cache.get(ref)).toEqual({ bytes: Buffer.from('abc'), mimetype: 'audio/ogg' });
    expect(cache.get(ref)).toBeDefined();
    expect(cache.take(ref)?.bytes.toString()).toBe('abc');
    expect(cache.take(ref)).toBeUndefined();
    expect(cache.get(ref)).toBeUndefined();
    expect(cache.bytes).toBe(0);
  });

  it('handles are unique', () => {
    const cache = new MediaCache();
    const refs = new Set(Array.from({ length: 100 }, () => cache.put(Buffer.from('x'), 'text/plain')));
    expect(refs.size).toBe(100);
  });

  it('entries expire after ttlMs', () => {
    let now = 1_000_000;
    const cache = new MediaCache({ ttlMs: 600_000, now: () => now });
    const ref = cache.put(Buffer.alloc(10), 'image/jpeg');
    now += 599_999;
    expect(cache.get(ref)).toBeDefined();
    now += 1;
    expect(cache.get(ref)).toBeUndefined();
    expect(cache.bytes).toBe(0);
    expect(cache.size).toBe(0);
  });

  it('keeps the total under maxBytes by evicting the oldest entries', () => {
    const cache = new MediaCache({ maxBytes: 100 });
    const a = cache.put(Buffer.alloc(40), 'a/a');
    const b = cache.put(Buffer.alloc(40), 'b/b');
    const c = cache.put(Buffer.alloc(40), 'c/c');
    expect(cache.get(a)).toBeUndefined();
    expect(cache.get(b)).toBeDefined();
    expect(cache.get(c)).toBeDefined();
    expect(cache.bytes).toBe(80);
  });

  it('refuses one item larger than maxBytes, keeping what it holds', () => {
    const cache = new MediaCache({ maxBytes: 100 });
    const a = cache.put(Buffer.alloc(50), 'a/a');
    expect(() => cache.put(Buffer.alloc(101), 'big/big')).toThrow(RangeError);
    expect(cache.get(a)).toBeDefined();
  });
});
