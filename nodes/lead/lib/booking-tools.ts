// The agent's booking tools (CONTRACT.md §12): `ver_horarios`, `agendar`, `cancelar_agendamento`,
// bound to the CURRENT lead and its clinic, over the booking store (adapters/calendar/appointments.ts,
// `ctx.services.booking`).
//
// Contract:
//   - Given only for a clinic whose `agenda` the store reads (the node asks it); every call acts on
//     `binding`'s lead and clinic: ids, phones or clinics the model passes are ignored.
//   - Results are §12's JSON exactly (bookToolResult, cancelToolResult, the horarios selection);
//     `agendar` answers a bad time (taken, past, off the grid, malformed) `indisponivel` with
//     alternatives, never an error.
//   - Each call opens the store with a signal that aborts after `timeoutMs` (default 6000 ms) or when
//     the turn ends: a provider down or slow (CalendarUnavailableError, a timeout, anything thrown)
//     answers AGENDA_ERROR, a JSON the agent can say, within that time. Never a credential in it.
//   - One run: an identical `agendar` / `cancelar_agendamento` / `ver_horarios` call (same tool, same
//     arguments) is answered from the first successful result without calling the store again.
//   - Crash repair: before `agendar` and `cancelar_agendamento`, a lead's upcoming google/calcom
//     appointment without its provider copy (external_id null) gets the provider call repeated
//     (Appointments.repairProviderCopy); when that makes the copy, the run's event is `marcado`.
//   - Dry run (ctx.recordOutbound answers false): `ver_horarios` reads as usual; `agendar` and
//     `cancelar_agendamento` are recorded (kind `booking`) and not done; the model is told
//     `{status: "marcado" | "cancelado", dry_run: true, ...}` and no event is reported.
//   - `effects.agendamento`: what the run changed, for the node's output and the flow's Hunter notice
//     (mergeBookingEvent). An `unchanged` booking is no event. Each change is also checkpointed
//     (ctx.checkpoint, `{agendamento}`): the node starts a retry or a take-over of its step from it
//     (ai-agent.ts), so a booking made by an attempt that then failed is still reported.
import type { Appointments } from '../../../adapters/calendar/appointments.js';
import { bookToolResult, cancelToolResult } from '../../../adapters/calendar/appointments.js';
import type { AgentTool } from '../../../adapters/ai/agent-runner.js';
import { localSlotText, slotLabel } from '../../../adapters/calendar/slot-grid.js';
import type { JsonObject, JsonValue, NodeContext } from '../../../engine/types.js';
import { BOOKING_TIMEOUT_MS } from './agent-tools.js';

/** What the booking tools answer when the calendar cannot be reached (or anything else fails). */
export const AGENDA_ERROR = { erro: 'não consegui ver a agenda agora' } as const;

/** Default bound of one booking tool call, ms (declared beside the agent's other tools, loaded eagerly). */
export { BOOKING_TIMEOUT_MS };

/** One change the tools made to the lead's appointment, as the node outputs it. */
export interface BookingEvent {
  evento: 'marcado' | 'remarcado' | 'cancelado';
  agendamento_id: number;
  /** `<weekday>, dd/mm às HH:MM` in the clinic's time zone. */
  texto: string;
  /** Local `YYYY-MM-DDTHH:MM` in the clinic's time zone. */
  inicio: string;
}

/** What the booking tools did during the run. */
export interface BookingEffects {
  agendamento: BookingEvent | null;
}

/** The lead and clinic every booking tool acts on, and how to reach the store. */
export interface BookingBinding {
  leadId: number;
  clinicId: number;
  /** The store, its provider calls stopped by `signal`. */
  open(signal: AbortSignal): Appointments;
  /** Bound of one call, ms (default BOOKING_TIMEOUT_MS). */
  timeoutMs?: number;
}

/**
 * The run's event after `next`: a booking then a move in one run is still `marcado` (the Hunter
 * heard of neither); a booking then its cancellation is nothing; otherwise the latest wins.
 */
export function mergeBookingEvent(previous: BookingEvent | null, next: BookingEvent): BookingEvent | null {
  if (previous?.evento === 'marcado' && previous.agendamento_id === next.agendamento_id) {
    if (next.evento === 'cancelado') return null;
    return { ...next, evento: 'marcado' };
  }
  return next;
}

const HORARIOS_ARGS = {
  type: 'object',
  properties: {
    dia: { type: 'string', maxLength: 20, description: 'Dia desejado, AAAA-MM-DD (opcional).' },
    periodo: {
      type: 'string',
      maxLength: 20,
      description: 'manha (antes das 12:00), tarde (12:00–18:00) ou noite (opcional).',
    },
  },
};
const AGENDAR_ARGS = {
  type: 'object',
  required: ['inicio'],
  properties: {
    inicio: { type: 'string', maxLength: 40, description: 'O `inicio` exato de um horário dado por ver_horarios, AAAA-MM-DDTHH:MM.' },
  },
};
const CANCELAR_ARGS = {
  type: 'object',
  properties: { motivo: { type: 'string', maxLength: 500, description: 'Motivo do cancelamento, em uma frase (opcional).' } },
};

/** The lead's upcoming appointment as the tools show it (plus its status), or null. */
export async function upcomingShown(
  store: Appointments,
  clinicId: number,
  leadId: number,
): Promise<{ agendamento_id: number; texto: string; inicio: string; status: string } | null> {
  const clinic = await store.clinic(clinicId);
  const appointment = clinic ? await store.upcomingFor(clinicId, leadId) : null;
  if (!clinic || !appointment) return null;
  return {
    agendamento_id: appointment.id,
    texto: slotLabel(appointment.inicio, clinic.timezone),
    inicio: localSlotText(appointment.inicio, clinic.timezone),
    status: appointment.status,
  };
}

/** Description and argument schema of each booking tool, as the model sees them (also `leadflow chat`'s). */
export const BOOKING_TOOL_SPECS = {
  ver_horarios: {
    description:
      'Horários livres para a avaliação na agenda da clínica (no máximo 3 por dia e 6 ao todo, os mais próximos). Argumentos opcionais: dia (AAAA-MM-DD) e periodo (manha, tarde, noite). Só ofereça horários dados por esta ferramenta.',
    parameters: HORARIOS_ARGS,
  },
  agendar: {
    description:
      'Agenda a avaliação desta pessoa no horário `inicio` (exatamente como veio de ver_horarios). Se ela já tem uma avaliação marcada, ela é remarcada para o novo horário. Responde status marcado, remarcado ou indisponivel (com alternativas).',
    parameters: AGENDAR_ARGS,
  },
  cancelar_agendamento: {
    description:
      'Cancela a avaliação marcada desta pessoa (só quando ela pedir para cancelar e não quiser remarcar). Argumento opcional: motivo. Responde status cancelado ou sem_agendamento.',
    parameters: CANCELAR_ARGS,
  },
};

const str = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

const errorText = (err: unknown): string => String((err as Error)?.message ?? err).slice(0, 300);

/** One run's booking calls: the store reached per call, answers remembered per key, effects noted. */
class BookingRun {
  private readonly done = new Map<string, Promise<JsonValue>>();
  private readonly ids: { lead_id: number; clinica_id: number };

  constructor(
    private readonly binding: BookingBinding,
    private readonly ctx: NodeContext,
    private readonly effects: BookingEffects,
  ) {
    this.ids = { lead_id: binding.leadId, clinica_id: binding.clinicId };
  }

  /** Runs `work` once per key in this run; any failure is AGENDA_ERROR (and not remembered). */
  once(key: string, signal: AbortSignal, work: (store: Appointments) => Promise<JsonValue>): Promise<JsonValue> {
    const known = this.done.get(key);
    if (known) return known;
    const timeout = AbortSignal.timeout(this.binding.timeoutMs ?? BOOKING_TIMEOUT_MS);
    const bounded = AbortSignal.any([signal, this.ctx.signal, timeout]);
    const attempt = work(this.binding.open(bounded)).catch((err: unknown) => {
      this.done.delete(key);
      const error = (err as Error)?.name ?? 'Error';
      this.ctx.log('warn', 'booking tool failed', { ...this.ids, tool: key.split(':')[0], error, message: errorText(err) });
      return AGENDA_ERROR as unknown as JsonValue;
    });
    this.done.set(key, attempt);
    return attempt;
  }

  /** After a change, earlier answers of the other calls are stale: only `keep` is still remembered. */
  private forgetOthers(keep: string): void {
    for (const key of [...this.done.keys()]) if (key !== keep) this.done.delete(key);
  }

  /** Notes a change: in `effects`, and in the step's checkpoint, so a retry or a take-over of the step still reports it. */
  private async note(event: BookingEvent): Promise<void> {
    this.effects.agendamento = mergeBookingEvent(this.effects.agendamento, event);
    this.ctx.log('info', `appointment ${event.evento} by the agent`, { ...this.ids, agendamento_id: event.agendamento_id });
    try {
      await this.ctx.checkpoint?.({ agendamento: this.effects.agendamento as unknown as JsonValue });
    } catch (err) {
      // The change is made: the model is told so; only a retry of this step would miss it.
      this.ctx.log('warn', 'booking checkpoint not stored', { ...this.ids, message: errorText(err) });
    }
  }

  /** Crash repair (see the contract above); its failure is logged and the call goes on. */
  private async repair(store: Appointments): Promise<void> {
    try {
      const repaired = await store.repairProviderCopy(this.binding.clinicId, this.binding.leadId);
      if (!repaired) return;
      this.ctx.log('warn', 'provider copy of an appointment made again after a crash', { ...this.ids, agendamento_id: repaired.id });
      const shown = await upcomingShown(store, this.binding.clinicId, this.binding.leadId);
      if (shown) await this.note({ evento: 'marcado', agendamento_id: shown.agendamento_id, texto: shown.texto, inicio: shown.inicio });
    } catch (err) {
      this.ctx.log('warn', 'provider copy repair failed', { ...this.ids, message: errorText(err) });
    }
  }

  async horarios(store: Appointments, filter: { dia: unknown; periodo: unknown }): Promise<JsonValue> {
    return (await store.horarios(this.binding.clinicId, this.binding.leadId, filter)) as unknown as JsonValue;
  }

  async agendar(store: Appointments, inicio: string): Promise<JsonValue> {
    if (!this.ctx.recordOutbound({ kind: 'booking', method: 'agendar', body: { ...this.ids, inicio } }))
      return { status: 'marcado', dry_run: true, inicio };
    await this.repair(store);
    const result = await store.book({ clinicId: this.binding.clinicId, leadId: this.binding.leadId, inicio, origem: 'agente' });
    if (result.status !== 'indisponivel' && !('unchanged' in result && result.unchanged)) {
      await this.note({ evento: result.status, agendamento_id: result.agendamento_id, texto: result.texto, inicio: result.inicio });
      this.forgetOthers(`agendar:${inicio}`);
    }
    return bookToolResult(result) as JsonValue;
  }

  async cancelar(store: Appointments, motivo: string): Promise<JsonValue> {
    if (!this.ctx.recordOutbound({ kind: 'booking', method: 'cancelar_agendamento', body: { ...this.ids, motivo } }))
      return { status: 'cancelado', dry_run: true };
    await this.repair(store);
    const before = await upcomingShown(store, this.binding.clinicId, this.binding.leadId);
    const result = await store.cancel(this.binding.clinicId, this.binding.leadId, motivo);
    if (result.status === 'cancelado') {
      await this.note({
        evento: 'cancelado',
        agendamento_id: result.appointment.id,
        texto: before?.texto ?? '',
        inicio: before?.inicio ?? '',
      });
      this.forgetOthers('cancelar_agendamento');
    }
    return cancelToolResult(result) as JsonValue;
  }
}

/**
 * The booking tools for one run (see the contract above). `effects` receives the run's event;
 * `ctx` logs (ids only), records a dry run's bookings and gives the turn's signal.
 */
export function bookingTools(binding: BookingBinding, ctx: NodeContext, effects: BookingEffects): AgentTool[] {
  const run = new BookingRun(binding, ctx, effects);
  return [
    {
      name: 'ver_horarios',
      ...BOOKING_TOOL_SPECS.ver_horarios,
      handler: (args: JsonObject, { signal }) => {
        const filter = { dia: args.dia, periodo: args.periodo };
        return run.once(`ver_horarios:${JSON.stringify(filter)}`, signal, (store) => run.horarios(store, filter));
      },
    },
    {
      name: 'agendar',
      ...BOOKING_TOOL_SPECS.agendar,
      handler: (args: JsonObject, { signal }) => {
        const inicio = str(args.inicio);
        return run.once(`agendar:${inicio}`, signal, (store) => run.agendar(store, inicio));
      },
    },
    {
      name: 'cancelar_agendamento',
      ...BOOKING_TOOL_SPECS.cancelar_agendamento,
      handler: (args: JsonObject, { signal }) => run.once('cancelar_agendamento', signal, (store) => run.cancelar(store, str(args.motivo))),
    },
  ];
}
