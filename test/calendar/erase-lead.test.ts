// The booking store's erasure of a lead (Appointments.eraseLead, CONTRACT §12): every appointment of
// the lead deleted, each provider copy erased first (`erase` where the provider has it, else `cancel`
// for those not already cancelled), a provider error leaving every row in place, other leads untouched.
// Real SQLite and PostgreSQL; the provider is a recording double (the Google client's erase against
// the fake Google is in test/e2e/reminders.test.ts).
import { expect, it } from 'vitest';
import { Appointments } from '../../adapters/calendar/appointments.js';
import {
  CalendarUnavailableError,
  type CalendarProvider,
  type ProviderAppointment,
  type ProviderRef,
} from '../../adapters/calendar/calendar.js';
import type { Database } from '../../adapters/db/database.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';

const START = Date.parse('2026-12-02T17:30:00.000Z');

async function setup(db: Database) {
  const clinic = await db.insert('clinicas_com_atendentes', { nome: 'Clínica Sorriso', agenda: JSON.stringify({ provider: 'interno' }) });
  const lead = await db.insert('leads', { clinica_id: clinic.id, remotejid: '5511987654321', nome: 'Maria Souza' });
  const other = await db.insert('leads', { clinica_id: clinic.id, remotejid: '5511987650000', nome: 'Rita Lobo' });
  const row = (leadId: unknown, status: string, external: string | null, offsetH: number) =>
    db.insert('agendamentos', {
      clinica_id: clinic.id,
      lead_id: leadId,
      inicio: START + offsetH * 3_600_000,
      fim: START + (offsetH + 1) * 3_600_000,
      status,
      origem: 'agente',
      provider: 'google',
      external_id: external,
    });
  const ids = [
    (await row(lead.id, 'cancelado', 'evt-a', 0)).id,
    (await row(lead.id, 'compareceu', 'evt-b', 1)).id,
    (await row(lead.id, 'marcado', null, 2)).id,
  ].map(Number);
  const kept = Number((await row(other.id, 'marcado', 'evt-k', 3)).id);
  return { leadId: Number(lead.id), ids, kept };
}

/** A provider double recording `cancel` and (when `withErase`) `erase` calls; `fail` makes them throw. */
function recording(withErase: boolean) {
  const calls: string[] = [];
  const state = { fail: null as Error | null };
  const record = (op: string) => async (ref: ProviderRef, a: ProviderAppointment) => {
    calls.push(`${op} ${a.appointment_id} ${ref.external_id} ${a.lead_phone} ${a.lead_name}`);
    if (state.fail) throw state.fail;
  };
  const calendar: CalendarProvider = {
    provider: 'google',
    availability: async () => ({ kind: 'grid' }),
    create: async () => ({ external_id: null }),
    move: async () => ({ external_id: null }),
    cancel: record('cancel'),
    ...(withErase ? { erase: record('erase') } : {}),
  };
  return { calendar, calls, state };
}

forEachDatabase('booking store: eraseLead', (open) => {
  const t = useFreshDatabase(open);

  it("a provider with erase: every copy erased (cancelled ones too), then every row of the lead deleted; the other lead's stays", async () => {
    const { db } = t.current;
    const { leadId, ids, kept } = await setup(db);
    const double = recording(true);
    const erased = await new Appointments(db, { calendarFor: () => double.calendar }).eraseLead(leadId);
    expect(erased.map((a) => a.id)).toEqual(ids);
    expect(double.calls).toEqual([
      `erase ${ids[0]} evt-a 5511987654321 Maria Souza`,
      `erase ${ids[1]} evt-b 5511987654321 Maria Souza`,
      `erase ${ids[2]} null 5511987654321 Maria Souza`,
    ]);
    expect(await db.find('agendamentos', { where: { lead_id: leadId } })).toEqual([]);
    expect(await db.get('agendamentos', { id: kept })).toMatchObject({ status: 'marcado' });
    // Again (a repeat after a crash): nothing left, nothing asked.
    expect(await new Appointments(db, { calendarFor: () => double.calendar }).eraseLead(leadId)).toEqual([]);
    expect(double.calls).toHaveLength(3);
  });

  it('a provider without erase: the copies not already cancelled are cancelled', async () => {
    const { db } = t.current;
    const { leadId, ids } = await setup(db);
    const double = recording(false);
    await new Appointments(db, { calendarFor: () => double.calendar }).eraseLead(leadId);
    expect(double.calls.map((c) => c.split(' ').slice(0, 2).join(' '))).toEqual([`cancel ${ids[1]}`, `cancel ${ids[2]}`]);
    expect(await db.find('agendamentos', { where: { lead_id: leadId } })).toEqual([]);
  });

  it('a provider error throws before any row is deleted', async () => {
    const { db } = t.current;
    const { leadId, ids } = await setup(db);
    const double = recording(true);
    double.state.fail = new CalendarUnavailableError('google: HTTP 503');
    await expect(new Appointments(db, { calendarFor: () => double.calendar }).eraseLead(leadId)).rejects.toThrow('google: HTTP 503');
    expect((await db.find('agendamentos', { where: { lead_id: leadId } })).map((r) => Number(r.id)).sort()).toEqual([...ids].sort());
  });
});
