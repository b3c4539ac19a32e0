import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter } from '../../adapters/gateway/backoff.js';

describe('backoffDelay', () => {
  it('doubles per retry, with equal jitter between half and all of it', () => {
    expect([1, 2, 3, 4].map((r) => backoffDelay(r, 500, 60_000, () => 0))).toEqual([250, 500, 1000, 2000]);
    expect([1, 2, 3, 4].map((r) => backoffDelay(r, 500, 60_000, () => 0.999999))).toEqual([500, 1000, 2000, 4000]);
  });

  it('never exceeds maxMs', () => {
    expect(backoffDelay(20, 500, 8000, () => 0.999999)).toBe(8000);
    expect(backoffDelay(20, 500, 8000, () => 0)).toBe(4000);
  });
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates as ms', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter('0.5')).toBe(500);
    const now = Date.parse('2025-12-11T12:00:00Z');
    expect(parseRetryAfter('Thu, 11 Dec 2025 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Thu, 11 Dec 2025 11:00:00 GMT', now)).toBe(0);
  });

  it('absent or unreadable: undefined', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-3')).toBeUndefined();
  });
});
