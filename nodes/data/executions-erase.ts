import { Type } from '../../engine/typebox.js';
import { leadErasure } from '../../adapters/phones/erasure.js';
import { defineServiceNode } from '../services.js';

/**
 * `executions.erase`: erases a lead (its phones in every Brazilian variant, its names, its texts) from
 * the recorded executions: the stored ones now, this execution's records after this step, and the
 * lead's unfinished executions when they end. Outputs `{erased, pending}`; a dry run erases nothing
 * (`{erased: 0, pending: 0, dry_run: true}`). Fails when no phone has 8 digits or more. Needs an
 * execution store that can erase.
 */
export default defineServiceNode({
  type: 'executions.erase',
  services: ['executions'],
  description:
    "Erases a lead from the recorded executions (`excluir`, data protection): in every execution holding the lead's phone (any Brazilian variant, also inside JIDs), the phone becomes a masked form (`5511*******21`), the lead's name `[nome apagado]`, WhatsApp LIDs `[lid apagado]`, Cloud API message ids (`wamid.…`, which encode the phone) and business-scoped user ids `[id apagado]`, and message texts and form answers `[texto apagado]`. Covers the stored executions now, and what this execution (and any flow it calls) records after this step; the lead's executions still running or waiting are erased when they end. A dry run erases nothing.",
  params: Type.Object(
    {
      phones: Type.Array(Type.Union([Type.String(), Type.Number(), Type.Null()]), {
        minItems: 1,
        description: "The lead's phones: digits, JIDs or as typed; each is taken with every Brazilian variant. Values with fewer than 8 digits are ignored; at least one must remain.",
        examples: [['{{ vars.lead.remotejid }}', '{{ trigger.body.message.chatid }}']],
      }),
      names: Type.Array(Type.Union([Type.String(), Type.Null()]), {
        default: [],
        description: "The lead's name(s): erased whole and word by word (words of 3 letters or more), any case, in the lead's executions only.",
        examples: [['{{ vars.lead.nome }}']],
      }),
      texts: Type.Boolean({ default: true, description: "Also mask message texts, transcriptions, replies and form answers in the lead's executions.", examples: [true, false] }),
    },
    { additionalProperties: false },
  ),
  output: { description: "`{erased, pending}`: executions rewritten now; the lead's executions still running or waiting, erased when they end. In a dry run `{erased: 0, pending: 0, dry_run: true}`." },
  examples: [
    {
      title: 'Erase a lead from the execution history',
      step: { id: 'erase_executions', type: 'executions.erase', params: { phones: ['{{ vars.lead.remotejid }}', '{{ trigger.body.message.chatid }}'], names: ['{{ vars.lead.nome }}'] } },
    },
  ],
  async run(params, ctx) {
    const erasure = leadErasure({ phones: params.phones, names: params.names, texts: params.texts });
    if (erasure.needles.length === 0) throw new Error(`step "${ctx.stepId}": no phone of at least 8 digits to erase`);
    // A dry run's database changes are rolled back: the records stay as they are too.
    if (ctx.dryRun) return { erased: 0, pending: 0, dry_run: true };
    return ctx.services.executions.eraseExecutions(ctx.executionId, erasure);
  },
});
