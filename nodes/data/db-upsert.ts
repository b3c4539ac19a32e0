import { Type } from '../../engine/typebox.js';
import { tableParam, valuesParam } from './lib/db-params.js';
import { defineServiceNode } from '../services.js';
import { withoutCredentials } from './lib/credential-columns.js';

/**
 * `db.upsert`: inserts a row of `values`, or, when a row with the same unique key (`conflict`) exists,
 * updates it with the other values (`on_conflict: update`) or keeps it (`keep`). Race-free: of
 * concurrent identical upserts exactly one reports `inserted: true`. Outputs `{row, inserted}`, the
 * row without credential columns. Needs the database service.
 */
export default defineServiceNode({
  type: 'db.upsert',
  services: ['db'],
  description:
    'Inserts a row, or when a row with the same unique key (`conflict`) exists, updates it with the other values (`on_conflict: update`) or leaves it as it is (`keep`). Race-free: concurrent identical upserts make one row, and exactly one of them reports `inserted: true`.',
  params: Type.Object(
    {
      table: tableParam(),
      values: valuesParam('Column -> value; must include the `conflict` columns.'),
      conflict: Type.Array(Type.String(), {
        minItems: 1,
        description: 'Columns of the table\'s unique key: leads [clinica_id, remotejid]; clinicas_com_atendentes [nome]; protocolos and instancias_whatsapp [clinica_id, nome]; wf_chat_histories [clinica_id, session_id, evento] (one row per named event, e.g. a burst recorded once however often its execution runs).',
        examples: [['clinica_id', 'remotejid']],
      }),
      on_conflict: Type.Union([Type.Literal('update'), Type.Literal('keep')], {
        description: 'When the row exists: `update` writes the other given columns, `keep` leaves it unchanged.',
        default: 'update',
        examples: ['keep'],
      }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{row, inserted}`: the row as stored now, and whether this step created it.' },
  examples: [
    {
      title: 'Store a new lead once; a returning lead keeps its row',
      step: {
        id: 'save_lead',
        type: 'db.upsert',
        params: {
          table: 'leads',
          values: { clinica_id: '{{ vars.clinica_id }}', remotejid: '{{ vars.phone }}', nome: '{{ trigger.body.nome }}', orcamento: '{{ trigger.body.orcamento }}', respostas: '{{ trigger.body.respostas }}' },
          conflict: ['clinica_id', 'remotejid'],
          on_conflict: 'keep',
        },
      },
    },
  ],
  async run(params, ctx) {
    const { row, inserted } = await ctx.services.db.upsert(params.table, params.values, {
      conflict: params.conflict,
      on_conflict: params.on_conflict,
    });
    return { row: withoutCredentials(params.table, row), inserted };
  },
});
