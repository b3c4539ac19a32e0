import { Type } from '../../engine/typebox.js';
import { defineNode } from '../../engine/types.js';

/**
 * `switch`: runs the case of `cases` whose key equals `value` compared as text (null and absent as "",
 * other non-texts as their JSON), else `default` (optional). Outputs `{branch, outputs}`: the case
 * key, `default`, or `none`. Read-only.
 */
export default defineNode({
  type: 'switch',
  readOnly: true,
  description: 'Runs the case whose key equals the value (compared as text), else `default` (optional).',
  params: Type.Object(
    {
      value: Type.Unknown({
        description: 'The value to match against the case keys; usually an expression.',
        examples: ['{{ $lowercase($trim(steps.input.text)) }}'],
      }),
    },
    { additionalProperties: false },
  ),
  children: {
    cases: { description: 'Case key -> steps run when the value equals the key.', shape: 'map', required: true },
    default: { description: 'Steps run when no case matches.', shape: 'list' },
  },
  terminates: 'all-children',
  output: { description: '`{branch, outputs}`: the case key taken (or "default" / "none") and its steps\' outputs by id.' },
  examples: [
    {
      title: 'Admin commands',
      step: {
        id: 'command',
        type: 'switch',
        params: { value: '{{ $lowercase($trim(trigger.body.text)) }}' },
        cases: { reset: [{ id: 'reset_done', type: 'stop', params: { reason: 'reset' } }] },
      },
    },
  ],
  async run(params, ctx) {
    const value = params.value;
    const key = value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
    const slots = ctx.childSlots();
    if (slots.includes(`cases.${key}`)) return { branch: key, outputs: await ctx.runChildren(`cases.${key}`) };
    if (slots.includes('default')) return { branch: 'default', outputs: await ctx.runChildren('default') };
    return { branch: 'none', outputs: {} };
  },
});
