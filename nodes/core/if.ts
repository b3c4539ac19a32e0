import { Type } from '../../engine/typebox.js';
import { defineNode } from '../../engine/types.js';
import { isTruthy } from '../../engine/expressions.js';

/**
 * `if`: runs `then` when `condition` is truthy, else `else` (optional). False values: false, null, 0,
 * "", an empty list or object. Outputs `{branch, outputs}`: `then`, `else`, or `none` when the
 * branch to take is not written. Read-only.
 */
export default defineNode({
  type: 'if',
  readOnly: true,
  description: 'Runs `then` when the condition is true, else `else` (optional). False values: false, null, 0, "", empty list or object.',
  params: Type.Object(
    {
      condition: Type.Unknown({
        description: 'Usually an expression; its truthiness picks the branch.',
        examples: ['{{ steps.lead.found }}'],
      }),
    },
    { additionalProperties: false },
  ),
  children: {
    then: { description: 'Steps run when the condition is true.', shape: 'list', required: true },
    else: { description: 'Steps run when the condition is false.', shape: 'list' },
  },
  terminates: 'all-children',
  output: { description: '`{branch: "then" | "else" | "none", outputs}`: the branch taken and its steps\' outputs by id.' },
  examples: [
    {
      title: 'Ignore messages from groups',
      step: {
        id: 'is_group',
        type: 'if',
        params: { condition: '{{ trigger.body.message.isGroup }}' },
        then: [{ id: 'ignore', type: 'stop', params: { reason: 'group message' } }],
      },
    },
  ],
  async run(params, ctx) {
    const branch = isTruthy(params.condition as never) ? 'then' : 'else';
    if (!ctx.childSlots().includes(branch)) return { branch: 'none', outputs: {} };
    return { branch, outputs: await ctx.runChildren(branch) };
  },
});
