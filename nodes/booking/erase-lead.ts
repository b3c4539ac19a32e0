import { Type } from '../../engine/typebox.js';
import { defineServiceNode } from '../services.js';

/**
 * `booking.erase-lead`: a lead's appointments erased (CONTRACT §12: `excluir` and the console's
 * erase), through the booking store's `eraseLead` (adapters/calendar/appointments.ts): for each one
 * not cancelled, the provider's copy deleted (Google) or cancelled (Cal.com), then every row of the
 * lead deleted. Safe to repeat (a copy already gone counts as done). A provider error fails the step
 * before any row is deleted. Its reminders are not touched: the flow cancels them by the ids it read
 * before (flows/reminders.yaml keys `agendamento:<id>`).
 */
export default defineServiceNode({
  type: 'booking.erase-lead',
  services: ['booking'],
  description:
    "Erases a lead's appointments: each provider copy still standing is deleted (Google) or cancelled (Cal.com), then every `agendamentos` row of the lead is deleted. Safe to repeat. A provider error fails the step before any row is deleted.",
  params: Type.Object(
    {
      lead_id: Type.Integer({ minimum: 1, description: 'The lead (leads.id) whose appointments go.', examples: ['{{ vars.lead.id }}'] }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{erased, ids}`: how many appointments were deleted, and their ids.' },
  examples: [
    {
      title: "Erase a lead's appointments",
      step: { id: 'erase_appointments', type: 'booking.erase-lead', params: { lead_id: '{{ vars.lead.id }}' } },
    },
  ],
  async run(params, ctx) {
    const erased = await ctx.services.booking.open(ctx.signal).eraseLead(params.lead_id);
    return { erased: erased.length, ids: erased.map((a) => a.id) };
  },
});
