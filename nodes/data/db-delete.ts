import { Type } from '../../engine/typebox.js';
import { tableParam, whereParam } from './lib/db-params.js';
import { defineServiceNode } from '../services.js';

/**
 * `db.delete`: deletes the rows of `table` matching `where`, which must name at least one column (never
 * every row). Outputs `{count}`. Needs the database service.
 */
export default defineServiceNode({
  type: 'db.delete',
  services: ['db'],
  description: 'Deletes the rows matching `where`, which must name at least one column (never every row).',
  params: Type.Object(
    {
      table: tableParam(),
      where: whereParam({ required: true }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{count}`: how many rows were deleted.' },
  examples: [
    {
      title: 'Forget a conversation',
      step: { id: 'forget', type: 'db.delete', params: { table: 'wf_chat_histories', where: { clinica_id: '{{ vars.clinica_id }}', session_id: '{{ vars.phone }}' } } },
    },
  ],
  async run(params, ctx) {
    return ctx.services.db.delete(params.table, params.where);
  },
});
