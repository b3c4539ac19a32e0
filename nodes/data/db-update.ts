import { Type } from '../../engine/typebox.js';
import { tableParam, valuesParam, whereParam } from './lib/db-params.js';
import { defineServiceNode } from '../services.js';
import { withoutCredentials } from './lib/credential-columns.js';

/**
 * `db.update`: writes `values` to the rows matching `where` (which must name a column: never every
 * row); a lead's `updated_at` becomes now unless given. Outputs `{count, rows}`, the rows as stored
 * now without credential columns. Repeatable when `where` names none of the columns it writes. Needs
 * the database service.
 */
export default defineServiceNode({
  type: 'db.update',
  services: ['db'],
  description: 'Updates the rows matching `where` (which must name a column: never every row) with `values`. `updated_at` of leads is set to now unless given.',
  params: Type.Object(
    {
      table: tableParam(),
      where: whereParam({ required: true }),
      values: valuesParam('Column -> new value.'),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{count, rows}`: how many rows changed, and those rows as stored now.' },
  examples: [
    {
      title: 'Hand a lead over to the Hunter',
      step: {
        id: 'mark_transferred',
        type: 'db.update',
        params: { table: 'leads', where: { clinica_id: '{{ vars.clinica_id }}', remotejid: '{{ vars.phone }}' }, values: { transferido: true, handoff_enviado: true, handoff_at: '{{ now }}' } },
      },
    },
  ],
  // Writing the same values again matches the same rows when `where` names none of the columns
  // written: the same effect and output (but `updated_at`), so it is stored with the next step.
  repeatable: (params) => !Object.keys(params.where).some((column) => Object.hasOwn(params.values, column)),
  async run(params, ctx) {
    const { count, rows } = await ctx.services.db.update(params.table, params.where, params.values);
    return { count, rows: rows.map((row) => withoutCredentials(params.table, row)) };
  },
});
