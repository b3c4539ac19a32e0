import { describe, expect, it } from 'vitest';
import budgetClassify, { budgetLowerBound } from '../../nodes/lead/budget-band.js';
import contentHash, { canonicalJson } from '../../nodes/lead/content-hash.js';

describe('budget.classify (CONTRACT.md §8: lower bound R$ 10.000 or more is high)', () => {
  it.each([
    ['Acima de R$ 10.000', 10000],
    ['Até R$ 3.000', 0],
    ['R$ 5–10 mil', 5000],
    ['De R$ 3.000 a R$ 10.000', 3000],
    ['De R$ 10.000 a R$ 20.000', 10000],
    ['Entre 3 e 5 mil', 3000],
    ['Mais de 15k', 15000],
    ['R$ 20.000,00+', 20000],
    ['Menos de R$ 1.500', 0],
    ['R$ 1,5 mil', 1500],
    ['Prefiro não dizer', null],
    ['', null],
  ])('%s -> %s', (band, lower) => {
    expect(budgetLowerBound(band)).toBe(lower);
  });

  it('says high only from the threshold up, and never without a number', async () => {
    const run = (band: string | null) => budgetClassify.run({ band, high_from: 10000 } as never, {} as never);
    await expect(run('Acima de R$ 10.000')).resolves.toEqual({ band: 'Acima de R$ 10.000', lower_bound: 10000, high: true, tier: 'high' });
    await expect(run('Até R$ 3.000')).resolves.toMatchObject({ high: false, tier: 'normal' });
    await expect(run('R$ 5–10 mil')).resolves.toMatchObject({ high: false, tier: 'normal' });
    await expect(run(null)).resolves.toEqual({ band: '', lower_bound: null, high: false, tier: 'normal' });
  });
});

describe('content.hash', () => {
  it('ignores key order and tells different content apart', async () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: null }] })).toBe('{"a":[{"c":null,"d":2}],"b":1}');
    const hash = (value: unknown) => contentHash.run({ value, length: 16 } as never, {} as never);
    const one = await hash({ nome: 'Ana', telefone: '1' });
    expect(one).toEqual({ hash: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(await hash({ telefone: '1', nome: 'Ana' })).toEqual(one);
    expect(await hash({ telefone: '2', nome: 'Ana' })).not.toEqual(one);
  });
});
