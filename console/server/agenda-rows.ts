// The agenda's shapes (api-types.ts) from the booking store's rows, and the checks of its inputs:
// local dates (`YYYY-MM-DD`), views, ids and bodies. Messages are Portuguese, as the page shows them.
import { DateTime } from 'luxon';
import type { AppointmentListing, BookingClinic } from '../../adapters/calendar/appointments.js';
import type { Appointment } from '../../adapters/calendar/appointment-rows.js';
import { localSlotText, slotLabel } from '../../adapters/calendar/slot-grid.js';
import type { AgendaAppointment, AgendaClinic, AgendaView } from './api-types.js';
import type { InputProblem } from './lead-rows.js';

/** The clinic's agenda facts the page may see (never the credentials of `agenda`). */
export function toAgendaClinic(id: number, nome: string, booking: BookingClinic | null, timezone: string): AgendaClinic {
  return {
    id,
    nome,
    agenda: booking !== null,
    timezone,
    provider: booking?.agenda.provider ?? null,
    duracao_min: booking?.agenda.duracao_min ?? null,
  };
}

/** An appointment with its lead as the agenda shows it, times in `timezone`. */
export function toAgendaAppointment(a: Appointment, lead: { nome: string | null; remotejid: string }, timezone: string): AgendaAppointment {
  return {
    id: a.id,
    lead_id: a.lead_id,
    lead_nome: lead.nome,
    lead_remotejid: lead.remotejid,
    inicio: new Date(a.inicio).toISOString(),
    fim: new Date(a.fim).toISOString(),
    local_inicio: localSlotText(a.inicio, timezone),
    texto: slotLabel(a.inicio, timezone),
    status: a.status,
    origem: a.origem,
    provider: a.provider,
  };
}

/** A listing row (appointments.ts listForClinic) as the agenda shows it. */
export function listingToAgenda(a: AppointmentListing, timezone: string): AgendaAppointment {
  return toAgendaAppointment(a, { nome: a.lead_nome, remotejid: a.lead_remotejid }, timezone);
}

/** A positive integer id from a path or body, or undefined. */
export function positiveId(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  const id = typeof value === 'string' && /^[1-9][0-9]{0,14}$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(id) ? id : undefined;
}

/** The local day `dia` (`YYYY-MM-DD`, a real date) at 00:00 in `timezone`, or undefined. */
export function localDay(dia: unknown, timezone: string): DateTime | undefined {
  if (typeof dia !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(dia)) return undefined;
  const day = DateTime.fromISO(dia, { zone: timezone });
  return day.isValid ? day.startOf('day') : undefined;
}

/** The local dates and UTC span (ms, [start, end)) of the view of `day`: the day, or its week from Monday. */
export function viewSpan(day: DateTime, vista: AgendaView): { dias: string[]; start: number; end: number } {
  const first = vista === 'semana' ? day.startOf('week') : day;
  const count = vista === 'semana' ? 7 : 1;
  const dias = Array.from({ length: count }, (_, i) => first.plus({ days: i }).toISODate()!);
  return { dias, start: first.toMillis(), end: first.plus({ days: count }).toMillis() };
}

/** The query of the agenda (`dia` required, `vista` dia|semana, default dia), or its problems. */
export function agendaQuery(
  query: Record<string, unknown>,
  timezone: string,
): { day: DateTime; vista: AgendaView } | { problems: InputProblem[] } {
  const problems: InputProblem[] = [];
  const day = localDay(query.dia, timezone);
  if (!day) problems.push({ path: 'dia', message: 'informe uma data AAAA-MM-DD (uma só vez)' });
  const vista = query.vista ?? 'dia';
  if (vista !== 'dia' && vista !== 'semana') problems.push({ path: 'vista', message: 'deve ser "dia" ou "semana"' });
  return day && problems.length === 0 ? { day, vista: vista as AgendaView } : { problems };
}

/** An ISO 8601 instant with a zone (`…Z` or `±HH:MM`) as ms, or undefined. */
export function instantParam(value: unknown): number | undefined {
  if (
    typeof value !== 'string' ||
    value.length > 40 ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)
  )
    return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The problem when `body` is not a JSON object, else the body. */
export function objectBody(body: unknown, shape: string): Record<string, unknown> | InputProblem {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return { path: '(body)', message: `deve ser um objeto ${shape}` };
  return body as Record<string, unknown>;
}
