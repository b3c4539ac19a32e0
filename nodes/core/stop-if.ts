import { Type } from '../../engine/typebox.js';
import { isTruthy } from '../../engine/expressions.js';
import { defineNode, type JsonValue } from '../../engine/types.js';

/**
 * `stop-if`: an `if` whose only branch answers the webhook caller and stops, said in one step.
 * When `condition` is true: answers `respond` (when given), then ends the execution as `stop` does
 * (status `stopped`, with `reason`). When false: outputs `{stopped: false}` and the flow goes on.
 */
export default defineNode({
  type: 'stop-if',
  readOnly: true,
  description:
    'Ends the execution when `condition` is true (status `stopped`, not a failure, with `reason`), first answering the webhook caller with `respond` when it is given (trigger `respond.mode: step`). When the condition is false nothing happens and the flow goes on. False values: false, null, 0, "", empty list or object.',
  params: Type.Object(
    {
      condition: Type.Unknown({
        description: 'Usually an expression; when truthy the execution ends here.',
        examples: ['{{ trigger.body.message.isGroup }}'],
      }),
      reason: Type.String({
        description: 'Why the flow ends here; shown in traces and execution history.',
        default: 'stopped',
        examples: ['group message'],
      }),
      respond: Type.Union(
        [
          Type.Object(
            {
              status: Type.Optional(
                Type.Integer({ minimum: 100, maximum: 599, description: 'HTTP status; 200 when left out.', examples: [200] }),
              ),
              body: Type.Optional(Type.Unknown({ description: 'JSON body; {} when left out.', examples: [{ status: 'ignored' }] })),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        {
          default: null,
          description:
            'The webhook answer `{status, body}` sent before stopping; null: no answer here (the trigger answers as it is set to).',
          examples: [{ status: 200, body: { status: 'ignored', reason: 'group message' } }],
        },
      ),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{stopped: false}` when the condition is false; when true the execution ends here with `{reason}`.' },
  examples: [
    {
      title: 'Ignore group messages, answering 200 at once',
      step: {
        id: 'group',
        type: 'stop-if',
        params: {
          condition: '{{ trigger.body.message.isGroup }}',
          reason: 'group message',
          respond: { status: 200, body: { status: 'ignored', reason: 'group message' } },
        },
      },
    },
    {
      title: 'Stop without answering',
      step: { id: 'not_last', type: 'stop-if', params: { condition: '{{ $not(trigger.body.last) }}', reason: 'not the last message' } },
    },
  ],
  async run(params, ctx) {
    if (!isTruthy(params.condition as JsonValue)) return { stopped: false };
    const answer = params.respond;
    if (answer) ctx.respond(answer.status ?? 200, (answer.body ?? {}) as JsonValue);
    return ctx.stop(params.reason);
  },
});
