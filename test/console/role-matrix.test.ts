// Roles enforced on the server (CONTRACT.md §13): every console endpoint × who asks (an admin
// account, an equipe of clinic 1, a hunter of clinic 1, the admin token by bearer, nobody) answers
// the status of the table below, and the lists hold only the rows that principal may see.
// Clinic 1 has lead A (transferred: the hunter's), lead B (plain: not the hunter's) and lead D (an
// appointment: the hunter's); clinic 2 has lead C with an appointment (nobody's but the admins').
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, forEachBackend, insertLead, type Stack, startStack } from '../e2e/stack.js';
import { makeAccount, secondClinic, signInAs } from './accounts-support.js';
import { ADMIN_TOKEN, type SignedIn, withBearer, withSession } from './support.js';

type Who = 'admin' | 'equipe' | 'hunter' | 'token' | 'none';
const WHO: Who[] = ['admin', 'equipe', 'hunter', 'token', 'none'];

interface Fixture {
  clinicTwo: number;
  leads: { a: number; b: number; c: number; d: number };
  appointmentC: number;
}

/** One row of the table: a request and the status each principal gets (`none` is always 401). */
interface Case {
  name: string;
  method?: 'GET' | 'POST';
  path: (f: Fixture) => string;
  body?: (n: number) => unknown;
  status: Record<Exclude<Who, 'none'>, number>;
}

const ALL = (status: number) => ({ admin: status, equipe: status, hunter: status, token: status });
const ADMINS_ONLY = (status: number) => ({ admin: status, equipe: 403, hunter: 403, token: status });
/** The agenda's query: the week holding yesterday (when the appointments are). */
const DAY = `?vista=semana&dia=${new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)}`;
const OWN_CLINIC_ONLY = (status: number) => ({ admin: status, equipe: 404, hunter: 404, token: status });

const CASES: Case[] = [
  { name: 'clinics', path: () => '/admin/clinics', status: ALL(200) },
  { name: 'leads', path: () => '/admin/leads', status: ALL(200) },
  { name: 'transferred lead of clinic 1', path: (f) => `/admin/leads/${f.leads.a}`, status: ALL(200) },
  {
    name: 'plain lead of clinic 1',
    path: (f) => `/admin/leads/${f.leads.b}`,
    status: { admin: 200, equipe: 200, hunter: 404, token: 200 },
  },
  { name: 'lead of clinic 2', path: (f) => `/admin/leads/${f.leads.c}`, status: OWN_CLINIC_ONLY(200) },
  { name: 'overview', path: () => '/admin/overview', status: ALL(200) },
  { name: 'agenda of clinic 1', path: () => `/admin/clinics/1/agenda${DAY}`, status: ALL(200) },
  { name: 'agenda of clinic 2', path: (f) => `/admin/clinics/${f.clinicTwo}/agenda${DAY}`, status: OWN_CLINIC_ONLY(200) },
  { name: 'executions', path: () => '/admin/executions', status: ADMINS_ONLY(200) },
  { name: 'one execution', path: () => '/admin/executions/nope', status: ADMINS_ONLY(404) },
  { name: 'flows', path: () => '/admin/flows', status: ADMINS_ONLY(200) },
  { name: 'one flow', path: () => '/admin/flows/lead-action', status: ADMINS_ONLY(200) },
  { name: 'users', path: () => '/admin/users', status: ADMINS_ONLY(200) },
  {
    name: 'add user',
    method: 'POST',
    path: () => '/admin/users',
    body: (n) => ({ email: `nova${n}@clinica.test`, nome: 'Nova', papel: 'equipe', clinica_ids: [1] }),
    status: ADMINS_ONLY(201),
  },
  { name: 'reset a password', method: 'POST', path: () => '/admin/users/999/reset-password', status: ADMINS_ONLY(404) },
  { name: 'disable a user', method: 'POST', path: () => '/admin/users/999/disable', status: ADMINS_ONLY(404) },
  { name: 'replay', method: 'POST', path: () => '/admin/executions/nope/replay', status: ADMINS_ONLY(404) },
  {
    name: 'pause lead A',
    method: 'POST',
    path: (f) => `/admin/leads/${f.leads.a}/actions`,
    body: () => ({ action: 'pause' }),
    status: ALL(200),
  },
  {
    name: 'pause lead C (clinic 2)',
    method: 'POST',
    path: (f) => `/admin/leads/${f.leads.c}/actions`,
    body: () => ({ action: 'pause' }),
    status: OWN_CLINIC_ONLY(200),
  },
  {
    name: 'attendance of clinic 2',
    method: 'POST',
    path: (f) => `/admin/agendamentos/${f.appointmentC}/presenca`,
    body: () => ({ status: 'bogus' }),
    status: { admin: 422, equipe: 422, hunter: 422, token: 422 },
  },
  {
    name: 'cancel in clinic 2',
    method: 'POST',
    path: (f) => `/admin/agendamentos/${f.appointmentC}/cancelar`,
    body: () => ({}),
    status: { admin: 409, equipe: 404, hunter: 404, token: 409 },
  },
];

forEachBackend('console roles', (backend: Backend) => {
  let stack: Stack;
  let fixture: Fixture;
  const sessions = new Map<Who, SignedIn>();
  let counter = 0;

  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    const clinicTwo = await secondClinic(stack);
    const lead = async (phone: string, fields: Record<string, unknown> = {}) => Number((await insertLead(stack, phone, fields)).id);
    const leads = {
      a: await lead('5511900000001', { transferido: true }),
      b: await lead('5511900000002'),
      c: await lead('5511900000003', { clinica_id: clinicTwo }),
      d: await lead('5511900000004'),
    };
    const appointment = (clinica_id: number, lead_id: number) =>
      stack.runtime.db.insert('agendamentos', {
        clinica_id,
        lead_id,
        inicio: new Date(Date.now() - 86_400_000).toISOString(),
        fim: new Date(Date.now() - 86_400_000 + 1_800_000).toISOString(),
        origem: 'console',
      });
    await appointment(stack.clinic.id, leads.d);
    const appointmentC = Number((await appointment(clinicTwo, leads.c)).id);
    fixture = { clinicTwo, leads, appointmentC };
    sessions.set('admin', await signInAs(stack, await makeAccount(stack, 'admin@clinica.test', 'admin')));
    sessions.set('equipe', await signInAs(stack, await makeAccount(stack, 'equipe@clinica.test', 'equipe', [stack.clinic.id])));
    sessions.set('hunter', await signInAs(stack, await makeAccount(stack, 'hunter@clinica.test', 'hunter', [stack.clinic.id])));
  });
  afterAll(() => stack?.close());

  function ask(who: Who, c: Case): Promise<Response> {
    const init = { method: c.method ?? 'GET', ...(c.body ? { body: c.body(++counter) } : c.method === 'POST' ? { body: {} } : {}) };
    if (who === 'token') return withBearer(stack, c.path(fixture), init);
    if (who === 'none') return fetch(`${stack.url}${c.path(fixture)}`, { method: init.method });
    return withSession(stack, sessions.get(who)!, c.path(fixture), init);
  }

  for (const c of CASES) {
    it(`${c.method ?? 'GET'} ${c.name}: ${WHO.map((w) => `${w} ${w === 'none' ? 401 : c.status[w]}`).join(', ')}`, async () => {
      for (const who of WHO) {
        const res = await ask(who, c);
        const expected = who === 'none' ? 401 : c.status[who];
        expect({ who, status: res.status }).toEqual({ who, status: expected });
      }
    });
  }

  async function list<T>(who: Who, path: string): Promise<T> {
    const res = await ask(who, { name: path, path: () => path, status: ALL(200) });
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  }

  it('lists only the rows each principal may see', async () => {
    const { leads, clinicTwo } = fixture;
    const expectedLeads: Record<Exclude<Who, 'none'>, number[]> = {
      admin: [leads.a, leads.b, leads.c, leads.d],
      token: [leads.a, leads.b, leads.c, leads.d],
      equipe: [leads.a, leads.b, leads.d],
      hunter: [leads.a, leads.d],
    };
    for (const who of ['admin', 'equipe', 'hunter', 'token'] as const) {
      const all = who === 'admin' || who === 'token';
      const clinics = await list<{ clinics: Array<{ id: number }> }>(who, '/admin/clinics');
      expect({ who, clinics: clinics.clinics.map((c) => c.id) }).toEqual({
        who,
        clinics: all ? [stack.clinic.id, clinicTwo] : [stack.clinic.id],
      });
      const found = await list<{ leads: Array<{ id: number }>; total: number }>(who, '/admin/leads');
      expect({ who, leads: found.leads.map((l) => l.id).sort((x, y) => x - y), total: found.total }).toEqual({
        who,
        leads: expectedLeads[who],
        total: expectedLeads[who].length,
      });
      const overview = await list<{ clinics: Array<{ clinica_id: number | null }> }>(who, '/admin/overview');
      const seriesClinics = overview.clinics.map((c) => c.clinica_id).filter((id) => id !== null);
      expect({ who, series: seriesClinics }).toEqual({ who, series: all ? [stack.clinic.id, clinicTwo] : [stack.clinic.id] });
    }
  });

  it('shows a hunter the appointments of its leads only, and the clinic people no executions on a lead page', async () => {
    const agenda = (who: Who) => list<{ agendamentos: Array<{ lead_id: number }> }>(who, `/admin/clinics/1/agenda${DAY}`);
    for (const who of ['equipe', 'hunter', 'admin'] as const)
      expect({ who, leads: (await agenda(who)).agendamentos.map((a) => a.lead_id) }).toEqual({ who, leads: [fixture.leads.d] });
    // A hunter's agenda leaves out an appointment of a lead it may not see (a cancelled one of lead B).
    await stack.runtime.db.insert('agendamentos', {
      clinica_id: stack.clinic.id,
      lead_id: fixture.leads.b,
      inicio: new Date(Date.now() - 86_400_000 + 3_600_000).toISOString(),
      fim: new Date(Date.now() - 86_400_000 + 5_400_000).toISOString(),
      origem: 'console',
      status: 'cancelado',
    });
    expect((await agenda('hunter')).agendamentos.map((a) => a.lead_id)).toEqual([fixture.leads.d]);
    expect((await agenda('equipe')).agendamentos.map((a) => a.lead_id).sort()).toEqual([fixture.leads.b, fixture.leads.d].sort());
    const page = await list<{ executions: unknown[] }>('equipe', `/admin/leads/${fixture.leads.a}`);
    expect(page.executions).toEqual([]);
    const adminPage = await list<{ executions: unknown[] }>('admin', `/admin/leads/${fixture.leads.a}`);
    expect(adminPage.executions.length).toBeGreaterThan(0);
  });
});

describe('role matrix table', () => {
  it('covers every role for every case', () => {
    for (const c of CASES) expect(Object.keys(c.status).sort()).toEqual(['admin', 'equipe', 'hunter', 'token']);
  });
});
