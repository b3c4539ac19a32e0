import { Type } from '../../engine/typebox.js';
import { defineServiceNode } from '../services.js';

/**
 * `booking.change`: books, moves, cancels or marks the attendance of a lead's appointment through the
 * booking store (adapters/calendar/appointments.ts, `ctx.services.booking`, its provider calls
 * stopped with the step). `book` books `inicio` (ms, or the clinic's local `YYYY-MM-DDTHH:MM`) and
 * moves the lead's upcoming appointment when it has one; `cancel` cancels that upcoming one;
 * `attendance` sets `status` (compareceu | faltou) on `appointment_id`. Outputs
 * `{status, agendamento_id, inicio, texto, unchanged, alternativas}`: `status` `marcado`, `remarcado`
 * or `indisponivel` (book), `cancelado` or `sem_agendamento` (cancel), `compareceu`, `faltou` or
 * `recusado` (attendance of a cancelled or unknown appointment); `inicio` the local start, `texto` as
 * the tools say it. The calendar out of reach, or a clinic without agenda, is an error. In a dry run
 * nothing changes: `{status: null, dry_run: true}`.
 */
export default defineServiceNode({
  type: 'booking.change',
  services: ['booking'],
  description:
    "Books, moves, cancels or marks the attendance of a lead's appointment in its clinic's calendar (the booking store: the slot re-checked at the moment of booking, the provider's event following). A lead with an upcoming appointment has it moved, never a second one. The calendar out of reach is an error; a slot no longer free is `indisponivel` with alternatives.",
  params: Type.Object(
    {
      action: Type.Union([Type.Literal('book'), Type.Literal('cancel'), Type.Literal('attendance')], {
        description: '`book` (or move), `cancel` the upcoming appointment, or `attendance` of `appointment_id`.',
        examples: ['book'],
      }),
      clinic_id: Type.Integer({ minimum: 1, description: 'The clinic (`clinicas_com_atendentes.id`).', examples: [3] }),
      lead_id: Type.Integer({ minimum: 1, description: "The lead (`leads.id`), one of the clinic's.", examples: [13] }),
      inicio: Type.Union([Type.String(), Type.Number(), Type.Null()], {
        default: null,
        description: "`book`: the start, ms since the epoch or the clinic's local `YYYY-MM-DDTHH:MM`.",
        examples: ['2026-12-02T14:30'],
      }),
      origem: Type.Union([Type.Literal('agente'), Type.Literal('console')], {
        default: 'console',
        description: '`book`: who books.',
        examples: ['console'],
      }),
      motivo: Type.String({
        default: '',
        maxLength: 500,
        description: "`cancel`: the reason, for the provider's cancellation.",
        examples: ['pediu por telefone'],
      }),
      appointment_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
        default: null,
        description: '`attendance`: the appointment.',
        examples: [42],
      }),
      status: Type.Union([Type.Literal('compareceu'), Type.Literal('faltou'), Type.Null()], {
        default: null,
        description: '`attendance`: compareceu or faltou.',
        examples: ['compareceu'],
      }),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{status, agendamento_id, inicio, texto, unchanged, alternativas}` (see the node file): `agendamento_id`, `inicio` and `texto` null when nothing was booked or found; `alternativas` the free slots offered instead of a taken one.',
  },
  examples: [
    {
      title: 'Book a slot for the lead',
      step: {
        id: 'book',
        type: 'booking.change',
        params: { action: 'book', clinic_id: 3, lead_id: '{{ trigger.body.lead_id }}', inicio: '{{ trigger.body.inicio }}' },
      },
    },
  ],
  async run(params, ctx) {
    if (ctx.dryRun) return { status: null, dry_run: true };
    const store = ctx.services.booking.open(ctx.signal);
    const none = { agendamento_id: null, inicio: null, texto: null, unchanged: false, alternativas: [] };
    if (params.action === 'book') {
      const result = await store.book({
        clinicId: params.clinic_id,
        leadId: params.lead_id,
        inicio: params.inicio ?? '',
        origem: params.origem,
      });
      if (result.status === 'indisponivel') return { ...none, status: result.status, alternativas: result.alternativas };
      const { agendamento_id, inicio, texto } = result;
      return {
        ...none,
        status: result.status,
        agendamento_id,
        inicio,
        texto,
        unchanged: 'unchanged' in result && result.unchanged === true,
      };
    }
    // Loaded when a step runs: validating or describing flows never loads the date library.
    const [{ DEFAULT_TIMEZONE }, { localSlotText, slotLabel }] = await Promise.all([
      import('../../adapters/hours/business-hours.js'),
      import('../../adapters/calendar/slot-grid.js'),
    ]);
    const zone = (await store.clinic(params.clinic_id))?.timezone ?? DEFAULT_TIMEZONE;
    const shown = (a: { id: number; inicio: number }) => ({
      agendamento_id: a.id,
      inicio: localSlotText(a.inicio, zone),
      texto: slotLabel(a.inicio, zone),
    });
    if (params.action === 'cancel') {
      const result = await store.cancel(params.clinic_id, params.lead_id, params.motivo);
      return result.status === 'cancelado'
        ? { ...none, status: result.status, ...shown(result.appointment) }
        : { ...none, status: result.status };
    }
    const updated = params.appointment_id && params.status ? await store.setStatus(params.appointment_id, params.status) : null;
    return updated ? { ...none, status: params.status, ...shown(updated) } : { ...none, status: 'recusado' };
  },
});
