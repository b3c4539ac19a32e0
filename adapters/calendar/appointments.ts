// The booking store (CONTRACT.md §12) over the database: what the agent's tools (`ver_horarios`,
// `agendar`, `cancelar_agendamento`) and the console's Agenda call. Results map onto the tools' JSON
// (bookToolResult, cancelToolResult); the appointment rows ride along for the Hunter's notices.
//
// Contract:
//   - A clinic books only with an `agenda` (agenda-config.ts); slots come from slot-grid.ts with the
//     clinic's provider's availability (calendar.ts; interno's when `calendarFor` gives none).
//   - `book`: `inicio` is the clinic's local `YYYY-MM-DDTHH:MM` (the tools) or ms (the console).
//     Anything that is not a free slot at the moment of booking (taken, past, off the grid, closed,
//     malformed) is `indisponivel` with the `ver_horarios` alternatives, never an exception. The
//     re-check and the row's write are one locked transaction (appointment-claim.ts): of concurrent
//     bookings of the last place, in any processes, one wins. A lead with an upcoming appointment
//     (marcado/confirmado, `inicio` after now) has it moved (same row, status marcado again,
//     `remarcado`), never a second one; asked for the time it already has, nothing changes (`marcado`
//     with `unchanged: true`, no provider call).
//   - The provider's copy follows the row, keyed by its id: created after an insert, moved after a
//     move, its reference (`external_id`) stored. When the provider refuses the time
//     (SlotUnavailableError) the row is put back (deleted, or moved back) and the answer is
//     `indisponivel`; when it cannot be reached (CalendarUnavailableError, anything else) the row is
//     put back and the error thrown for the caller to say "não consegui ver a agenda agora". A crash
//     between the provider's answer and `external_id` stored leaves the row with the old reference:
//     repeating the provider call for the row is safe (calendar.ts: idempotent per appointment_id).
//     Putting a moved row back does not re-check its old time.
//   - `cancel`: the provider's copy is cancelled first, then the row becomes `cancelado`; an error of
//     the provider changes nothing. `setStatus`: `confirmado` from marcado; `compareceu` / `faltou`
//     from any status but cancelado.
//   - `eraseLead`: the provider's copies first, then every row of the lead (see the method).
//   - "Now" is the clock's (default the system time); instants are ms since the epoch.
import type { Clock } from '../clock.js';
import type { Database } from '../db/database.js';
import { DEFAULT_TIMEZONE, type BusinessHours } from '../hours/business-hours.js';
import { agendaHours, type AgendaConfig, parseAgenda } from './agenda-config.js';
import { claimSlot, type ClaimOutcome } from './appointment-claim.js';
import {
  type Appointment,
  type AppointmentOrigin,
  type AppointmentStatus,
  appointmentOf,
  HOLDING_STATUSES,
  spanOf,
} from './appointment-rows.js';
import { type Availability, type CalendarProvider, type Interval, type ProviderAppointment, SlotUnavailableError } from './calendar.js';
import { internoCalendar } from './interno.js';
import {
  freeSlots as gridSlots,
  type Horario,
  type HorarioFilter,
  type HorariosResult,
  localSlotText,
  parseLocalSlot,
  pickHorarios,
  slotLabel,
  slotSpan,
} from './slot-grid.js';

/** A clinic as booking sees it: its agenda (credentials inside: never log it), hours and zone. */
export interface BookingClinic {
  id: number;
  nome: string;
  agenda: AgendaConfig;
  /** The hours slots are cut from (agendaHours); null: none (no slots, except calcom's). */
  hours: BusinessHours | null;
  /** The hours' IANA zone, else DEFAULT_TIMEZONE. */
  timezone: string;
}

/** How the store reaches outside: the clock, each clinic's calendar provider, and a signal for its calls. */
export interface AppointmentsOptions {
  clock?: Clock;
  /** The provider of a clinic's agenda; default: interno for `interno`, an error for the others. */
  calendarFor?: (clinic: BookingClinic) => CalendarProvider;
  /** Aborts the provider's calls (calendar.ts). */
  signal?: AbortSignal;
}

/** One booking: whose, when (local text or ms), from where; the protocol is optional. */
export interface BookRequest {
  clinicId: number;
  leadId: number;
  inicio: string | number;
  origem: AppointmentOrigin;
  protocoloId?: number | null;
}

/**
 * `book`'s answer: the tool's fields (CONTRACT.md §12) plus, when booked, the row (and the one before
 * a move; `unchanged` when the lead already had that time: no notice is due).
 */
export type BookResult =
  | { status: 'marcado'; agendamento_id: number; inicio: string; texto: string; appointment: Appointment; unchanged?: true }
  | { status: 'remarcado'; agendamento_id: number; inicio: string; texto: string; appointment: Appointment; previous: Appointment }
  | { status: 'indisponivel'; alternativas: Horario[] };

/** `cancel`'s answer: the tool's `status` plus, when cancelled, the row. */
export type CancelResult = { status: 'cancelado'; appointment: Appointment } | { status: 'sem_agendamento' };

/** An appointment with its lead's name and number, for the console's agenda. */
export interface AppointmentListing extends Appointment {
  lead_nome: string | null;
  lead_remotejid: string;
}

/** A clinic without an `agenda` (or no such clinic) was asked to book. */
export class NoAgendaError extends Error {
  override name = 'NoAgendaError';
  constructor(clinicId: number) {
    super(`clinic ${clinicId} has no agenda (clinicas_com_atendentes.agenda)`);
  }
}

/** `agendar`'s JSON for the model: the result without the rows. */
export function bookToolResult(result: BookResult): Record<string, unknown> {
  if (result.status === 'indisponivel') return { status: result.status, alternativas: result.alternativas };
  return { status: result.status, agendamento_id: result.agendamento_id, inicio: result.inicio, texto: result.texto };
}

/** `cancelar_agendamento`'s JSON for the model. */
export function cancelToolResult(result: CancelResult): Record<string, unknown> {
  return { status: result.status };
}

/** The default `calendarFor`: interno; google and calcom need their clients passed in. */
function defaultCalendarFor(clinic: BookingClinic): CalendarProvider {
  if (clinic.agenda.provider === 'interno') return internoCalendar();
  throw new Error(`no ${clinic.agenda.provider} calendar client configured for clinic ${clinic.id}`);
}

const iso = (ms: number) => new Date(ms).toISOString();

/** The booking store of one Database (see the file comment). */
export class Appointments {
  private readonly clock: Clock;
  private readonly calendarFor: (clinic: BookingClinic) => CalendarProvider;

  constructor(
    private readonly db: Database,
    private readonly options: AppointmentsOptions = {},
  ) {
    this.clock = options.clock ?? { now: () => Date.now() };
    this.calendarFor = options.calendarFor ?? defaultCalendarFor;
  }

  /** The clinic's booking setup; null when it does not exist or has no agenda. Throws AgendaConfigError on a malformed one. */
  async clinic(clinicId: number): Promise<BookingClinic | null> {
    const row = await this.db.get('clinicas_com_atendentes', { id: clinicId });
    const agenda = row ? parseAgenda(row.agenda) : null;
    if (!row || !agenda) return null;
    const hours = agendaHours(agenda, row.horario_atendimento);
    return { id: clinicId, nome: String(row.nome), agenda, hours, timezone: hours?.timezone ?? DEFAULT_TIMEZONE };
  }

  private async requireClinic(clinicId: number): Promise<BookingClinic> {
    const clinic = await this.clinic(clinicId);
    if (!clinic) throw new NoAgendaError(clinicId);
    return clinic;
  }

  private async availability(clinic: BookingClinic, calendar: CalendarProvider, now: number): Promise<Availability> {
    const span = slotSpan(clinic.agenda, now, clinic.timezone);
    const query = { from: span.start, to: span.end, duration_min: clinic.agenda.duracao_min, time_zone: clinic.timezone };
    return calendar.availability(query, this.options.signal);
  }

  /** The free slots for `leadId` (its own upcoming appointment not counting), in time order. */
  async freeSlots(clinicId: number, leadId: number | null): Promise<{ clinic: BookingClinic; slots: Interval[] }> {
    const clinic = await this.requireClinic(clinicId);
    const now = this.clock.now();
    const availability = await this.availability(clinic, this.calendarFor(clinic), now);
    const span = slotSpan(clinic.agenda, now, clinic.timezone);
    const rows = await this.db
      .knex('agendamentos')
      .where({ clinica_id: clinicId })
      .whereIn('status', HOLDING_STATUSES)
      .where('inicio', '<', iso(span.end))
      .where('fim', '>', iso(span.start));
    const own = leadId === null ? null : await this.upcomingFor(clinicId, leadId);
    const holding = (rows as Array<Record<string, unknown>>).map(appointmentOf);
    const booked = holding.filter((a) => a.id !== own?.id);
    const slots = gridSlots({
      hours: clinic.hours,
      timezone: clinic.timezone,
      rules: clinic.agenda,
      now,
      availability,
      booked: booked.map(spanOf),
      ours: holding.map(spanOf),
    });
    return { clinic, slots };
  }

  /** `ver_horarios`: the selection of slot-grid.ts `pickHorarios` of the lead's free slots. */
  async horarios(clinicId: number, leadId: number | null, filter: HorarioFilter = {}): Promise<HorariosResult> {
    const { clinic, slots } = await this.freeSlots(clinicId, leadId);
    return pickHorarios(slots, clinic.timezone, filter);
  }

  /** `agendar` (see the file comment). */
  async book(request: BookRequest): Promise<BookResult> {
    const clinic = await this.requireClinic(request.clinicId);
    const lead = await this.db.get('leads', { id: request.leadId, clinica_id: request.clinicId });
    if (!lead) throw new Error(`lead ${request.leadId} is not a lead of clinic ${request.clinicId}`);
    const now = this.clock.now();
    const start =
      typeof request.inicio === 'number'
        ? Number.isFinite(request.inicio)
          ? request.inicio
          : null
        : parseLocalSlot(request.inicio, clinic.timezone);
    const calendar = this.calendarFor(clinic);
    const availability = await this.availability(clinic, calendar, now);
    const outcome = await claimSlot(this.db, {
      clinicId: clinic.id,
      leadId: request.leadId,
      protocoloId: request.protocoloId ?? null,
      origem: request.origem,
      provider: clinic.agenda.provider,
      start,
      now,
      rules: clinic.agenda,
      hours: clinic.hours,
      timezone: clinic.timezone,
      availability,
    });
    if (outcome.kind === 'refused') return this.refusal(clinic, outcome.free);
    if (outcome.kind === 'unchanged')
      return { status: 'marcado', ...this.shown(clinic, outcome.appointment), appointment: outcome.appointment, unchanged: true };
    const who = { name: lead.nome === null ? '' : String(lead.nome), phone: String(lead.remotejid) };
    return this.followProvider(clinic, calendar, outcome, who);
  }

  private refusal(clinic: BookingClinic, free: Interval[]): BookResult {
    return { status: 'indisponivel', alternativas: pickHorarios(free, clinic.timezone).horarios };
  }

  /** The provider's copy made or moved after the row; the row put back when the provider fails. */
  private async followProvider(
    clinic: BookingClinic,
    calendar: CalendarProvider,
    outcome: Extract<ClaimOutcome, { kind: 'inserted' | 'moved' }>,
    lead: { name: string; phone: string },
  ): Promise<BookResult> {
    let appointment = outcome.appointment;
    const copy = this.providerAppointment(clinic, appointment, lead);
    try {
      const ref =
        outcome.kind === 'inserted'
          ? await calendar.create(copy, this.options.signal)
          : await calendar.move({ external_id: outcome.previous.external_id }, copy, this.options.signal);
      if (ref.external_id !== appointment.external_id) appointment = await this.setExternalId(appointment.id, ref.external_id);
    } catch (err) {
      await this.putBack(outcome);
      if (err instanceof SlotUnavailableError)
        return this.refusal(
          clinic,
          outcome.free.filter((s) => s.start !== appointment.inicio),
        );
      throw err;
    }
    const shown = this.shown(clinic, appointment);
    if (outcome.kind === 'moved') return { status: 'remarcado', ...shown, appointment, previous: outcome.previous };
    return { status: 'marcado', ...shown, appointment };
  }

  /** The tool's fields of a booked appointment: its id, local start and label. */
  private shown(clinic: BookingClinic, appointment: Appointment): { agendamento_id: number; inicio: string; texto: string } {
    return {
      agendamento_id: appointment.id,
      inicio: localSlotText(appointment.inicio, clinic.timezone),
      texto: slotLabel(appointment.inicio, clinic.timezone),
    };
  }

  private providerAppointment(clinic: BookingClinic, appointment: Appointment, lead: { name: string; phone: string }): ProviderAppointment {
    return {
      appointment_id: appointment.id,
      clinic_id: clinic.id,
      start: appointment.inicio,
      end: appointment.fim,
      time_zone: clinic.timezone,
      lead_name: lead.name,
      lead_phone: lead.phone.replace(/\D/g, ''),
      clinic_name: clinic.nome,
    };
  }

  private async setExternalId(id: number, externalId: string | null): Promise<Appointment> {
    const { rows } = await this.db.update('agendamentos', { id }, { external_id: externalId });
    return appointmentOf(rows[0]!);
  }

  private async putBack(outcome: Extract<ClaimOutcome, { kind: 'inserted' | 'moved' }>): Promise<void> {
    if (outcome.kind === 'inserted') {
      await this.db.delete('agendamentos', { id: outcome.appointment.id });
      return;
    }
    const { inicio, fim, status, external_id } = outcome.previous;
    await this.db.update('agendamentos', { id: outcome.previous.id }, { inicio, fim, status, external_id });
  }

  /** `cancelar_agendamento` for the lead's upcoming appointment (see the file comment). */
  async cancel(clinicId: number, leadId: number, motivo = ''): Promise<CancelResult> {
    const upcoming = await this.upcomingFor(clinicId, leadId);
    if (!upcoming) return { status: 'sem_agendamento' };
    const clinic = await this.clinic(clinicId);
    if (clinic) {
      const lead = await this.db.get('leads', { id: leadId });
      const who = { name: lead?.nome ? String(lead.nome) : '', phone: lead ? String(lead.remotejid) : '' };
      await this.calendarFor(clinic).cancel(
        { external_id: upcoming.external_id },
        this.providerAppointment(clinic, upcoming, who),
        motivo,
        this.options.signal,
      );
    }
    const { rows } = await this.db.update('agendamentos', { id: upcoming.id, status: { in: HOLDING_STATUSES } }, { status: 'cancelado' });
    if (rows.length === 0) return { status: 'sem_agendamento' };
    return { status: 'cancelado', appointment: appointmentOf(rows[0]!) };
  }

  /**
   * Crash repair: the lead's upcoming appointment at a `google`/`calcom` clinic whose provider copy was
   * never stored (`external_id` null: a crash between the row's insert and the provider's answer) gets
   * the provider call repeated (idempotent per appointment id) and its reference stored. Resolves to
   * the repaired row, or null when there was nothing to repair; the provider's errors are thrown.
   */
  async repairProviderCopy(clinicId: number, leadId: number): Promise<Appointment | null> {
    const upcoming = await this.upcomingFor(clinicId, leadId);
    if (!upcoming || upcoming.external_id !== null || upcoming.provider === 'interno') return null;
    const clinic = await this.clinic(clinicId);
    if (!clinic || clinic.agenda.provider !== upcoming.provider) return null;
    const lead = await this.db.get('leads', { id: leadId });
    const who = { name: lead?.nome ? String(lead.nome) : '', phone: lead ? String(lead.remotejid) : '' };
    const ref = await this.calendarFor(clinic).create(this.providerAppointment(clinic, upcoming, who), this.options.signal);
    return ref.external_id === null ? null : this.setExternalId(upcoming.id, ref.external_id);
  }

  /** Marks an appointment `confirmado` (from marcado), `compareceu` or `faltou` (from any but cancelado); null when it does not exist or cannot. */
  async setStatus(id: number, status: Extract<AppointmentStatus, 'confirmado' | 'compareceu' | 'faltou'>): Promise<Appointment | null> {
    const from: AppointmentStatus[] =
      status === 'confirmado' ? ['marcado', 'confirmado'] : ['marcado', 'confirmado', 'compareceu', 'faltou'];
    const { rows } = await this.db.update('agendamentos', { id, status: { in: from } }, { status });
    return rows[0] ? appointmentOf(rows[0]) : null;
  }

  /**
   * Erasure (`excluir`, the console's erase; CONTRACT §12): every appointment of the lead, of any
   * status, deleted; first the provider's copy erased where the provider can (Google: blanked of the
   * lead, then deleted; calendar.ts `erase`), else, for each one not `cancelado`, cancelled (Cal.com)
   * — a copy already gone counts as done, so a repeat after a crash is safe. An
   * error of the provider throws before any row is deleted (the erasure is to be tried again).
   * Resolves to the appointments deleted.
   */
  async eraseLead(leadId: number): Promise<Appointment[]> {
    const rows = await this.db.find('agendamentos', { where: { lead_id: leadId }, order_by: [{ column: 'id' }], limit: 1000 });
    const appointments = rows.map(appointmentOf);
    const lead = await this.db.get('leads', { id: leadId });
    const who = { name: lead?.nome ? String(lead.nome) : '', phone: lead ? String(lead.remotejid) : '' };
    for (const appointment of appointments) {
      const clinic = await this.clinic(appointment.clinica_id);
      if (!clinic) continue;
      const calendar = this.calendarFor(clinic);
      const copy = this.providerAppointment(clinic, appointment, who);
      const ref = { external_id: appointment.external_id };
      if (calendar.erase) await calendar.erase(ref, copy, this.options.signal);
      else if (appointment.status !== 'cancelado') await calendar.cancel(ref, copy, 'lead erased', this.options.signal);
    }
    await this.db.delete('agendamentos', { lead_id: leadId });
    return appointments;
  }

  /** The lead's upcoming appointment at the clinic (marcado or confirmado, `inicio` after now), or null. */
  async upcomingFor(clinicId: number, leadId: number): Promise<Appointment | null> {
    const row = await this.db.get(
      'agendamentos',
      { clinica_id: clinicId, lead_id: leadId, status: { in: HOLDING_STATUSES }, inicio: { gt: iso(this.clock.now()) } },
      [{ column: 'inicio' }, { column: 'id' }],
    );
    return row ? appointmentOf(row) : null;
  }

  /** The clinic's appointments of any status overlapping `span`, by start, with their leads' name and number. */
  async listForClinic(clinicId: number, span: Interval): Promise<AppointmentListing[]> {
    const rows = (await this.db
      .knex('agendamentos as a')
      .join('leads as l', 'l.id', 'a.lead_id')
      .where('a.clinica_id', clinicId)
      .where('a.inicio', '<', iso(span.end))
      .where('a.fim', '>', iso(span.start))
      .orderBy([{ column: 'a.inicio' }, { column: 'a.id' }])
      .select('a.*', 'l.nome as lead_nome', 'l.remotejid as lead_remotejid')) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      ...appointmentOf(r),
      lead_nome: r.lead_nome === null || r.lead_nome === undefined ? null : String(r.lead_nome),
      lead_remotejid: String(r.lead_remotejid),
    }));
  }
}
