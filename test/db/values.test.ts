// Timestamps as ISO text (adapters/db/values.ts toIsoTimestamp): text already written by
// toISOString is its own ISO text, whatever the year, month, day or time; any other form is read
// and written anew (a day past the month's end rolls over, SQLite's text is UTC, zones are applied).
import { describe, expect, it } from 'vitest';
import { toIsoTimestamp } from '../../adapters/db/values.js';

/** What toIsoTimestamp gives for text, taking the long way: read as a Date and written again. */
const reread = (text: string) => new Date(text).toISOString();

describe('toIsoTimestamp', () => {
  it('gives ISO text written by toISOString back as it is, for any instant from year 0 to 9999', () => {
    const first = Date.parse('0000-01-01T00:00:00.000Z');
    const last = Date.parse('9999-12-31T23:59:59.999Z');
    const instants = [first, 0, Date.parse('2024-02-28T23:59:59.999Z'), Date.parse('2025-12-31T23:59:59.999Z'), last];
    for (let i = 0; i < 5000; i++) instants.push(first + Math.floor(Math.random() * (last - first)));
    for (const ms of instants) {
      const text = new Date(ms).toISOString();
      expect(toIsoTimestamp(text), text).toBe(text);
      expect(toIsoTimestamp(text), text).toBe(reread(text));
    }
  });

  it('reads any other text anew: days past the end of the month, hour 24, zones, SQLite text, no milliseconds', () => {
    expect(toIsoTimestamp('2025-02-30T00:00:00.000Z')).toBe('2025-03-02T00:00:00.000Z');
    expect(toIsoTimestamp('2025-04-31T10:00:00.000Z')).toBe('2025-05-01T10:00:00.000Z');
    expect(toIsoTimestamp('2024-02-29T10:00:00.000Z')).toBe('2024-02-29T10:00:00.000Z');
    // Leap years as Date counts them: 1900 is not one, 2000 and year 0 are.
    expect(toIsoTimestamp('1900-02-29T10:00:00.000Z')).toBe('1900-03-01T10:00:00.000Z');
    expect(toIsoTimestamp('2000-02-29T10:00:00.000Z')).toBe('2000-02-29T10:00:00.000Z');
    expect(toIsoTimestamp('0000-02-29T10:00:00.000Z')).toBe('0000-02-29T10:00:00.000Z');
    expect(toIsoTimestamp('2026-11-31T10:00:00.000Z')).toBe('2026-12-01T10:00:00.000Z');
    expect(toIsoTimestamp('2026-12-31T23:59:59.999Z')).toBe('2026-12-31T23:59:59.999Z');
    expect(toIsoTimestamp('2025-01-01T24:00:00.000Z')).toBe('2025-01-02T00:00:00.000Z');
    expect(toIsoTimestamp('2025-03-04T02:06:07-03:00')).toBe('2025-03-04T05:06:07.000Z');
    expect(toIsoTimestamp('2025-03-04 05:06:07')).toBe('2025-03-04T05:06:07.000Z');
    expect(toIsoTimestamp('2025-03-04T05:06:07Z')).toBe('2025-03-04T05:06:07.000Z');
    expect(toIsoTimestamp('2025-13-01T00:00:00.000Z')).toBeUndefined();
    expect(toIsoTimestamp('2025-01-01T00:60:00.000Z')).toBeUndefined();
    expect(toIsoTimestamp('ontem')).toBeUndefined();
    expect(toIsoTimestamp('')).toBeUndefined();
    expect(toIsoTimestamp(Date.UTC(2025, 0, 2, 3, 4, 5, 6))).toBe('2025-01-02T03:04:05.006Z');
    expect(toIsoTimestamp(new Date(Number.NaN))).toBeUndefined();
  });
});
