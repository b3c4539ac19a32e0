import { Type } from '../../engine/typebox.js';
import { defineServiceNode } from '../services.js';
import { phoneParam } from './lib/params.js';

/**
 * `gateway.forget`: erases what the instance's gateway provider keeps of a number in the key-value
 * store (`excluir`: nothing of the lead may remain). Cloud API: the lead's 24-hour window; uazapi and
 * Evolution keep nothing (0). An unknown or absent instance forgets nothing (0). The provider comes
 * from the host's registry (`ctx.services.gatewayProviders`); one it does not know fails the step.
 */
export default defineServiceNode({
  type: 'gateway.forget',
  services: ['kv', 'instances', 'gatewayProviders'],
  description:
    "Erases what the instance's gateway provider keeps of a number in the key-value store (the Cloud API's 24-hour window of that lead); nothing for providers that keep nothing. Used by `excluir`.",
  params: Type.Object(
    {
      instance_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
        description: 'Id of the WhatsApp instance (`instancias_whatsapp.id`) the lead talks to; null: nothing to forget.',
        examples: ['{{ vars.lead.instancia_id }}'],
      }),
      number: phoneParam("The lead's phone."),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{forgotten}`: how many keys were deleted.' },
  examples: [
    {
      title: "Forget the gateway's state of an erased lead",
      step: {
        id: 'forget_gateway',
        type: 'gateway.forget',
        params: { instance_id: '{{ vars.lead.instancia_id }}', number: '{{ vars.lead.remotejid }}' },
      },
    },
  ],
  async run(params, ctx) {
    if (params.instance_id === null) return { forgotten: 0 };
    const instance = await ctx.services.instances.get(params.instance_id);
    const module = instance ? ctx.services.gatewayProviders.get(instance.provider) : undefined;
    if (!instance || !module?.forget) return { forgotten: 0 };
    return { forgotten: await module.forget(instance.id, params.number, ctx.services.kv) };
  },
});
