import { Type } from '../../engine/typebox.js';
import { defineServiceNode } from '../services.js';

/**
 * `kv.erase`: deletes a lead's traces in the key-value store: the key `key` itself and every key
 * starting with `key:` (message buffer, dedupe and lock keys). Outputs `{erased}`: how many keys were
 * deleted. Needs the key-value store.
 */
export default defineServiceNode({
  type: 'kv.erase',
  services: ['kv'],
  description:
    "Erases a lead's traces in the key-value store: its message buffer, dedupe and lock keys (the key itself and every key starting with `key:`). Used by `excluir` (data protection: nothing of the lead may remain).",
  params: Type.Object(
    {
      key: Type.String({
        minLength: 1,
        description: "The lead's key as used by debounce, dedupe and lock (clinic and phone), e.g. `12:5511987654321`.",
        examples: ['{{ vars.clinic_id }}:{{ vars.phone }}'],
      }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{erased}`: how many keys were deleted.' },
  examples: [{ title: 'Forget a lead', step: { id: 'forget_keys', type: 'kv.erase', params: { key: '{{ vars.clinic_id }}:{{ vars.phone }}' } } }],
  async run(params, ctx) {
    const kv = ctx.services.kv;
    const exact = await kv.erase([params.key]);
    const nested = await kv.deleteByPrefix(`${params.key}:`);
    return { erased: exact + nested };
  },
});
