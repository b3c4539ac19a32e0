import { Type } from '../../engine/typebox.js';
import { orderByParam, tableParam, whereParam } from './lib/db-params.js';
import { defineServiceNode } from '../services.js';
import { withoutCredentials } from './lib/credential-columns.js';

/**
 * `db.get`: reads the first row of `table` matching `where` by `order_by` (default id ascending), or
 * null when none does; the row without its credential columns. Read-only; needs the database service.
 */
export default defineServiceNode({
  type: 'db.get',
  services: ['db'],
  readOnly: true,
  description: 'Reads the first row of a table matching `where` (by `order_by`, default id ascending), or null when none matches.',
  params: Type.Object(
    {
      table: tableParam(),
      where: whereParam({ required: false }),
      order_by: orderByParam(),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      "The row as an object (booleans true/false, JSON columns as values, timestamps as ISO text), or null. Credential columns (an instance's token, app_secret, verify_token) are never part of it.",
  },
  examples: [
    {
      title: 'Find the lead of this clinic and phone',
      step: { id: 'lead', type: 'db.get', params: { table: 'leads', where: { clinica_id: '{{ vars.clinica_id }}', remotejid: '{{ vars.phone }}' } } },
    },
    {
      title: 'The clinic\'s protocol (the first by id)',
      step: { id: 'protocol', type: 'db.get', params: { table: 'protocolos', where: { clinica_id: '{{ trigger.body.clinica_id }}' } } },
    },
  ],
  async run(params, ctx) {
    return withoutCredentials(params.table, await ctx.services.db.get(params.table, params.where, params.order_by));
  },
});
