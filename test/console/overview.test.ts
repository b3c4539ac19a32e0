// GET /admin/overview (issue 14) on the in-process stack, on SQLite and on PostgreSQL: sign-in
// required (401), bad `days` / `tz` refused (422), and the figures computed from seeded rows — leads,
// handoffs, opt-outs, messages by type, follow-ups, AI calls by model, failed executions by flow,
// first-contact p50 / p95 against two minutes — per clinic and for all, with the local day
// boundaries of the time zone asked for (São Paulo, UTC, and a half-hour zone, Kolkata).
import { DateTime } from 'luxon';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ActivityEvent, ActivityStore } from '../../adapters/db/activity-store.js';
import type { OverviewResponse, OverviewSeries } from '../../console/server/api-types.js';
import { forEachBackend, type Stack, startStack } from '../e2e/stack.js';
import { ADMIN_TOKEN, signIn, type SignedIn, withBearer, withSession } from './support.js';

const SP = 'America/Sao_Paulo';
const MIN = 60_000;

forEachBackend('console overview', (backend) => {
  let stack: Stack;
  let session: SignedIn;
  let two: number;
  let three: number;
  // Local midnights (ms) the rows are placed around, computed once so every test agrees on "today".
  const spToday = DateTime.now().setZone(SP).startOf('day');
  const today = spToday.toMillis();
  const firstDay = spToday.minus({ days: 6 }).toMillis();
  const kolkataToday = DateTime.now().setZone('Asia/Kolkata').startOf('day').toMillis();
  const iso = (ms: number) => new Date(ms).toISOString();

  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    session = await signIn(stack);
    const db = stack.runtime.db;
    const one = stack.clinic.id;
    two = Number((await db.insert('clinicas_com_atendentes', { nome: 'Clínica Dois' })).id);
    three = Number((await db.insert('clinicas_com_atendentes', { nome: 'Clínica Três' })).id);
    let phone = 5511900000000;
    const lead = (clinica_id: number, created: number, extra: Record<string, unknown> = {}) =>
      db.insert('leads', { clinica_id, remotejid: String(++phone), created_at: iso(created), ...extra });
    await lead(one, today + MIN, { handoff_at: iso(today + 2 * MIN) }); // today
    await lead(one, today - MIN, { optout_at: iso(today + 3 * MIN) }); // yesterday; opted out today
    await lead(one, firstDay + MIN); // first day of the 7
    await lead(one, firstDay - MIN); // before the period
    await lead(two, today + 5 * MIN);
    await lead(three, kolkataToday - 10 * MIN); // either side of midnight in Kolkata (UTC+05:30)
    await lead(three, kolkataToday + 10 * MIN);
    const message = (clinica_id: number, type: string, at: number) =>
      db.insert('wf_chat_histories', { clinica_id, session_id: '5511900000001', type, content: 'texto', created_at: iso(at) });
    for (const type of ['lead', 'lead', 'agent', 'agent', 'agent', 'operator']) await message(one, type, today + 10 * MIN);
    await message(one, 'agent', today - 10 * MIN);
    const events: ActivityEvent[] = [];
    // 20 first contacts today: 1..18 s, then 130 s and 200 s (two over the two minutes).
    for (const s of [...Array.from({ length: 18 }, (_, i) => i + 1), 130, 200])
      events.push({ at: today + 20 * MIN, kind: 'first_contact', clinica_id: one, value: s * 1000 });
    events.push({ at: today - 20 * MIN, kind: 'first_contact', clinica_id: one, value: 90_000 }); // yesterday
    const ai = (
      clinica_id: number | null,
      label: string,
      outcome: string,
      value: number | null,
      value2: number | null,
      at = today + 30 * MIN,
    ) => events.push({ at, kind: 'ai_call', clinica_id, label, outcome, value, value2 });
    ai(one, 'openai:gpt-4.1-mini', 'ok', 100, 20);
    ai(one, 'openai:gpt-4.1-mini', 'ok', 50, 10);
    ai(one, 'openai:gpt-4.1-mini', 'error', null, null);
    ai(one, 'anthropic:claude-sonnet-4-6', 'rate_limited', null, null);
    ai(one, 'openai:gpt-4.1-mini', 'ok', 1000, 1000, firstDay - MIN); // before the period
    ai(null, 'openai:gpt-4.1-mini', 'ok', 7, 3);
    const execution = (clinica_id: number | null, flow: string, outcome: string, at: number) =>
      events.push({ at, kind: 'execution', clinica_id, label: flow, outcome, value: 1200 });
    execution(one, 'agent', 'failed', today + 40 * MIN);
    execution(one, 'agent', 'failed', today + 41 * MIN);
    execution(one, 'agent', 'success', today + 42 * MIN);
    execution(one, 'intake', 'failed', today - 40 * MIN);
    events.push({ at: today + 50 * MIN, kind: 'followup_sent', clinica_id: two, value: 1 });
    events.push({ at: today + 51 * MIN, kind: 'followup_sent', clinica_id: two, value: 1 });
    await new ActivityStore(db).insert(events);
  });
  afterAll(() => stack?.close());

  const overview = async (search = ''): Promise<OverviewResponse> => {
    const res = await withSession(stack, session, `/admin/overview${search}`);
    expect(res.status).toBe(200);
    return (await res.json()) as OverviewResponse;
  };
  const clinic = (body: OverviewResponse, id: number | null): OverviewSeries => body.clinics.find((c) => c.clinica_id === id)!;

  it('needs a session or the bearer token', async () => {
    const res = await fetch(`${stack.url}/admin/overview`);
    expect(res.status).toBe(401);
    expect((await withBearer(stack, '/admin/overview')).status).toBe(200);
  });

  it('refuses a bad days or tz with 422', async () => {
    for (const search of ['?days=0', '?days=32', '?days=abc', '?days=7&days=8', '?days=1.5', '?tz=Mars/Olympus', '?tz=../etc', '?tz=']) {
      const res = await withSession(stack, session, `/admin/overview${search}`);
      expect(res.status, search).toBe(422);
      const body = (await res.json()) as { error: string; details: Array<{ path: string }> };
      expect(body.error, search).toBe('invalid query');
      expect(
        body.details.map((d) => d.path),
        search,
      ).toEqual([search.slice(1, search.indexOf('='))]);
    }
  });

  it('answers the last 7 local days in São Paulo by default, today last, every clinic listed', async () => {
    const body = await overview();
    expect(body).toMatchObject({ days: 7, tz: SP, first_contact_limit_ms: 120_000 });
    expect(body.dates).toHaveLength(7);
    expect(body.dates.at(-1)).toBe(spToday.toISODate());
    expect(body.dates[0]).toBe(spToday.minus({ days: 6 }).toISODate());
    expect(body.clinics.map((c) => [c.clinica_id, c.nome])).toEqual([
      [stack.clinic.id, 'Clínica Sorriso'],
      [two, 'Clínica Dois'],
      [three, 'Clínica Três'],
      [null, null],
    ]);
    for (const c of body.clinics) expect(c.days.map((d) => d.date)).toEqual(body.dates);
  });

  it("counts a clinic's figures per local day and in total", async () => {
    const one = clinic(await overview(), stack.clinic.id);
    expect(one.days.map((d) => d.leads_in)).toEqual([1, 0, 0, 0, 0, 1, 1]);
    expect(one.today).toMatchObject({ leads_in: 1, handoffs: 1, optouts: 1, lead_messages: 2, agent_replies: 3, followups: 0 });
    expect(one.period).toMatchObject({ leads_in: 3, handoffs: 1, optouts: 1, lead_messages: 2, agent_replies: 4 });
    expect(one.days[5]).toMatchObject({ leads_in: 1, agent_replies: 1, failed_executions: [{ flow: 'intake', count: 1 }] });
    expect(one.today.failed_executions).toEqual([{ flow: 'agent', count: 2 }]);
    expect(one.period.failed_executions).toEqual([
      { flow: 'agent', count: 2 },
      { flow: 'intake', count: 1 },
    ]);
    expect(one.period.ai).toEqual([
      { model: 'openai:gpt-4.1-mini', calls: 3, failures: 1, input_tokens: 150, output_tokens: 30 },
      { model: 'anthropic:claude-sonnet-4-6', calls: 1, failures: 1, input_tokens: 0, output_tokens: 0 },
    ]);
  });

  it('gives first-contact p50 and p95 (nearest rank) and how many took over two minutes', async () => {
    const one = clinic(await overview(), stack.clinic.id);
    expect(one.today.first_contact).toEqual({ count: 20, p50_ms: 10_000, p95_ms: 130_000, over_2min: 2 });
    expect(one.days[5]!.first_contact).toEqual({ count: 1, p50_ms: 90_000, p95_ms: 90_000, over_2min: 0 });
    expect(one.period.first_contact).toEqual({ count: 21, p50_ms: 11_000, p95_ms: 130_000, over_2min: 2 });
    expect(one.days[0]!.first_contact).toEqual({ count: 0, p50_ms: null, p95_ms: null, over_2min: 0 });
  });

  it('adds every clinic up in `all`, figures of no clinic included', async () => {
    const body = await overview();
    expect(clinic(body, two).today).toMatchObject({ leads_in: 1, followups: 2 });
    expect(clinic(body, null).period.ai).toEqual([
      { model: 'openai:gpt-4.1-mini', calls: 1, failures: 0, input_tokens: 7, output_tokens: 3 },
    ]);
    const threeLeads = clinic(body, three).period.leads_in;
    expect(body.all.period.leads_in).toBe(3 + 1 + threeLeads);
    expect(body.all.today.followups).toBe(2);
    expect(body.all.period.ai[0]).toEqual({ model: 'openai:gpt-4.1-mini', calls: 4, failures: 1, input_tokens: 157, output_tokens: 33 });
    expect(body.all.period.first_contact.count).toBe(21);
  });

  it('regroups into the days of the zone asked for', async () => {
    // São Paulo's midnight ± 1 minute is 02:59 and 03:01 UTC: the same UTC day.
    const utc = await overview('?tz=UTC&days=31');
    const utcDate = DateTime.fromMillis(today, { zone: 'UTC' }).toISODate();
    const one = clinic(utc, stack.clinic.id);
    expect(one.days.find((d) => d.date === utcDate)!.leads_in).toBe(2);
    // Kolkata's midnight ± 10 minutes: two days there, whatever São Paulo's day is.
    const kolkata = clinic(await overview('?tz=Asia/Kolkata&days=2'), three);
    expect(kolkata.days.map((d) => d.leads_in)).toEqual([1, 1]);
    expect(kolkata.days.at(-1)!.date).toBe(DateTime.fromMillis(kolkataToday, { zone: 'Asia/Kolkata' }).toISODate());
  });

  it('days=1 is today only', async () => {
    const body = await overview('?days=1');
    expect(body.dates).toEqual([spToday.toISODate()]);
    expect(clinic(body, stack.clinic.id).period).toEqual(clinic(body, stack.clinic.id).today);
  });
});
