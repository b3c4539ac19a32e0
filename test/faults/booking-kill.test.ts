// Never a half booking (CONTRACT §12: "a crash anywhere in a booking neither loses it nor books it
// twice, in the provider too"): the agent's `agendar` is running, the provider has accepted the
// booking (Google's event insert, Cal.com's POST /v2/bookings: carried out and never answered), and
// the process holding the execution is SIGKILLed at that instant — the row is written, its provider
// reference is not. Another process takes the execution over, the model asks for the same time again,
// and the booking is repaired, not repeated: exactly one event or booking at the provider, one row
// holding its reference, one Hunter notice. Each provider, embedded and queue mode, as real
// subprocesses; the gateway, OpenAI, Google and Cal.com are fakes of this test process.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookingService } from '../../adapters/calendar/booking-service.js';
import { parseLocalSlot } from '../../adapters/calendar/slot-grid.js';
import type { Database } from '../../adapters/db/database.js';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { type FakeCalcom, startFakeCalcom } from '../fakes/calcom-server.js';
import { FakeGateway } from '../fakes/fake-gateway.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import { type FakeGoogleCalendar, startFakeGoogleCalendar, testServiceAccount } from '../fakes/google-calendar-server.js';
import { runCli } from '../helpers/cli.js';
import { embeddedBackend, type FaultBackend, killProcess, ProcessFleet, queueBackend, faultEnv } from '../helpers/fault-processes.js';
import { pollFor } from '../helpers/poll.js';
import { leadTextEvent } from '../helpers/uazapi-events.js';

/** Each provider's clinic has its own instance (token). */
const TOKENS = { google: 'booking-kill-google', calcom: 'booking-kill-calcom' } as const;
const CLINIC_PHONE = '5511912340077';
const HUNTER = '5511987650077';
/** Each backend's clinic books into its own calendar (event ids derive from clinic and appointment ids, which repeat across databases). */
const calendarOf = (backend: string) => `clinica-kill-${backend.replace(/\W+/g, '-')}@group.calendar.google.com`;
const HOURS = {
  timezone: 'America/Sao_Paulo',
  seg: '08:00-20:00',
  ter: '08:00-20:00',
  qua: '08:00-20:00',
  qui: '08:00-20:00',
  sex: '08:00-20:00',
  sab: '08:00-20:00',
  dom: '08:00-20:00',
};
const HOUR = 3_600_000;
/** The agenda's default notice (antecedencia_min 120) and the margin the booked slot keeps past it, ms. */
const NOTICE = 2 * HOUR;
const SLACK = 10 * 60_000;

const BACKENDS: Array<[string, () => Promise<FaultBackend>]> = [
  ['sqlite, in-process', () => embeddedBackend('leadflow-booking-kill')],
  ['postgres + redis', () => queueBackend('leadflow-booking-kill', 'booking-kill.test.ts')],
];

let gateway: FakeGateway;
let openai: FakeOpenAi;
let google: FakeGoogleCalendar;
let calcom: FakeCalcom;
const account = testServiceAccount();

beforeAll(async () => {
  gateway = await new FakeGateway({ tokens: { [TOKENS.google]: CLINIC_PHONE, [TOKENS.calcom]: CLINIC_PHONE } }).start();
  openai = await startFakeOpenAi();
  google = await startFakeGoogleCalendar({ accounts: { [account.client_email]: account.publicKey } });
  for (const [name] of BACKENDS) google.addCalendar(calendarOf(name), { [account.client_email]: 'writer' });
  calcom = await startFakeCalcom({ apiKey: 'cal_live_kill' });
});

afterAll(async () => {
  for (const fake of [gateway, openai, google, calcom]) await fake?.close();
});

/** The clinic's agenda for `provider`, pointing at its fake. */
function agendaFor(provider: 'google' | 'calcom', calendar: string): Record<string, unknown> {
  if (provider === 'google')
    return {
      provider,
      horario: HOURS,
      google: {
        calendar_id: calendar,
        service_account: { client_email: account.client_email, private_key: account.private_key },
        base_url: google.baseUrl,
        token_url: google.tokenUrl,
      },
    };
  return { provider, horario: HOURS, calcom: { api_key: 'cal_live_kill', event_type_id: calcom.eventTypeId, base_url: calcom.url } };
}

/** What the provider holds for the clinic now: live Google events, or live Cal.com bookings. */
const providerCopies = (provider: 'google' | 'calcom', calendar: string) =>
  provider === 'google' ? google.events(calendar).map((e) => e.id) : calcom.live.map((b) => b.uid);

for (const [label, make] of BACKENDS) {
  describe(`SIGKILL between the provider accepting a booking and its reference being stored [${label}]`, () => {
    let backend: FaultBackend;
    let env: Record<string, string>;
    let db: Database;
    let store: DbExecutionStore;
    const fleet = new ProcessFleet(() => env);
    const clinics = new Map<string, { clinicId: number; instanceId: number }>();
    let phoneSeq = 0;
    const nextPhone = () => `55119${72_000_000 + ++phoneSeq * 1213 + (backend.queue ? 500_000 : 0)}`;

    beforeAll(async () => {
      backend = await make();
      env = faultEnv(backend, openai.baseURL, {
        LEADFLOW_DEBOUNCE_MS: '100',
        LEADFLOW_FOLLOWUP_AFTER_MS: '',
        LEADFLOW_REMINDERS_BEFORE_MS: '',
      });
      const seedFile = join(backend.env.LEADFLOW_DATA_DIR!, 'seed.yaml');
      writeFileSync(
        seedFile,
        JSON.stringify({
          clinicas: (['google', 'calcom'] as const).map((provider) => ({
            nome: `Clínica ${provider}`,
            hunter_nome: 'Ana',
            hunter_telefone: HUNTER,
            agenda: agendaFor(provider, calendarOf(label)),
            protocolos: [{ nome: 'Lentes', descricao: 'Lentes de porcelana' }],
            instancias: [{ nome: `Recepção ${provider}`, server_url: gateway.url, token: TOKENS[provider] }],
          })),
        }),
      );
      const seeded = await runCli(['seed', seedFile], { env, timeoutMs: 30_000 });
      expect(seeded.code, seeded.stderr).toBe(0);
      db = backend.open();
      store = new DbExecutionStore(db);
      for (const instance of await db.find('instancias_whatsapp', { limit: 10 })) {
        const provider = instance.token === TOKENS.google ? 'google' : 'calcom';
        clinics.set(provider, { clinicId: Number(instance.clinica_id), instanceId: Number(instance.id) });
      }
    }, 60_000);

    afterAll(async () => {
      await fleet.killAll();
      await db?.close();
      await backend?.cleanup();
    });

    for (const provider of ['google', 'calcom'] as const) {
      it(`${provider}: the taken-over run repairs the booking: one ${provider === 'google' ? 'event' : 'booking'}, one row, one notice`, async () => {
        const { clinicId, instanceId } = clinics.get(provider)!;
        const phone = nextPhone();
        const lead = await db.insert('leads', {
          remotejid: phone,
          clinica_id: clinicId,
          instancia_id: instanceId,
          nome: 'Bia Lopes',
          telefone: phone,
        });
        const leadId = Number(lead.id);
        // A free time, as ver_horarios would give it (Cal.com's: among the slots it lists).
        if (provider === 'calcom') calcom.setSlots(slotStarts());
        // Not the first slot: that one may fall inside the 2 h notice (antecedencia_min) by the time the agent books.
        const slots = await bookingService(db).open().horarios(clinicId, leadId);
        const inicio = slots.horarios.find((h) => parseLocalSlot(h.inicio, HOURS.timezone)! >= Date.now() + NOTICE + SLACK)?.inicio;
        if (!inicio) throw new Error(`no slot ${SLACK / 60_000} min past the notice among ${JSON.stringify(slots)}`);
        const before = providerCopies(provider, calendarOf(label)).length;
        if (!fleet.live('serve')) await fleet.start('serve');
        if (backend.queue && !fleet.live('worker')) await fleet.start('worker');

        // The model books; the provider carries the booking out and never answers.
        if (provider === 'google') google.fail(1, 'accept-then-hang', { match: { method: 'POST', path: /\/events$/ } });
        else calcom.fail(1, 'accept-then-hang', { route: 'create' });
        const agendar = { tool_calls: [{ name: 'agendar', arguments: { inicio } }] };
        openai.queueChat(agendar, agendar, { text: 'Pronto, sua avaliação está marcada!' });
        const answer = await fetch(`${fleet.live('serve')!.url}/leadagent`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(leadTextEvent({ phone, text: `Pode ser ${inicio}?`, token: TOKENS[provider], owner: CLINIC_PHONE })),
        });
        expect(await answer.json()).toEqual({ status: 'queued' });
        await pollFor(
          'the provider to accept the booking',
          async () => providerCopies(provider, calendarOf(label)).length === before + 1,
          30_000,
        ).catch(async (err: Error) => {
          throw new Error(`${err.message}; the agent's runs for the lead: ${await agentRuns(store, phone)}`);
        });
        const [running] = (await store.listRunning()).filter((r) => r.flow === 'agent');
        const holder = fleet.holding(running!.lease_owner);
        expect(holder, `the process holding the agent run (${running!.lease_owner})`).toBeDefined();
        await killProcess(holder!);
        const [cut] = await db.find('agendamentos', { where: { lead_id: leadId } });
        expect(cut, 'the row was written before the provider call').toBeDefined();
        expect(cut!.external_id ?? null).toBeNull();

        if (holder!.kind === 'serve') await fleet.start('serve');
        else await fleet.start('worker');
        await pollFor('the taken-over run to end', async () => (await store.get(running!.id))?.status === 'success', 60_000);

        const copies = providerCopies(provider, calendarOf(label));
        expect(copies).toHaveLength(before + 1);
        const rows = await db.find('agendamentos', { where: { lead_id: leadId } });
        expect(rows.map((r) => [r.status, r.provider])).toEqual([['marcado', provider]]);
        expect(copies).toContain(rows[0]!.external_id);
        expect(gateway.sent.filter((s) => s.number === phone).map((s) => s.text)).toEqual(['Pronto, sua avaliação está marcada!']);
        const notices = gateway.sent.filter((s) => s.number === HUNTER && s.text.includes(`https://wa.me/${phone}`));
        expect(notices).toHaveLength(1);
        expect(notices[0]!.text).toContain('*📅 AVALIAÇÃO AGENDADA*');
      }, 120_000);
    }
  });
}

/** The agent's executions for `phone`, their steps' outcomes and the model's tool calls, for a failure's message. */
async function agentRuns(store: DbExecutionStore, phone: string): Promise<string> {
  const runs = (await store.list({ flow: 'agent', limit: 50 })).filter((r) => JSON.stringify(r.trigger).includes(phone));
  const steps = (r: (typeof runs)[number]) => r.steps.map((s) => `${s.id}:${s.status}${s.error ? ` (${s.error.message})` : ''}`);
  const agent = (r: (typeof runs)[number]) => JSON.stringify(r.steps.find((s) => s.id === 'agent')?.output ?? null).slice(0, 2000);
  return JSON.stringify(runs.map((r) => ({ id: r.id, status: r.status, error: r.error?.message, steps: steps(r), agent: agent(r) })));
}

/** Cal.com's grid for the fake: every half hour from 2 h to 7 days ahead (the clinic's grid lies inside it). */
function slotStarts(): number[] {
  const first = Math.ceil((Date.now() + 2 * HOUR) / (HOUR / 2)) * (HOUR / 2);
  return Array.from({ length: 7 * 48 }, (_, i) => first + (i * HOUR) / 2);
}
