// The agenda's endpoints (console/server/agenda.ts) on the in-process stack, both backends: the
// session or the bearer is needed (401 / 403 without CSRF); every malformed id, query or body field
// is a 422 naming it, unknown clinics, appointments and leads 404; a day's free slots; booking by
// hand (origem console, 201; one execution of flows/agenda-action.yaml), a second booking of the same lead or of a taken slot refused (409,
// nothing written); move, cancel and attendance with their 409s; the day and week listings with
// the lead; the Hunter told of each booking, move and cancellation (flows/agenda-notice.yaml, the
// fake gateway); the lead page's upcoming appointment; the overview's appointments and show rate; a
// clinic without agenda listed but not bookable; the `agenda` column never in an answer.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type {
  AgendaActionResponse,
  AgendaResponse,
  AgendaSlotsResponse,
  LeadResponse,
  OverviewResponse,
} from '../../console/server/api-types.js';
import { forEachBackend, HUNTER_PHONE, type Stack, startStack } from '../e2e/stack.js';
import { pollFor } from '../helpers/poll.js';
import { giveAgenda, spAt, spDate, storeOfYesterday } from './agenda-support.js';
import { ADMIN_TOKEN, signIn, type SignedIn, withBearer, withSession } from './support.js';

forEachBackend('console agenda API', (backend) => {
  let stack: Stack;
  let session: SignedIn;
  let ana: number;
  let bia: number;
  const tomorrow = spDate(1);
  const iso = (time: string, day = tomorrow) => new Date(spAt(day, time)).toISOString();

  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    session = await signIn(stack);
    await giveAgenda(stack);
    const lead = (nome: string, remotejid: string) =>
      stack.runtime.db.insert('leads', { clinica_id: stack.clinic.id, instancia_id: stack.clinic.instanceId, nome, remotejid });
    ana = Number((await lead('Ana Souza', '5511987654321')).id);
    bia = Number((await lead('Bia Lima', '5511987654322')).id);
  });
  afterAll(() => stack?.close());

  const call = async <T>(path: string, body?: unknown) => {
    const res = await withSession(stack, session, path, body === undefined ? {} : { method: 'POST', body });
    return { status: res.status, body: (await res.json()) as T & { error?: string; details?: Array<{ path: string }> } };
  };
  const paths = (body: { details?: Array<{ path: string }> }) => (body.details ?? []).map((d) => d.path).sort();
  const rows = () => stack.runtime.db.find('agendamentos', { order_by: [{ column: 'id' }] });
  /** The Hunter's messages from the fake gateway, in order. */
  const toHunter = () => stack.gateway.sent.filter((m) => m.number === HUNTER_PHONE).map((m) => m.text);
  const notice = (heading: string, when: string) =>
    `${heading}\n━━━━━━━━━━━━━━━\nNome: Ana Souza\nTelefone: https://wa.me/5511987654321\nQuando: ${when}`;
  const noticed = async (count: number) => {
    await pollFor(`${count} notices to the Hunter`, async () => toHunter().length >= count);
    await stack.idle();
    return toHunter();
  };

  it('needs the session (with CSRF for changes) or the bearer', async () => {
    expect((await fetch(`${stack.url}/admin/clinics/${stack.clinic.id}/agenda?dia=${tomorrow}`)).status).toBe(401);
    const post = await fetch(`${stack.url}/admin/clinics/${stack.clinic.id}/agenda`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ lead_id: ana, inicio: iso('10:00') }),
    });
    expect(post.status).toBe(401);
    const noCsrf = await withSession(stack, session, `/admin/agendamentos/1/presenca`, {
      method: 'POST',
      body: { status: 'faltou' },
      csrf: false,
    });
    expect(noCsrf.status).toBe(403);
    expect((await withBearer(stack, `/admin/clinics/${stack.clinic.id}/agenda?dia=${tomorrow}`)).status).toBe(200);
    expect(await rows()).toEqual([]);
  });

  it('answers 422 naming each malformed parameter, 404 for unknown ids', async () => {
    const c = stack.clinic.id;
    expect(paths((await call(`/admin/clinics/x/agenda?dia=${tomorrow}`)).body)).toEqual(['id']);
    expect(paths((await call(`/admin/clinics/${c}/agenda`)).body)).toEqual(['dia']);
    expect(paths((await call(`/admin/clinics/${c}/agenda?dia=2026-02-30&vista=mes`)).body)).toEqual(['dia', 'vista']);
    expect(paths((await call(`/admin/clinics/${c}/agenda/horarios?dia=amanha&lead_id=0`)).body)).toEqual(['dia', 'lead_id']);
    const badBook = await call(`/admin/clinics/${c}/agenda`, { lead_id: 'ana', inicio: '2026-12-01 10:00' });
    expect([badBook.status, badBook.body.error, paths(badBook.body)]).toEqual([422, 'dados inválidos', ['inicio', 'lead_id']]);
    expect(paths((await call(`/admin/clinics/${c}/agenda`, [1, 2])).body)).toEqual(['(body)']);
    expect(paths((await call('/admin/agendamentos/1/mover', { inicio: 5 })).body)).toEqual(['inicio']);
    expect(paths((await call('/admin/agendamentos/0/cancelar', {})).body)).toEqual(['id']);
    expect(paths((await call('/admin/agendamentos/1/cancelar', { motivo: 7 })).body)).toEqual(['motivo']);
    expect(paths((await call('/admin/agendamentos/1/presenca', { status: 'cancelado' })).body)).toEqual(['status']);
    const notJson = await fetch(`${stack.url}/admin/agendamentos/1/presenca`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
      body: '{"status":',
    });
    expect(notJson.status).toBe(400);
    expect((await call(`/admin/clinics/999999/agenda?dia=${tomorrow}`)).body.error).toBe('clínica não encontrada');
    expect((await call(`/admin/clinics/999999/agenda?dia=${tomorrow}`)).status).toBe(404);
    expect((await call(`/admin/clinics/${c}/agenda`, { lead_id: 999999, inicio: iso('10:00') })).status).toBe(404);
    for (const action of ['mover', 'cancelar', 'presenca']) {
      const res = await call(`/admin/agendamentos/999999/${action}`, { inicio: iso('10:00'), status: 'faltou' });
      expect([action, res.status, res.body.error]).toEqual([action, 404, 'agendamento não encontrado']);
    }
    expect(await rows()).toEqual([]);
  });

  it('lists a day’s free slots in the clinic’s zone', async () => {
    const { status, body } = await call<AgendaSlotsResponse>(
      `/admin/clinics/${stack.clinic.id}/agenda/horarios?dia=${tomorrow}&lead_id=${ana}`,
    );
    expect(status).toBe(200);
    expect(body.timezone).toBe('America/Sao_Paulo');
    expect(body.horarios[0]).toEqual({ inicio: iso('08:00'), hora: '08:00' });
    expect(body.horarios.at(-1)).toEqual({ inicio: iso('19:00'), hora: '19:00' });
    expect(body.horarios).toHaveLength(23);
  });

  it('books a free slot by hand (origem console) and refuses a second booking of the lead or of the slot', async () => {
    const c = stack.clinic.id;
    const booked = await call<AgendaActionResponse>(`/admin/clinics/${c}/agenda`, { lead_id: ana, inicio: iso('10:00') });
    expect(booked.status).toBe(201);
    expect(booked.body).toMatchObject({
      status: 'marcado',
      agendamento: {
        lead_id: ana,
        lead_nome: 'Ana Souza',
        inicio: iso('10:00'),
        local_inicio: `${tomorrow}T10:00`,
        origem: 'console',
        status: 'marcado',
      },
    });
    expect(await rows()).toMatchObject([{ lead_id: ana, origem: 'console', status: 'marcado', provider: 'interno' }]);
    expect(await noticed(1)).toEqual([notice('*📅 AVALIAÇÃO AGENDADA*', booked.body.agendamento.texto)]);
    // One execution of flows/agenda-action.yaml, its notice a child execution of agenda-notice.
    expect(await stack.runtime.store.get(booked.body.execution_id)).toMatchObject({
      flow: 'agenda-action',
      status: 'success',
      trigger: { body: { acao: 'marcar', clinica_id: c, lead_id: ana, inicio: spAt(tomorrow, '10:00') } },
      output: { status: 'marcado', agendamento_id: booked.body.agendamento.id },
    });
    const notices = (await stack.executions('agenda-notice')).filter((r) => r.parent_id === booked.body.execution_id);
    expect(notices.map((r) => r.status)).toEqual(['success']);
    const again = await call(`/admin/clinics/${c}/agenda`, { lead_id: ana, inicio: iso('11:00') });
    expect([again.status, again.body.error]).toEqual([409, 'este lead já tem um agendamento; remarque-o em vez de marcar outro']);
    const taken = await call<{ alternativas: unknown[] }>(`/admin/clinics/${c}/agenda`, { lead_id: bia, inicio: iso('10:00') });
    expect(taken.status).toBe(409);
    expect(taken.body.alternativas.length).toBeGreaterThan(0);
    const slots = await call<AgendaSlotsResponse>(`/admin/clinics/${c}/agenda/horarios?dia=${tomorrow}&lead_id=${bia}`);
    expect(slots.body.horarios.map((h) => h.hora)).not.toContain('10:00');
    expect(await rows()).toHaveLength(1);
    expect(toHunter()).toHaveLength(1);
  });

  it('lists the day and the week with the lead, status and origin; never the agenda column', async () => {
    const day = await call<AgendaResponse>(`/admin/clinics/${stack.clinic.id}/agenda?dia=${tomorrow}`);
    expect(day.status).toBe(200);
    expect(day.body.clinica).toEqual({
      id: stack.clinic.id,
      nome: 'Clínica Sorriso',
      agenda: true,
      timezone: 'America/Sao_Paulo',
      provider: 'interno',
      duracao_min: 60,
    });
    expect(day.body.dias).toEqual([tomorrow]);
    expect(day.body.agendamentos).toMatchObject([
      { lead_nome: 'Ana Souza', lead_remotejid: '5511987654321', status: 'marcado', origem: 'console' },
    ]);
    const week = await call<AgendaResponse>(`/admin/clinics/${stack.clinic.id}/agenda?dia=${tomorrow}&vista=semana`);
    expect(week.body.dias).toHaveLength(7);
    expect(new Date(`${week.body.dias[0]}T12:00Z`).getUTCDay()).toBe(1);
    expect(week.body.dias).toContain(tomorrow);
    expect(week.body.agendamentos).toHaveLength(1);
    expect(JSON.stringify(week.body)).not.toContain('intervalo_min');
    const other = await call<AgendaResponse>(`/admin/clinics/${stack.clinic.id}/agenda?dia=${spDate(10)}`);
    expect(other.body.agendamentos).toEqual([]);
  });

  it('moves an upcoming appointment to a free slot, shows it on the lead page, and cancels it once', async () => {
    const [row] = await rows();
    const id = Number(row!.id);
    const moved = await call<AgendaActionResponse>(`/admin/agendamentos/${id}/mover`, { inicio: iso('15:30') });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ status: 'remarcado', agendamento: { id, local_inicio: `${tomorrow}T15:30` } });
    expect((await noticed(2))[1]).toBe(notice('*📅 AVALIAÇÃO REMARCADA*', moved.body.agendamento.texto));
    expect(moved.body.agendamento.texto).toMatch(/, \d\d\/\d\d às 15:30$/);
    const busy = await call(`/admin/agendamentos/${id}/mover`, { inicio: iso('07:00') });
    expect(busy.status).toBe(409);
    const lead = await call<LeadResponse>(`/admin/leads/${ana}`);
    expect(lead.body.agendamento).toMatchObject({ id, local_inicio: `${tomorrow}T15:30`, status: 'marcado' });
    expect((await call<LeadResponse>(`/admin/leads/${bia}`)).body.agendamento).toBeNull();
    const cancelled = await call<AgendaActionResponse>(`/admin/agendamentos/${id}/cancelar`, { motivo: 'pediu por telefone' });
    expect(cancelled.body).toMatchObject({ status: 'cancelado', agendamento: { id, status: 'cancelado' } });
    expect((await noticed(3))[2]).toBe(notice('*❌ AVALIAÇÃO CANCELADA*', moved.body.agendamento.texto));
    expect((await call(`/admin/agendamentos/${id}/cancelar`, {})).status).toBe(409);
    expect((await call(`/admin/agendamentos/${id}/mover`, { inicio: iso('16:00') })).status).toBe(409);
    const attendance = await call(`/admin/agendamentos/${id}/presenca`, { status: 'compareceu' });
    expect([attendance.status, attendance.body.error]).toEqual([409, 'um agendamento cancelado não recebe presença nem falta']);
    expect(await rows()).toMatchObject([{ id, status: 'cancelado' }]);
    expect(toHunter()).toHaveLength(3);
  });

  it('marks attendance of an appointment the agent made, counted in the overview with the show rate', async () => {
    const store = storeOfYesterday(stack);
    const today = spDate(0);
    const first = await store.book({ clinicId: stack.clinic.id, leadId: ana, inicio: `${today}T08:00`, origem: 'agente' });
    const second = await store.book({ clinicId: stack.clinic.id, leadId: bia, inicio: `${today}T09:00`, origem: 'agente' });
    if (first.status === 'indisponivel' || second.status === 'indisponivel') throw new Error('today’s slots were refused');
    const came = await call<AgendaActionResponse>(`/admin/agendamentos/${first.agendamento_id}/presenca`, { status: 'compareceu' });
    expect(came.body).toMatchObject({ status: 'compareceu', agendamento: { origem: 'agente', status: 'compareceu' } });
    expect(await stack.runtime.store.get(came.body.execution_id)).toMatchObject({
      flow: 'agenda-action',
      trigger: { body: { acao: 'presenca', agendamento_id: first.agendamento_id, status: 'compareceu' } },
    });
    expect((await call(`/admin/agendamentos/${second.agendamento_id}/presenca`, { status: 'faltou' })).status).toBe(200);
    const overview = await call<OverviewResponse>('/admin/overview?days=7&tz=America/Sao_Paulo');
    const clinic = overview.body.clinics.find((s) => s.clinica_id === stack.clinic.id)!;
    expect(clinic.today.appointments).toEqual({ booked: 2, confirmed: 0, attended: 1, no_show: 1, cancelled: 0, show_rate: 0.5 });
    expect(overview.body.all.period.appointments.show_rate).toBe(0.5);
  });

  it('lists but does not book for a clinic without agenda', async () => {
    await stack.runtime.db.update('clinicas_com_atendentes', { id: stack.clinic.id }, { agenda: null });
    try {
      const day = await call<AgendaResponse>(`/admin/clinics/${stack.clinic.id}/agenda?dia=${spDate(0)}`);
      expect(day.body.clinica).toMatchObject({ agenda: false, provider: null });
      expect(day.body.agendamentos).toHaveLength(2);
      const book = await call(`/admin/clinics/${stack.clinic.id}/agenda`, { lead_id: bia, inicio: iso('12:00') });
      expect([book.status, book.body.error]).toEqual([409, 'a clínica não tem agenda configurada']);
      expect((await call(`/admin/clinics/${stack.clinic.id}/agenda/horarios?dia=${tomorrow}`)).status).toBe(409);
    } finally {
      await giveAgenda(stack);
    }
  });
});
