// Form phone input -> digits with country code (reference §4 and the §5 checklist inputs).
import { describe, expect, it } from 'vitest';
import { normalizeFormPhone } from '../../adapters/phones/normalize-form-phone.js';

describe('normalizeFormPhone', () => {
  it.each([
    ['(43) 99980-6366', '5543999806366'],
    ['43999806366', '5543999806366'],
    ['+5511987654321', '5511987654321'],
    ['5543999806366', '5543999806366'],
    ['55 43 99980-6366', '5543999806366'],
    ['043 99980-6366', '5543999806366'],
    ['0xx43 99980-6366', '5543999806366'],
    ['0 15 43 99980-6366', '5543999806366'],
    ['(43) 9 9980-6366', '5543999806366'],
  ])('mobile %j -> %s', (input, expected) => {
    expect(normalizeFormPhone(input)).toBe(expected);
  });

  it('a legacy 8-digit mobile ("+55 43 9980-6366", invalid under max metadata) gets its 9 back', () => {
    expect(normalizeFormPhone('+55 43 9980-6366')).toBe('5543999806366');
    expect(normalizeFormPhone('554399806366')).toBe('5543999806366');
  });

  it('landlines are kept and never get a 9', () => {
    expect(normalizeFormPhone('(45) 3278-2153')).toBe('554532782153');
    expect(normalizeFormPhone('+55 11 3456-7890')).toBe('551134567890');
  });

  it('other countries keep their code', () => {
    expect(normalizeFormPhone('+1 415 555 2671')).toBe('14155552671');
    expect(normalizeFormPhone('+44 7911 123456')).toBe('447911123456');
  });

  it('a numeric (non-string) answer is read too', () => {
    expect(normalizeFormPhone(5543999806366)).toBe('5543999806366');
  });

  it.each([['99980-6366'], ['+55 43 3456-789'], [''], ['   '], ['abc'], ['123']])('rejects %j', (input) => {
    expect(normalizeFormPhone(input)).toBeNull();
  });

  it('rejects non-text input', () => {
    expect(normalizeFormPhone(null)).toBeNull();
    expect(normalizeFormPhone(undefined)).toBeNull();
    expect(normalizeFormPhone({ phone: '43999806366' })).toBeNull();
  });

  it('reads national input in the given default country', () => {
    expect(normalizeFormPhone('(415) 555-2671', 'US')).toBe('14155552671');
  });
});
