import { Type } from '../../engine/typebox.js';
import { limitParam, orderByParam, tableParam, whereParam } from './lib/db-params.js';
import { defineServiceNode } from '../services.js';
import { withoutCredentials } from './lib/credential-columns.js';

/**
 * `db.find`: reads the rows of `table` matching `where` (empty: every row), sorted by `order_by` (ties
 * and default: id ascending), at most `limit`. Outputs `{rows, count}`, rows without their credential
 * columns. Read-only; needs the database service.
 */
export default defineServiceNode({
  type: 'db.find',
  services: ['db'],
  readOnly: true,
  description: 'Reads the rows of a table matching `where`, sorted by `order_by` (default id ascending), at most `limit` of them.',
  params: Type.Object(
    {
      table: tableParam(),
      where: whereParam({ required: false }),
      order_by: orderByParam(),
      limit: limitParam(),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{rows, count}`: the rows (as db.get returns them) and how many there are.' },
  examples: [
    {
      title: 'The last 20 messages of a conversation, newest first',
      step: {
        id: 'history',
        type: 'db.find',
        params: {
          table: 'wf_chat_histories',
          where: { clinica_id: '{{ vars.clinica_id }}', session_id: '{{ vars.phone }}' },
          order_by: [{ column: 'id', direction: 'desc' }],
          limit: 20,
        },
      },
    },
    {
      title: 'Leads of a phone in any clinic',
      step: { id: 'leads', type: 'db.find', params: { table: 'leads', where: { remotejid: { in: ['{{ vars.phone }}'] } } } },
    },
  ],
  async run(params, ctx) {
    const rows = await ctx.services.db.find(params.table, { where: params.where, order_by: params.order_by, limit: params.limit });
    return { rows: rows.map((row) => withoutCredentials(params.table, row)), count: rows.length };
  },
});
