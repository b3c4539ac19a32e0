import { Type } from '../../engine/typebox.js';
import { defineNode, type JsonValue } from '../../engine/types.js';
import { rethrowSettled } from './lib/settle-all.js';

/**
 * `parallel`: runs every branch of `branches` at once and ends when all have ended. Outputs each
 * branch's step outputs by branch name. A failing branch fails the step once the others settle (a
 * failure wins over a stop, a stop over a wait; the earliest wait is the one kept).
 */
export default defineNode({
  type: 'parallel',
  description:
    'Runs every branch at the same time and joins them; the step ends when all branches have ended. A failing branch fails the step after the others finish.',
  params: Type.Object({}, { additionalProperties: false }),
  children: { branches: { description: 'Branch name -> steps; branches run concurrently.', shape: 'map', required: true } },
  output: { description: "Branch name -> the outputs of that branch's steps by id." },
  examples: [
    {
      title: 'Flag the lead while gathering data',
      step: {
        id: 'handoff_start',
        type: 'parallel',
        branches: {
          flag: [{ id: 'mark', type: 'set', params: { values: { transferido: true } } }],
          lookup: [{ id: 'history', type: 'set', params: { values: { rows: [] } } }],
        },
      },
    },
  ],
  async run(_params, ctx) {
    const names = ctx
      .childSlots()
      .filter((s) => s.startsWith('branches.'))
      .map((s) => s.slice('branches.'.length));
    const settled = await Promise.allSettled(names.map((name) => ctx.runChildren(`branches.${name}`)));
    const outputs = rethrowSettled(settled);
    const result: Record<string, JsonValue> = {};
    for (const [i, name] of names.entries()) result[name] = outputs[i] ?? {};
    return result;
  },
});
