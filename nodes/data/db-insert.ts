import { Type } from '../../engine/typebox.js';
import { tableParam, valuesParam } from './lib/db-params.js';
import { defineServiceNode } from '../services.js';
import { withoutCredentials } from './lib/credential-columns.js';

/**
 * `db.insert`: inserts one row of `values` and outputs it as stored (its id and column defaults,
 * without credential columns). A unique-key clash fails the step (db.upsert matches the existing row
 * instead). Needs the database service.
 */
export default defineServiceNode({
  type: 'db.insert',
  services: ['db'],
  description: 'Inserts one row and returns it as stored (with its id and defaults). A unique-key clash is an error; use db.upsert to match an existing row instead.',
  params: Type.Object(
    {
      table: tableParam(),
      values: valuesParam('Column -> value of the new row.'),
    },
    { additionalProperties: false },
  ),
  output: { description: 'The inserted row, with `id` and column defaults (e.g. `transferido: false`, `created_at`).' },
  examples: [
    {
      title: 'Record what the agent said',
      step: {
        id: 'remember',
        type: 'db.insert',
        params: { table: 'wf_chat_histories', values: { session_id: '{{ vars.phone }}', clinica_id: '{{ vars.clinica_id }}', type: 'agent', content: '{{ vars.reply }}' } },
      },
    },
  ],
  async run(params, ctx) {
    return withoutCredentials(params.table, await ctx.services.db.insert(params.table, params.values));
  },
});
