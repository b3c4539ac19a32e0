// The console's lead endpoints (issue 14) on the in-process stack: clinics, the leads listing
// (search by name, accents and case ignored, and by phone; pagination; bad parameters), a lead's page
// (its conversation in order, an operator row included; its executions), and 422 / 404.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { forEachBackend, type Stack, startStack } from '../e2e/stack.js';
import type { LeadResponse, LeadsResponse } from '../../console/server/api-types.js';
import { ADMIN_TOKEN, signIn, type SignedIn, withSession } from './support.js';

const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

forEachBackend('console leads', (backend) => {
  let stack: Stack;
  let session: SignedIn;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    session = await signIn(stack);
    const clinica_id = stack.clinic.id;
    const add = async (key: string, values: Record<string, unknown>) => {
      ids[key] = Number((await stack.runtime.db.insert('leads', { clinica_id, instancia_id: stack.clinic.instanceId, ...values })).id);
    };
    // José got the holding message (no AI provider answered him) and waits for someone.
    await add('jose', {
      nome: 'José Antônio',
      remotejid: '5511911112222',
      ultima_mensagem: 'oi',
      ultima_mensagem_at: at(1),
      sem_resposta_at: at(1),
    });
    await add('ana', { nome: 'Ana Souza', remotejid: '5511987654321', ultima_mensagem: 'quanto custa?', ultima_mensagem_at: at(5) });
    await add('paused', { nome: 'Bia', remotejid: '5511933334444', pausado_ate: at(-60), ultima_mensagem_at: at(10) });
    await add('moved', { nome: 'Caio', remotejid: '5511955556666', transferido: true, optout_at: at(30), ultima_mensagem_at: at(20) });
    await add('quiet', { nome: 'Davi', remotejid: '5511977778888', optout_at: at(30) });
    const history = [
      { type: 'lead', content: 'Olá, quero saber das lentes' },
      { type: 'agent', content: 'Olá Ana! Posso ajudar.' },
      { type: 'operator', content: 'Aqui é a Mariana, da recepção.' },
      { type: 'lead', content: 'quanto custa?' },
    ];
    for (const row of history) await stack.runtime.db.insert('wf_chat_histories', { clinica_id, session_id: '5511987654321', ...row });
    await stack.runtime.db.insert('wf_chat_histories', { clinica_id, session_id: '5511911112222', type: 'lead', content: 'de outro' });
  });
  afterAll(() => stack?.close());

  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const res = await withSession(stack, session, path);
    return { status: res.status, body: (await res.json()) as T };
  };
  const names = (r: LeadsResponse) => r.leads.map((l) => l.nome);

  it('lists the clinics', async () => {
    const { status, body } = await get<{ clinics: unknown[] }>('/admin/clinics');
    expect(status).toBe(200);
    expect(body.clinics).toEqual([{ id: stack.clinic.id, nome: 'Clínica Sorriso' }]);
  });

  it('lists leads newest last message first (those without one last), each with its state', async () => {
    const { status, body } = await get<LeadsResponse>(`/admin/leads?clinica_id=${stack.clinic.id}`);
    expect(status).toBe(200);
    expect(body.total).toBe(5);
    expect(names(body)).toEqual(['José Antônio', 'Ana Souza', 'Bia', 'Caio', 'Davi']);
    expect(body.leads.map((l) => l.state)).toEqual(['conversing', 'conversing', 'paused', 'transferred', 'opted_out']);
    // "Sem resposta" beside the state: only the lead still waiting after the holding message.
    expect(body.leads.map((l) => l.sem_resposta_at !== null)).toEqual([true, false, false, false, false]);
    const ana = body.leads[1]!;
    expect(ana).toMatchObject({
      id: ids.ana,
      clinica_id: stack.clinic.id,
      remotejid: '5511987654321',
      transferido: false,
      ultima_mensagem: 'quanto custa?',
    });
    expect(Date.parse(ana.ultima_mensagem_at!)).toBeGreaterThan(Date.now() - 10 * 60_000);
    expect(typeof ana.created_at).toBe('string');
    expect((await get<LeadsResponse>('/admin/leads?clinica_id=999')).body).toEqual({ leads: [], total: 0, aguardando_total: 0 });
  });

  it('searches by name, accents and case ignored, and by phone digits', async () => {
    const search = async (q: string) => names((await get<LeadsResponse>(`/admin/leads?q=${encodeURIComponent(q)}`)).body);
    expect(await search('jose')).toEqual(['José Antônio']);
    expect(await search('ANTONIO')).toEqual(['José Antônio']);
    expect(await search('antônio')).toEqual(['José Antônio']);
    expect(await search('souza')).toEqual(['Ana Souza']);
    expect(await search('98765')).toEqual(['Ana Souza']);
    expect(await search('(11) 98765-4321')).toEqual(['Ana Souza']);
    expect(await search('55119')).toEqual(['José Antônio', 'Ana Souza', 'Bia', 'Caio', 'Davi']);
    expect(await search('100%')).toEqual([]);
    expect(await search('zé')).toEqual([]);
  });

  it('pages with limit and offset, the total counting every match', async () => {
    const first = (await get<LeadsResponse>('/admin/leads?limit=2')).body;
    const second = (await get<LeadsResponse>('/admin/leads?limit=2&offset=2')).body;
    const last = (await get<LeadsResponse>('/admin/leads?limit=2&offset=4')).body;
    expect([first.total, second.total, last.total]).toEqual([5, 5, 5]);
    expect([names(first), names(second), names(last)]).toEqual([['José Antônio', 'Ana Souza'], ['Bia', 'Caio'], ['Davi']]);
    expect((await get<LeadsResponse>('/admin/leads?offset=10')).body).toEqual({ leads: [], total: 5, aguardando_total: 0 });
  });

  it('answers 422 to bad parameters, naming each', async () => {
    for (const query of [
      'limit=0',
      'limit=201',
      'limit=x',
      'offset=-1',
      'offset=1.5',
      'clinica_id=abc',
      'clinica_id=0',
      'q=a&q=b',
      `q=${'a'.repeat(201)}`,
    ]) {
      const { status, body } = await get<{ error: string; details: Array<{ path: string }> }>(`/admin/leads?${query}`);
      expect(status, query).toBe(422);
      expect(body.error, query).toBe('invalid query');
      expect(
        body.details.map((d) => d.path),
        query,
      ).toEqual([query.slice(0, query.indexOf('='))]);
    }
  });

  it("shows a lead's page: the lead, its conversation oldest first with the operator's row, its executions", async () => {
    // One execution about Ana (a lead-action), one about someone else.
    await withSession(stack, session, `/admin/leads/${ids.ana}/actions`, { method: 'POST', body: { action: 'resume' } });
    await withSession(stack, session, `/admin/leads/${ids.jose}/actions`, { method: 'POST', body: { action: 'resume' } });
    const { status, body } = await get<LeadResponse>(`/admin/leads/${ids.ana}`);
    expect(status).toBe(200);
    expect(body.lead).toMatchObject({ id: ids.ana, nome: 'Ana Souza', state: 'conversing', handoff_enviado: false, handoff_at: null });
    expect(body.lead.instancia_id).toBe(stack.clinic.instanceId);
    expect(body.messages.map((m) => [m.type, m.content])).toEqual([
      ['lead', 'Olá, quero saber das lentes'],
      ['agent', 'Olá Ana! Posso ajudar.'],
      ['operator', 'Aqui é a Mariana, da recepção.'],
      ['lead', 'quanto custa?'],
    ]);
    expect(body.executions).toHaveLength(1);
    expect(body.executions[0]).toMatchObject({ flow: 'lead-action', status: 'success', stop_reason: null });
    expect(body.executions[0]!.finished_at).not.toBeNull();
  });

  it("shows the lead's latest handoff: its reason and the summary the Hunter got", async () => {
    expect((await get<LeadResponse>(`/admin/leads/${ids.jose}`)).body.handoff).toBeNull();
    const res = await stack.post('/handoff-agenteia', { telefone: '5511911112222', motivo: 'Quer agendar avaliação' });
    expect(res.status).toBe(200);
    await stack.idle();
    const { body } = await get<LeadResponse>(`/admin/leads/${ids.jose}`);
    const handoff = (await stack.executions('handoff')).find((r) => r.status === 'success')!;
    expect(body.handoff).toMatchObject({ motivo: 'Quer agendar avaliação', execution_id: handoff.id, at: handoff.created_at });
    // José has one lead row in memory: the summary is the model's answer (the fake OpenAI's text).
    const summary = handoff.steps.find((step) => step.id === 'summary')!.output as { summary: string };
    expect(body.handoff!.resumo).toBe(summary.summary);
    expect(body.handoff!.resumo).not.toBe('');
  });

  it('answers 404 to an unknown lead and 422 to a malformed id', async () => {
    expect((await get<{ error: string }>('/admin/leads/999999')).status).toBe(404);
    for (const id of ['abc', '0']) {
      const { status, body } = await get<{ details: Array<{ path: string }> }>(`/admin/leads/${id}`);
      expect(status, id).toBe(422);
      expect(
        body.details.map((d) => d.path),
        id,
      ).toEqual(['id']);
    }
  });
});
