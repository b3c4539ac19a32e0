// Shared by the agenda's API and browser tests: the stack's clinic given an `interno` agenda open
// 08:00–20:00 every day in São Paulo (so tomorrow always has free slots whatever day the test runs),
// local dates and instants, and a booking store whose "now" is the previous day (to book today's
// slots, already near or past, as the agent would have the day before).
import { Appointments } from '../../adapters/calendar/appointments.js';
import type { Stack } from '../e2e/stack.js';

export const SP = 'America/Sao_Paulo';
const DAYS = ['seg', 'ter', 'qua', 'qui', 'sex', 'sab', 'dom'];
/** Open every day, 08:00–20:00 São Paulo. */
export const EVERY_DAY = JSON.stringify({ timezone: SP, ...Object.fromEntries(DAYS.map((d) => [d, '08:00-20:00'])) });

/** Today's date (`YYYY-MM-DD`) in São Paulo, plus `days`. */
export function spDate(days = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: SP }).format(new Date());
  const [y, m, d] = today.split('-').map(Number);
  return new Date(Date.UTC(y!, m! - 1, d! + days)).toISOString().slice(0, 10);
}

/** The instant (ms) of `day` `HH:MM` in São Paulo (no daylight saving since 2019: -03:00). */
export const spAt = (day: string, time: string) => Date.parse(`${day}T${time}:00-03:00`);

/** Gives the stack's clinic an interno agenda (60-minute appointments, one place) and EVERY_DAY hours. */
export async function giveAgenda(stack: Stack, clinicId = stack.clinic.id): Promise<void> {
  await stack.runtime.db.update(
    'clinicas_com_atendentes',
    { id: clinicId },
    { horario_atendimento: EVERY_DAY, agenda: JSON.stringify({ provider: 'interno', duracao_min: 60, intervalo_min: 30, vagas: 1 }) },
  );
}

/** A booking store over the stack's database whose clock stands at the previous day's noon (São Paulo). */
export function storeOfYesterday(stack: Stack): Appointments {
  const noon = spAt(spDate(-1), '12:00');
  return new Appointments(stack.runtime.db, { clock: { now: () => noon } });
}
