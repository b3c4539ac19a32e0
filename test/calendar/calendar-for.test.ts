// Each clinic's calendar provider from its agenda (adapters/calendar/calendar-for.ts), and the
// booking service nodes open per step (booking-service.ts): the provider the agenda names, its
// block's settings reaching the client (Cal.com's fake answers its slots), interno by default.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAgenda } from '../../adapters/calendar/agenda-config.js';
import type { BookingClinic } from '../../adapters/calendar/appointments.js';
import { calendarFor } from '../../adapters/calendar/calendar-for.js';
import { type FakeCalcom, startFakeCalcom } from '../fakes/calcom-server.js';
import { testServiceAccount } from '../fakes/google-calendar-server.js';

const clinicWith = (agenda: unknown): BookingClinic => ({
  id: 7,
  nome: 'Clínica Aurora',
  agenda: parseAgenda(agenda)!,
  hours: null,
  timezone: 'America/Sao_Paulo',
});

describe('calendarFor', () => {
  let calcom: FakeCalcom;
  beforeAll(async () => {
    calcom = await startFakeCalcom({ apiKey: 'cal_live_test' });
  });
  afterAll(async () => {
    await calcom?.close();
  });

  it('interno, google and calcom agendas give their providers', () => {
    expect(calendarFor(clinicWith({})).provider).toBe('interno');
    const { client_email, private_key } = testServiceAccount();
    const google = calendarFor(
      clinicWith({ provider: 'google', google: { calendar_id: 'clinica@gmail.com', service_account: { client_email, private_key } } }),
    );
    expect(google.provider).toBe('google');
    expect(calendarFor(clinicWith({ provider: 'calcom', calcom: { api_key: 'cal_live_x', event_type_id: 5 } })).provider).toBe('calcom');
  });

  it("the calcom block's key, event type and base URL reach the client", async () => {
    const provider = calendarFor(
      clinicWith({ provider: 'calcom', calcom: { api_key: 'cal_live_test', event_type_id: calcom.eventTypeId, base_url: calcom.url } }),
    );
    const from = Date.now() + 86_400_000;
    const availability = await provider.availability({ from, to: from + 7 * 86_400_000, duration_min: 60, time_zone: 'America/Sao_Paulo' });
    expect(availability.kind).toBe('slots');
    expect(calcom.requests.some((r) => r.headers.authorization === 'Bearer cal_live_test')).toBe(true);
  });
});
