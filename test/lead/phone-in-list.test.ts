import { describe, expect, it } from 'vitest';
import phoneInList, { numbersOf } from '../../nodes/lead/phone-in-list.js';

const listed = async (phones: string[], list: unknown) =>
  ((await phoneInList.run({ phones, list } as never, {} as never)) as { listed: boolean }).listed;

describe("phone.in-list (the agent flow's admin check)", () => {
  it('reads comma-separated text or a list, each entry trimmed, blanks dropped', () => {
    expect(numbersOf(' 5511000000000, 5511955554444 ,,')).toEqual(['5511000000000', '5511955554444']);
    expect(numbersOf(['5511955554444 '])).toEqual(['5511955554444']);
    expect(numbersOf(null)).toEqual([]);
    expect(numbersOf('')).toEqual([]);
  });

  it('is true when any variant of the phone is listed, as written', async () => {
    expect(await listed(['5511955554444', '551155554444'], '5511000000000, 551155554444')).toBe(true);
    expect(await listed(['5511955554444'], '5511000000000')).toBe(false);
    expect(await listed(['5511955554444'], null)).toBe(false);
    expect(await listed([], '5511955554444')).toBe(false);
  });
});
