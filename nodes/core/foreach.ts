import { Type } from '../../engine/typebox.js';
import { defineNode, type JsonValue } from '../../engine/types.js';
import { rethrowSettled } from './lib/settle-all.js';

/**
 * `foreach`: runs the `do` list once per element of `items`, at most `concurrency` iterations at a
 * time (1: one after the other, in order), each with `item` and `index` bound and its own
 * `steps.<id>`. Outputs `{count, results}`, results in item order. A failing iteration fails the
 * step once the running ones settle (a failure wins over a stop, a stop over a wait).
 */
export default defineNode({
  type: 'foreach',
  description:
    'Runs `do` once per item, in order (concurrency 1) or with at most `concurrency` iterations at a time. Inside, `item` and `index` name the current element; each iteration sees its own `steps.<id>`.',
  params: Type.Object(
    {
      items: Type.Array(Type.Unknown(), {
        description: 'The list to iterate over; usually an expression.',
        examples: ['{{ steps.split.messages }}'],
      }),
      concurrency: Type.Integer({
        minimum: 1,
        maximum: 100,
        default: 1,
        description: 'Iterations running at once; 1 keeps the order.',
        examples: [1, 4],
      }),
    },
    { additionalProperties: false },
  ),
  children: { do: { description: 'Steps run for each item.', shape: 'list', required: true } },
  output: { description: '`{count, results}`: per iteration, in item order, the outputs of its steps by id.' },
  examples: [
    {
      title: 'Send each paragraph in order',
      step: {
        id: 'each_message',
        type: 'foreach',
        params: { items: '{{ $split(trigger.body.text, "\\n\\n") }}' },
        do: [
          {
            id: 'post',
            type: 'http.request',
            params: { method: 'POST', url: 'https://gateway.example/send/text', body: { text: '{{ item }}' } },
          },
        ],
      },
    },
  ],
  async run(params, ctx) {
    const items = params.items as JsonValue[];
    const results: Array<Record<string, JsonValue>> = new Array(items.length);
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await ctx.runChildren('do', { item: items[index] ?? null, index });
      }
    };
    const workers = Array.from({ length: Math.min(params.concurrency, Math.max(1, items.length)) }, worker);
    rethrowSettled(await Promise.allSettled(workers));
    return { count: items.length, results };
  },
});
