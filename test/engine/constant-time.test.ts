// constantTimeEqual and constantTimeMatcher (engine/constant-time.ts) answer alike, and hasSecret
// (engine/triggers/webhook-auth.ts), which keeps the configured secret's matcher, follows a changed secret.
import { describe, expect, it } from 'vitest';
import { constantTimeEqual, constantTimeMatcher } from '../../engine/constant-time.js';
import { hasSecret } from '../../engine/triggers/webhook-auth.js';

const request = (header?: string, query?: unknown) => ({
  header: (name: string) => (name.toLowerCase() === 'x-webhook-secret' ? header : undefined),
  query: query === undefined ? {} : { secret: query },
});

describe('constant-time comparison', () => {
  const values = ['', 'a', 'secret', 'secreT', 'secret ', 'ção', Buffer.from('secret'), Buffer.from([0xff, 0x00])];

  it('a matcher answers as constantTimeEqual for every pair (strings as UTF-8, buffers as bytes)', () => {
    for (const known of values) {
      const matches = constantTimeMatcher(known);
      for (const candidate of values) {
        expect(matches(candidate), `${String(known)} / ${String(candidate)}`).toBe(constantTimeEqual(known, candidate));
        expect(constantTimeEqual(known, candidate)).toBe(Buffer.from(known).equals(Buffer.from(candidate)));
      }
    }
  });

  it('hasSecret: header or query, and a changed secret is the one checked', () => {
    expect(hasSecret(request('s1'), 's1')).toBe(true);
    expect(hasSecret(request(undefined, 's1'), 's1')).toBe(true);
    expect(hasSecret(request('s1'), 's2')).toBe(false);
    expect(hasSecret(request('s2', 's1'), 's2')).toBe(true);
    expect(hasSecret(request('x', 's2'), 's2')).toBe(true);
    expect(hasSecret(request('x', ['s2']), 's2')).toBe(false);
    expect(hasSecret(request(), 's2')).toBe(false);
    expect(hasSecret(request('s1'), 's1')).toBe(true);
  });
});
