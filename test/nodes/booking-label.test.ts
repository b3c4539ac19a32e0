// booking.label in a flow (CONTRACT §12 `texto`): an instant as the lead reads it, in the time zone of
// the clinic's calendar — its agenda's hours, else its business hours, else America/Sao_Paulo — the
// same text as the booking tools (slot-grid.ts slotLabel). Real SQLite, the host's booking service.
import { afterEach, expect, it } from 'vitest';
import { bookingService } from '../../adapters/calendar/booking-service.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { runFlow, shutdownEngines, stepOutput } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

const FLOW = `
name: label
steps:
  - id: when
    type: booking.label
    params: { clinica_id: "{{ trigger.body.clinica_id }}", inicio: "{{ trigger.body.inicio }}" }
`;

/** Wednesday 2 December 2026, 17:30 UTC: 14:30 in São Paulo, 12:30 in New York, 17:30 in Lisbon. */
const INICIO = '2026-12-02T17:30:00.000Z';

forEachDatabase('booking.label', (open) => {
  const t = useFreshDatabase(open);

  async function label(clinic: Record<string, unknown>, inicio: string | number = INICIO) {
    const { db } = t.current;
    const row = await db.insert('clinicas_com_atendentes', { nome: `Clínica ${Math.random()}`, ...clinic });
    const services = { db, booking: bookingService(db) } as never;
    const { record } = await runFlow(FLOW, { body: { clinica_id: Number(row.id), inicio }, engine: { services } });
    expect(record.status).toBe('success');
    return stepOutput(record, 'when');
  }

  it("the agenda's hours' zone first, then the business hours', then São Paulo; ISO text or ms", async () => {
    const hours = (timezone: string) => JSON.stringify({ timezone, ter: '08:00-18:00' });
    expect(
      await label({
        agenda: JSON.stringify({ provider: 'interno', horario: { timezone: 'America/New_York', ter: '08:00-18:00' } }),
        horario_atendimento: hours('Europe/Lisbon'),
      }),
    ).toEqual({
      texto: 'quarta, 02/12 às 12:30',
      timezone: 'America/New_York',
    });
    expect(await label({ agenda: JSON.stringify({ provider: 'interno' }), horario_atendimento: hours('Europe/Lisbon') })).toEqual({
      texto: 'quarta, 02/12 às 17:30',
      timezone: 'Europe/Lisbon',
    });
    expect(await label({ horario_atendimento: hours('Europe/Lisbon') })).toMatchObject({ texto: 'quarta, 02/12 às 17:30' });
    expect(await label({}, Date.parse(INICIO))).toEqual({ texto: 'quarta, 02/12 às 14:30', timezone: 'America/Sao_Paulo' });
  });
});
