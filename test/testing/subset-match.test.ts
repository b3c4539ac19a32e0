import { describe, expect, it } from 'vitest';
import { childPath, showValue, subsetMatches, subsetMismatches } from '../../engine/testing/subset-match.js';

describe('subsetMismatches', () => {
  it('matches objects by the expected keys only', () => {
    expect(subsetMismatches({ a: 1 }, { a: 1, b: 2 }, 'x')).toEqual([]);
    expect(subsetMismatches({ a: 1, c: { d: 'e' } }, { a: 2, c: { d: 'f' } }, 'x')).toEqual([
      'x.a: expected 1 got 2',
      'x.c.d: expected "e" got "f"',
    ]);
    expect(subsetMismatches({ gone: null }, {}, 'x')).toEqual(['x.gone: expected null got nothing']);
  });

  it('matches arrays by equal length and element subsets', () => {
    expect(subsetMismatches([{ a: 1 }, { b: 2 }], [{ a: 1, z: 0 }, { b: 2 }], 'l')).toEqual([]);
    expect(subsetMismatches([1, 2], [1, 2, 3], 'l')).toEqual(['l: expected 2 item(s) got 3 [1,2,3]']);
    expect(subsetMismatches([{ a: 1 }], [{ a: 3 }], 'l')).toEqual(['l[0].a: expected 1 got 3']);
  });

  it('compares scalars strictly, without coercion', () => {
    expect(subsetMismatches('1', 1, 'v')).toEqual(['v: expected "1" got 1']);
    expect(subsetMismatches(0, false, 'v')).toEqual(['v: expected 0 got false']);
    expect(subsetMismatches(null, undefined, 'v')).toEqual(['v: expected null got nothing']);
    expect(subsetMismatches(true, true, 'v')).toEqual([]);
  });

  it('names the kind found when the shape differs', () => {
    expect(subsetMismatches({ a: 1 }, 'text', 'v')).toEqual(['v: expected an object got string "text"']);
    expect(subsetMismatches({ a: 1 }, [1], 'v')).toEqual(['v: expected an object got array [1]']);
    expect(subsetMismatches([1], undefined, 'v')).toEqual(['v: expected an array got nothing']);
  });

  it('writes paths for odd keys and cuts long values', () => {
    expect(childPath('a', 'b-c')).toBe('a.b-c');
    expect(childPath('a', 'with space')).toBe('a["with space"]');
    expect(childPath('a', 3)).toBe('a[3]');
    expect(showValue('x'.repeat(500))).toHaveLength(120);
    expect(subsetMatches({ a: [1] }, { a: [1], b: 0 })).toBe(true);
  });
});
