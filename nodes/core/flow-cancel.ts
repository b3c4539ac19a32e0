import { Type } from '../../engine/typebox.js';
import { defineNode } from '../../engine/types.js';

/**
 * `flow.cancel`: cancels the running or waiting execution of `flow` under `key` (status `cancelled`,
 * `reason` as its stop reason). Outputs `{cancelled}`: that execution's id, or null when there is none
 * (not an error) or in a dry run, where the cancel is only recorded. Repeatable after a crash. Fails
 * when the engine cannot cancel flows (no ctx.cancelFlow).
 */
export default defineNode({
  type: 'flow.cancel',
  description:
    'Cancels the running or waiting execution of a flow under a key (status `cancelled`): a waiting one is never resumed, a running one ends after the step it is in. Nothing to cancel is not an error. In a dry run or a flow test case the cancel is recorded, not made.',
  params: Type.Object(
    {
      flow: Type.String({ description: 'Name of the flow whose execution is cancelled.', examples: ['followup'] }),
      key: Type.String({ description: 'Key of the execution to cancel.', examples: ['{{ trigger.body.phone }}'] }),
      reason: Type.Optional(
        Type.String({
          description: 'Stop reason recorded on the cancelled execution; default: which execution and step cancelled it.',
          examples: ['the lead answered'],
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{cancelled}`: the id of the execution cancelled, or null when there was none (or in a dry run).' },
  examples: [
    {
      title: 'The lead answered: drop the pending follow-up',
      step: {
        id: 'drop_followup',
        type: 'flow.cancel',
        params: { flow: 'followup', key: '{{ trigger.body.phone }}', reason: 'the lead answered' },
      },
    },
  ],
  // Run again after a crash it answers the execution it cancelled the first time (the store keeps who cancelled).
  repeatable: true,
  async run(params, ctx) {
    if (!ctx.cancelFlow) throw new Error('flow.cancel needs an engine that cancels flows (ctx.cancelFlow)');
    return { cancelled: await ctx.cancelFlow(params.flow, params.key, params.reason) };
  },
});
