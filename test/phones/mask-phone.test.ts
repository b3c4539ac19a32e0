import { describe, expect, it } from 'vitest';
import { maskPhone } from '../../adapters/phones/mask-phone.js';

describe('maskPhone', () => {
  it('keeps country + area code and the last 2 digits', () => {
    expect(maskPhone('5511987654321')).toBe('5511*******21');
    expect(maskPhone('554399806366')).toBe('5543******66');
  });

  it('never shows the middle digits, whatever the length', () => {
    for (const phone of ['5511987654321', '14155552671', '99806366', '12345']) {
      const masked = maskPhone(phone);
      expect(masked).toHaveLength(phone.length);
      expect(masked).not.toContain(phone.slice(4, -2) || phone.slice(0, -2));
      expect(masked.endsWith(phone.slice(-2))).toBe(true);
    }
  });

  it('masks a JID like its digits; empty input gives empty output', () => {
    expect(maskPhone('5511987654321@s.whatsapp.net')).toBe('5511*******21');
    expect(maskPhone('')).toBe('');
    expect(maskPhone(undefined)).toBe('');
  });
});
