import { Type } from '../../engine/typebox.js';
import { defineNode } from '../../engine/types.js';

/**
 * `stop`: ends the execution on purpose (status `stopped`, not a failure) with `reason` as its stop
 * reason; the steps after it do not run. Terminates every list it is in.
 */
export default defineNode({
  type: 'stop',
  description: 'Ends the execution on purpose (status `stopped`, not a failure), recording the reason.',
  params: Type.Object(
    {
      reason: Type.String({
        description: 'Why the flow ends here; shown in traces and execution history.',
        default: 'stopped',
        examples: ['not a lead'],
      }),
    },
    { additionalProperties: false },
  ),
  terminates: 'always',
  output: { description: '`{reason}` (the execution ends; later steps do not run).' },
  examples: [{ title: 'Ignore unknown senders', step: { id: 'not_a_lead', type: 'stop', params: { reason: 'sender is not a lead' } } }],
  async run(params, ctx) {
    return ctx.stop(params.reason);
  },
});
