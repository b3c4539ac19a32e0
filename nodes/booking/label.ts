import { Type } from '../../engine/typebox.js';
import { instantOf } from '../time/lib/instant.js';
import { defineServiceNode } from '../services.js';

/**
 * `booking.label`: how an appointment's time is said to the lead (CONTRACT §12 `texto`): `<weekday>,
 * dd/mm às HH:MM` in Portuguese, weekday in lower case (`terça, 02/12 às 14:30`), in the time zone of
 * the clinic's calendar (its agenda's hours, else its business hours, else America/Sao_Paulo). The
 * same text as the tools' (adapters/calendar/slot-grid.ts slotLabel). Reads the clinic's agenda;
 * writes nothing. A malformed agenda fails the step (AgendaConfigError).
 */
export default defineServiceNode({
  type: 'booking.label',
  services: ['booking', 'db'],
  readOnly: true,
  description:
    "The Portuguese label of an instant in a clinic's calendar time zone, as the booking tools say it (`terça, 02/12 às 14:30`): the zone of the clinic's agenda hours, else of its business hours, else America/Sao_Paulo. Read-only.",
  params: Type.Object(
    {
      clinica_id: Type.Integer({
        minimum: 1,
        description: 'The clinic (clinicas_com_atendentes.id) whose time zone is used.',
        examples: ['{{ steps.appointment.clinica_id }}'],
      }),
      inicio: Type.Union([Type.String({ minLength: 1 }), Type.Number()], {
        description: "The instant: ISO 8601 (with its offset) or ms since the epoch, e.g. an appointment's `inicio`.",
        examples: ['{{ steps.appointment.inicio }}', 1764696600000],
      }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{texto, timezone}`: the label and the IANA zone it was written in.' },
  examples: [
    {
      title: "An appointment's time as the lead reads it",
      step: {
        id: 'when',
        type: 'booking.label',
        params: { clinica_id: '{{ trigger.body.clinica_id }}', inicio: '{{ trigger.body.inicio }}' },
      },
    },
  ],
  async run(params, ctx) {
    // Loaded when a step runs: validating or describing flows never loads the date library.
    const [{ DEFAULT_TIMEZONE }, { slotLabel }] = await Promise.all([
      import('../../adapters/hours/business-hours.js'),
      import('../../adapters/calendar/slot-grid.js'),
    ]);
    const clinic = await ctx.services.booking.open(ctx.signal).clinic(params.clinica_id);
    const row = clinic ? null : await ctx.services.db.get('clinicas_com_atendentes', { id: params.clinica_id });
    const timezone = clinic?.timezone ?? hoursZone(row?.horario_atendimento) ?? DEFAULT_TIMEZONE;
    return { texto: slotLabel(instantOf(params.inicio, 'booking.label: inicio'), timezone), timezone };
  },
});

/** The `timezone` of a `horario_atendimento` value (JSON text or object), or null. */
function hoursZone(hours: unknown): string | null {
  let value = hours;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  const zone = value && typeof value === 'object' ? (value as Record<string, unknown>).timezone : null;
  return typeof zone === 'string' && zone !== '' ? zone : null;
}
