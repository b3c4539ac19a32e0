// The Google calendar provider's erasure of a lead (GoogleCalendar.erase, CONTRACT §12 `excluir`)
// against the fake Google: the event is blanked of the lead (title, description, contact stamp)
// before it is deleted, since Google keeps deleted events in the calendar's trash; an event already
// deleted, or never made, counts as done.
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { ProviderAppointment } from '../../adapters/calendar/calendar.js';
import { GoogleCalendar } from '../../adapters/calendar/google/google-calendar.js';
import { TokenCache } from '../../adapters/calendar/google/token-cache.js';
import { type FakeGoogleCalendar, startFakeGoogleCalendar, testServiceAccount } from '../fakes/google-calendar-server.js';

const CAL = 'clinica.aurora@gmail.com';
const account = testServiceAccount();
let fake: FakeGoogleCalendar;

beforeEach(async () => {
  fake = await startFakeGoogleCalendar({ accounts: { [account.client_email]: account.publicKey } });
  fake.addCalendar(CAL, { [account.client_email]: 'writer' });
});
afterEach(async () => {
  await fake.close();
});

const google = () =>
  new GoogleCalendar({
    calendar_id: CAL,
    service_account: { client_email: account.client_email, private_key: account.private_key },
    base_url: fake.baseUrl,
    token_url: fake.tokenUrl,
    tokens: new TokenCache(),
    timeoutMs: 1000,
    deadlineMs: 3000,
    baseDelayMs: 20,
    maxDelayMs: 100,
  });

const start = Date.parse('2026-12-02T14:30:00-03:00');
const appointment: ProviderAppointment = {
  appointment_id: 4321,
  clinic_id: 7,
  start,
  end: start + 3_600_000,
  time_zone: 'America/Sao_Paulo',
  lead_name: 'Joana Prado',
  lead_phone: '5521987651234',
  clinic_name: 'Clínica Aurora',
};

it('blanks the event of the lead, then deletes it: nothing of the lead stays in the trash', async () => {
  const calendar = google();
  const ref = await calendar.create(appointment);
  expect(JSON.stringify(fake.events(CAL))).toContain('Joana');
  await calendar.erase(ref, appointment);
  expect(fake.events(CAL)).toEqual([]);
  const trashed = fake.events(CAL, true);
  expect(trashed).toHaveLength(1);
  expect(trashed[0]).toMatchObject({ id: ref.external_id, status: 'cancelled', summary: 'Avaliação (LeadFlow)' });
  const text = JSON.stringify(trashed);
  for (const trace of ['Joana', 'Prado', '5521987651234', '21987651234']) expect(text).not.toContain(trace);
  expect(trashed[0]!.extendedProperties?.private?.leadflowContato ?? null).toBeNull();
});

it('an event already deleted, or never made, counts as done', async () => {
  const calendar = google();
  const ref = await calendar.create(appointment);
  await calendar.cancel(ref, appointment, 'cancelado');
  await expect(calendar.erase(ref, appointment)).resolves.toBeUndefined();
  await expect(calendar.erase({ external_id: null }, { ...appointment, appointment_id: 999 })).resolves.toBeUndefined();
});
