// Variants of a Brazilian number for matching a form lead to an inbound JID (reference §4).
import { describe, expect, it } from 'vitest';
import { brazilianVariants } from '../../adapters/phones/brazilian-variants.js';

describe('brazilianVariants', () => {
  it('a 13-digit mobile: with and without the 9, with and without 55; the input first', () => {
    expect(brazilianVariants('5543999806366')).toEqual(['5543999806366', '554399806366', '43999806366', '4399806366']);
  });

  it('a legacy 12-digit JID mobile gets the 9 variant (the form lead it must match)', () => {
    expect(brazilianVariants('554399806366')).toEqual(['554399806366', '5543999806366', '4399806366', '43999806366']);
  });

  it('national digits get the 55 variants, the input still first', () => {
    expect(brazilianVariants('43999806366')).toEqual(['43999806366', '5543999806366', '554399806366', '4399806366']);
  });

  it('never adds a 9 to a landline (8 digits starting 2-5)', () => {
    for (const landline of ['554532782153', '551134567890', '552122334455', '555153334444']) {
      const variants = brazilianVariants(landline);
      expect(variants).toEqual([landline, landline.slice(2)]);
    }
  });

  it('never drops the 9 of a mobile whose rest would be a landline', () => {
    expect(brazilianVariants('5511934567890')).toEqual(['5511934567890', '11934567890']);
  });

  it('accepts a JID or formatted input (non-digits dropped)', () => {
    expect(brazilianVariants('554399806366@s.whatsapp.net')).toContain('5543999806366');
    expect(brazilianVariants('+55 (11) 98765-4321')).toContain('551187654321');
  });

  it('leaves numbers that are not Brazilian alone', () => {
    expect(brazilianVariants('14155552671')).toEqual(['14155552671']);
    expect(brazilianVariants('447911123456')).toEqual(['447911123456']);
    expect(brazilianVariants('')).toEqual([]);
  });
});
