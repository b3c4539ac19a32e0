import { Type } from '../../engine/typebox.js';
import { defineNode } from '../../engine/types.js';

/** The numbers of a list written as text ("5511…, 5521…") or as a list, each without surrounding spaces, tabs or line breaks; blanks dropped. */
export function numbersOf(list: unknown): string[] {
  if (list === null || list === undefined) return [];
  const items = Array.isArray(list) ? list.map(String) : String(list).split(',');
  return items.map((n) => n.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '')).filter((n) => n !== '');
}

/**
 * `phone.in-list`: `{listed}`, true when one of `phones` (a phone under every form it may be written
 * in) is one of the numbers of `list` (numbersOf: text or list, null or blank: none). Read-only.
 */
export default defineNode({
  type: 'phone.in-list',
  readOnly: true,
  description:
    "Whether a phone is one of a list of numbers, e.g. a clinic's admin numbers: true when any of `phones` (usually phone.normalize's `variants`, so a number stored with or without the mobile 9 matches) equals an entry of `list`. Entries are compared as written, digits only, after trimming spaces.",
  params: Type.Object(
    {
      phones: Type.Array(Type.String(), {
        description: 'The phone under every form it may be written in (digits with the country code).',
        examples: ['{{ steps.phone.variants }}'],
      }),
      list: Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()], {
        description: 'The numbers: comma-separated text ("5511987654321, 5521912345678") or a list; null or blank: none.',
        examples: ['{{ steps.clinic.admin_telefones }}'],
      }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{listed}`: true when one of `phones` is in `list`.' },
  examples: [
    {
      title: "Is the sender one of the clinic's admins?",
      step: {
        id: 'admin_number',
        type: 'phone.in-list',
        params: { phones: ['5511955554444', '551155554444'], list: '{{ trigger.body.admin_telefones }}' },
      },
    },
  ],
  async run(params) {
    const numbers = new Set(numbersOf(params.list));
    return { listed: params.phones.some((p) => numbers.has(p)) };
  },
});
