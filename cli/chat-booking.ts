// `leadflow chat`'s booking tools and tool display (cli/chat-session.ts's contract): the agent's tool
// names and JSON (CONTRACT §12) over the clinic's real free slots, without a lead, booking nothing.
import type { Writable } from 'node:stream';
import type { AgentTool } from '../adapters/ai/agent-runner.js';
import type { BookingService } from '../adapters/calendar/booking-service.js';
import { localSlotText, parseLocalSlot, pickHorarios, slotLabel } from '../adapters/calendar/slot-grid.js';
import type { JsonObject, JsonValue } from '../engine/types.js';
import { AGENDA_ERROR, BOOKING_TIMEOUT_MS, BOOKING_TOOL_SPECS } from '../nodes/lead/lib/booking-tools.js';

/** Longest tool result shown on `err`, characters. */
const SHOWN_RESULT_CHARS = 600;

/** `tools` with each call and its result (or error) written to `err` as `[tool] name args → result`. */
export function shownTools(tools: AgentTool[], err: Writable): AgentTool[] {
  return tools.map((tool) => ({
    ...tool,
    handler: async (args, context) => {
      const head = `[tool] ${tool.name} ${JSON.stringify(args)}`;
      try {
        const result = await tool.handler(args, context);
        const text = JSON.stringify(result) ?? 'null';
        err.write(`${head} → ${text.length > SHOWN_RESULT_CHARS ? `${text.slice(0, SHOWN_RESULT_CHARS)}…` : text}\n`);
        return result;
      } catch (e) {
        err.write(`${head} → error: ${(e as Error).message}\n`);
        throw e;
      }
    },
  }));
}

/** ver_horarios, agendar and cancelar_agendamento for a test conversation with clinic `clinicaId`. */
export function chatBookingTools(booking: BookingService, clinicaId: number): AgentTool[] {
  const store = () => booking.open(AbortSignal.timeout(BOOKING_TIMEOUT_MS));
  const guarded =
    (work: (args: JsonObject) => Promise<JsonValue>) =>
    (args: JsonObject): Promise<JsonValue> =>
      work(args).catch(() => AGENDA_ERROR as unknown as JsonValue);
  return [
    {
      name: 'ver_horarios',
      ...BOOKING_TOOL_SPECS.ver_horarios,
      handler: guarded(
        async (args) => (await store().horarios(clinicaId, null, { dia: args.dia, periodo: args.periodo })) as unknown as JsonValue,
      ),
    },
    {
      name: 'agendar',
      ...BOOKING_TOOL_SPECS.agendar,
      handler: guarded(async (args) => {
        const { clinic, slots } = await store().freeSlots(clinicaId, null);
        const start = parseLocalSlot(args.inicio, clinic.timezone);
        if (start === null || !slots.some((s) => s.start === start))
          return { status: 'indisponivel', alternativas: pickHorarios(slots, clinic.timezone).horarios } as unknown as JsonValue;
        return {
          status: 'marcado',
          agendamento_id: 0,
          inicio: localSlotText(start, clinic.timezone),
          texto: slotLabel(start, clinic.timezone),
          teste: true,
        };
      }),
    },
    {
      name: 'cancelar_agendamento',
      ...BOOKING_TOOL_SPECS.cancelar_agendamento,
      handler: async () => ({ status: 'sem_agendamento', teste: true }),
    },
  ];
}
