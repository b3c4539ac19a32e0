// Rows of `agendamentos` (CONTRACT.md §12, migration 014) as the booking code handles them:
// instants as ms since the epoch, whatever the dialect gave (PostgreSQL Date, SQLite ISO text).
import type { CalendarProviderName } from './agenda-config.js';
import type { Interval } from './calendar.js';

/** Every status an appointment may have. */
export const APPOINTMENT_STATUSES = ['marcado', 'confirmado', 'cancelado', 'compareceu', 'faltou'] as const;
/** An appointment's status (CONTRACT.md §12). */
export type AppointmentStatus = (typeof APPOINTMENT_STATUSES)[number];
/** The statuses that hold a place in the calendar (and make an appointment "upcoming" while it lies ahead). */
export const HOLDING_STATUSES: readonly AppointmentStatus[] = ['marcado', 'confirmado'];
/** Who booked: the agent's tool or a person on the console. */
export type AppointmentOrigin = 'agente' | 'console';

/** One appointment; instants in ms since the epoch. */
export interface Appointment {
  id: number;
  clinica_id: number;
  lead_id: number;
  protocolo_id: number | null;
  inicio: number;
  /** `inicio` + `duracao_min` at booking. */
  fim: number;
  status: AppointmentStatus;
  origem: AppointmentOrigin;
  provider: CalendarProviderName;
  /** The provider's event id or booking uid; null for interno (and until the provider answered). */
  external_id: string | null;
  created_at: number;
  updated_at: number;
}

/** ms since the epoch of a timestamp as a driver or the table operations give it (Date, ISO text or ms). */
export function instantOf(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') return value;
  const ms = Date.parse(String(value));
  if (Number.isNaN(ms)) throw new Error(`agendamentos: not a timestamp: ${JSON.stringify(value)}`);
  return ms;
}

/** An `agendamentos` row (any dialect, raw or through the table operations) as an Appointment. */
export function appointmentOf(row: Record<string, unknown>): Appointment {
  return {
    id: Number(row.id),
    clinica_id: Number(row.clinica_id),
    lead_id: Number(row.lead_id),
    protocolo_id: row.protocolo_id === null || row.protocolo_id === undefined ? null : Number(row.protocolo_id),
    inicio: instantOf(row.inicio),
    fim: instantOf(row.fim),
    status: String(row.status) as AppointmentStatus,
    origem: String(row.origem) as AppointmentOrigin,
    provider: String(row.provider) as CalendarProviderName,
    external_id: row.external_id === null || row.external_id === undefined ? null : String(row.external_id),
    created_at: instantOf(row.created_at),
    updated_at: instantOf(row.updated_at),
  };
}

/** The span an appointment occupies. */
export function spanOf(appointment: Appointment): Interval {
  return { start: appointment.inicio, end: appointment.fim };
}
