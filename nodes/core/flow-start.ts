import { randomUUID } from 'node:crypto';
import { Type } from '../../engine/typebox.js';
import { defineNode, type JsonValue } from '../../engine/types.js';

/**
 * `flow.start`: starts another flow with `input` as its trigger body and goes on without waiting.
 * With a key (`key`, or the started flow's `concurrency.key`), that flow's unfinished execution of
 * the same key is cancelled. The new execution's id is checkpointed before the start, so a re-run
 * after a crash does not start it twice. Outputs `{execution_id, key, replaced}`; in a dry run the
 * start is only recorded (`execution_id` null). Fails when the engine cannot start flows.
 */
export default defineNode({
  type: 'flow.start',
  description:
    "Starts another flow with an input (checked against that flow's `trigger.input`) and goes on at once, without waiting for it. With a key (given here, or the started flow's `concurrency.key`), that flow's running or waiting execution of the same key is cancelled: at most one per key. In a dry run or a flow test case the start is recorded, not made.",
  params: Type.Object(
    {
      flow: Type.String({ description: 'Name of the flow to start.', examples: ['followup'] }),
      input: Type.Unknown({
        description: "The started flow's trigger body.",
        default: {},
        examples: [{ telefone: '{{ trigger.body.phone }}' }],
      }),
      key: Type.Optional(
        Type.String({
          description: "Key of the new execution; default: the started flow's `concurrency.key`, evaluated over this input.",
          examples: ['{{ trigger.body.phone }}'],
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{execution_id, key, replaced}`: the new execution (null when only recorded), its key (null: none), and the ids of the executions of the same flow and key it cancelled.',
  },
  examples: [
    {
      title: 'Schedule the follow-up of this lead, replacing any earlier one',
      step: {
        id: 'plan_followup',
        type: 'flow.start',
        params: { flow: 'followup', input: { telefone: '{{ trigger.body.phone }}' }, key: '{{ trigger.body.phone }}' },
      },
    },
  ],
  async run(params, ctx) {
    if (!ctx.startFlow) throw new Error('flow.start needs an engine that starts flows (ctx.startFlow)');
    // The id is stored before the start: a re-run of this step (after a crash) finds it made.
    const id = typeof ctx.state?.execution_id === 'string' ? ctx.state.execution_id : randomUUID();
    if (ctx.state?.execution_id !== id) await ctx.checkpoint?.({ execution_id: id });
    return ctx.startFlow(params.flow, params.input as JsonValue, { id, ...(params.key !== undefined ? { key: params.key } : {}) });
  },
});
