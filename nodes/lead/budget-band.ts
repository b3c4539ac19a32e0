import { Type } from '../../engine/typebox.js';
import { defineNode } from '../../engine/types.js';

/**
 * Reads a budget band as forms write it (pt-BR) and gives its lower bound in reais.
 *
 * Contract (CONTRACT.md §8): a band whose lower bound is `high_from` (R$ 10.000) or more is high.
 * - "Até R$ 3.000", "Menos de 5 mil", "Abaixo de R$ 2.000": lower bound 0.
 * - "Acima de R$ 10.000", "Mais de 10 mil", "A partir de 15k", "R$ 20.000+": the number given.
 * - "De R$ 5.000 a R$ 10.000", "R$ 5–10 mil", "Entre 3 e 5 mil": the first number; a unit written
 *   only after the last number ("5–10 mil") applies to the first too.
 * - No number at all (blank, "Prefiro não dizer"): lower bound null, never high.
 * Numbers: "10.000" and "10.000,00" are ten thousand, "1,5 mil" is 1500, "10k" is 10000.
 */
export function budgetLowerBound(band: string): number | null {
  const text = band.normalize('NFC').toLowerCase();
  const numbers = [...text.matchAll(/(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d+))?\s*(mil\b|k\b|mi\b|milh(?:ão|ões|ao|oes)\b)?/g)].map((m) => {
    const whole = m[1]!.replace(/\./g, '');
    // "10,000" (comma then exactly three digits, no dots) is a thousands separator, not a decimal.
    const thousandsComma = m[2] !== undefined && m[2].length === 3 && !m[1]!.includes('.');
    const value = thousandsComma ? Number(whole + m[2]) : Number(`${whole}.${m[2] ?? '0'}`);
    const unit = m[3] ? (m[3].startsWith('mi') && m[3] !== 'mil' ? 1_000_000 : 1000) : 1;
    return { value, unit, hasUnit: m[3] !== undefined };
  });
  if (numbers.length === 0) return null;
  if (/^\s*(?:r\$\s*)?(?:até|ate|menos de|abaixo de|inferior a|no máximo|no maximo|up to|<)/.test(text)) return 0;
  const [first, next] = numbers;
  const unit = !first!.hasUnit && next?.hasUnit && first!.value < 1000 ? next.unit : first!.unit;
  return first!.value * unit;
}

/**
 * `budget.classify`: a form's budget band read by budgetLowerBound: outputs `{band, lower_bound, high,
 * tier}`, `high` (tier `high`) when the lower bound is `high_from` or more; a band without a number
 * is never high. Read-only.
 */
export default defineNode({
  type: 'budget.classify',
  readOnly: true,
  description:
    'Classifies a budget band from the form (e.g. "Acima de R$ 10.000", "Até R$ 3.000", "R$ 5–10 mil"): its lower bound in reais and whether it is high, i.e. the lower bound is `high_from` or more. A band without a number is never high.',
  params: Type.Object(
    {
      band: Type.Union([Type.String(), Type.Null()], {
        description: 'The budget band as the lead chose it; null or blank when not answered.',
        examples: ['{{ vars.form.orcamento }}'],
      }),
      high_from: Type.Number({
        minimum: 0,
        default: 10000,
        description: 'Lowest lower bound (reais) that makes a band high.',
        examples: [10000],
      }),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{band, lower_bound, high, tier}`: the band as given, its lower bound (null when it has no number), whether it is high, and `tier` "high" or "normal" (for a switch).',
  },
  examples: [
    {
      title: 'High budget skips qualification',
      step: { id: 'budget', type: 'budget.classify', params: { band: '{{ vars.form.orcamento }}', high_from: 10000 } },
    },
  ],
  async run(params) {
    const band = params.band ?? '';
    const lower = budgetLowerBound(band);
    const high = lower !== null && lower >= params.high_from;
    return { band, lower_bound: lower, high, tier: high ? 'high' : 'normal' };
  },
});
