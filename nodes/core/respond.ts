import { Type } from '../../engine/typebox.js';
import { defineNode, type JsonValue } from '../../engine/types.js';

/**
 * `respond`: answers the webhook caller now (trigger `respond.mode: step`) with `status`, a JSON `body`
 * and `headers` (none sent when empty); the flow goes on. At most once per execution: a second
 * answer fails the step. Outputs `{status, body}` as sent. Read-only.
 */
export default defineNode({
  type: 'respond',
  readOnly: true,
  description: 'Answers the webhook caller now (trigger `respond.mode: step`); the flow goes on after it. At most once per execution.',
  params: Type.Object(
    {
      status: Type.Integer({ minimum: 100, maximum: 599, description: 'HTTP status.', default: 200, examples: [200] }),
      body: Type.Unknown({ description: 'JSON body.', default: {}, examples: [{ status: 'queued' }] }),
      headers: Type.Record(Type.String(), Type.String(), {
        description: 'Extra response headers.',
        default: {},
        examples: [{ 'x-request-id': '{{ execution.id }}' }],
      }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{status, body}` as sent.' },
  examples: [
    { title: 'Acknowledge, then keep working', step: { id: 'ack', type: 'respond', params: { status: 200, body: { status: 'queued' } } } },
  ],
  async run(params, ctx) {
    const headers = params.headers as Record<string, string>;
    ctx.respond(params.status, params.body as JsonValue, Object.keys(headers).length ? headers : undefined);
    return { status: params.status, body: params.body };
  },
});
