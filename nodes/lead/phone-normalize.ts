import { Type } from '../../engine/typebox.js';
import { brazilianVariants } from '../../adapters/phones/brazilian-variants.js';
import { defineNode } from '../../engine/types.js';
import { lazyModule } from '../lazy-module.js';

/** Loaded on the first run: the phone metadata is large, and describing or validating flows never needs it. */
const formPhones = lazyModule(() => import('../../adapters/phones/normalize-form-phone.js'));

/**
 * `phone.normalize`: a phone as typed (or the gateway's digits) as digits with the country code
 * (`country` assumed when it has none), plus every form a lookup must try (Brazilian mobiles with and
 * without the 9 after the area code). Outputs `{digits, variants, valid}`; not a phone: `{digits:
 * null, variants: [], valid: false}`. Read-only.
 */
export default defineNode({
  type: 'phone.normalize',
  readOnly: true,
  description:
    'Turns a phone as typed in a form (or digits from the gateway) into digits with the country code, plus every variant a lookup must try: for Brazilian mobiles with and without the 9 after the area code (never a 9 added to a landline).',
  params: Type.Object(
    {
      input: Type.Union([Type.String(), Type.Number(), Type.Null()], {
        description: 'The phone as received, e.g. "(43) 99980-6366", "+55 11 98765-4321" or "5511987654321".',
        examples: ['{{ trigger.body.telefone }}'],
      }),
      country: Type.String({
        pattern: '^[A-Z]{2}$',
        default: 'BR',
        description: 'Country assumed when the input has no country code (ISO 3166 alpha-2).',
        examples: ['BR'],
      }),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{digits, variants, valid}`: digits with country code (null when not a phone), every form to look up (digits first), and whether it parsed.',
  },
  examples: [
    { title: 'Normalise the form phone', step: { id: 'phone', type: 'phone.normalize', params: { input: '{{ trigger.body.telefone }}' } } },
  ],
  async run(params) {
    const { normalizeFormPhone } = await formPhones();
    const raw = params.input === null ? '' : String(params.input);
    const digits = normalizeFormPhone(raw, params.country as never) ?? (/^\d{10,15}$/.test(raw) ? raw : null);
    if (!digits) return { digits: null, variants: [], valid: false };
    const variants = [digits, ...brazilianVariants(digits).filter((v) => v !== digits)];
    return { digits, variants, valid: true };
  },
});
