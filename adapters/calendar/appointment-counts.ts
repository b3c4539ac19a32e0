// How many appointments there are of each status (CONTRACT §12), for GET /metrics
// (`leadflow_appointments{status}`, read at each scrape: adapters/metrics/metrics.ts
// setAppointmentCounts). One grouped count over `agendamentos`, every clinic together; every status
// is present, 0 when none has it.
import type { Database } from '../db/database.js';
import { APPOINTMENT_STATUSES, type AppointmentStatus } from './appointment-rows.js';

/** The number of appointments of each status, now. */
export async function appointmentCounts(db: Database): Promise<Record<AppointmentStatus, number>> {
  const rows = (await db.knex('agendamentos').select('status').count({ n: '*' }).groupBy('status')) as Array<{
    status: string;
    n: unknown;
  }>;
  const counts = Object.fromEntries(APPOINTMENT_STATUSES.map((s) => [s, 0])) as Record<AppointmentStatus, number>;
  for (const row of rows)
    if ((APPOINTMENT_STATUSES as readonly string[]).includes(row.status)) counts[row.status as AppointmentStatus] = Number(row.n);
  return counts;
}
