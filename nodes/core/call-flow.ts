import { Type } from '../../engine/typebox.js';
import { defineNode, type JsonValue } from '../../engine/types.js';

/**
 * `call-flow`: runs another flow to its end with `input` as its trigger body (checked against that flow's
 * `trigger.input`) and outputs the called flow's output. When the called flow waits, this execution
 * waits until it ends (ctx.callFlow); an unknown flow or a failed child fails the step.
 */
export default defineNode({
  type: 'call-flow',
  description:
    "Runs another flow with an input (checked against that flow's `trigger.input`) and returns its output. If the called flow waits, this execution waits until it ends.",
  params: Type.Object(
    {
      flow: Type.String({ description: 'Name of the flow to run.', examples: ['handoff'] }),
      input: Type.Unknown({
        description: "The called flow's trigger body.",
        default: {},
        examples: [{ telefone: '{{ steps.lead.remotejid }}' }],
      }),
    },
    { additionalProperties: false },
  ),
  output: { description: "The called flow's output (its `output` expression, or its last top-level step's output)." },
  examples: [
    {
      title: 'Hand the lead over',
      step: { id: 'handoff', type: 'call-flow', params: { flow: 'handoff', input: { telefone: '{{ trigger.body.phone }}' } } },
    },
  ],
  async run(params, ctx) {
    return ctx.callFlow(params.flow, params.input as JsonValue);
  },
});
