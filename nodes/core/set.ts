import { Type } from '../../engine/typebox.js';
import { defineNode, type JsonObject } from '../../engine/types.js';

/**
 * `set`: outputs the named `values` (expressions already evaluated) and, with `vars: true`, merges them
 * into the execution's `vars`. Read-only.
 */
export default defineNode({
  type: 'set',
  readOnly: true,
  description: "Computes named values; they become this step's output and, with `vars: true`, are merged into `vars`.",
  params: Type.Object(
    {
      values: Type.Record(Type.String(), Type.Unknown(), {
        description: 'Name -> value; values may be expressions or templates.',
        examples: [{ phone: '{{ $replace(trigger.body.telefone, /\\D/, "") }}', greeting: 'Olá, {{ trigger.body.nome }}!' }],
      }),
      vars: Type.Boolean({ description: 'Also merge the values into `vars`.', default: false, examples: [true] }),
    },
    { additionalProperties: false },
  ),
  output: { description: 'The computed `values` object.' },
  examples: [
    {
      title: 'Normalise a form field',
      step: { id: 'fields', type: 'set', params: { values: { name: '{{ $trim(trigger.body.nome) }}' } } },
    },
    {
      title: 'Keep a counter in vars',
      step: { id: 'count', type: 'set', params: { values: { tries: '{{ ($exists(vars.tries) ? vars.tries : 0) + 1 }}' }, vars: true } },
    },
  ],
  async run(params, ctx) {
    const values = params.values as JsonObject;
    if (params.vars) ctx.setVars(values);
    return values;
  },
});
