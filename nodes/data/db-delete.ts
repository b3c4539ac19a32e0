import { Type } from '@sinclair/typebox';
import { defineNode } from '../../engine/types.js';
import { tableParam, whereParam } from './db-params.js';
import { dbService } from './db-service.js';

export default defineNode({
  type: 'db.delete',
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
    return dbService(ctx).delete(params.table, params.where);
  },
});
