// The audit trail (CONTRACT §13) on both backends: every lead action and appointment change writes
// one `auditoria` row (who, what, which lead and clinic; never a text or a phone); GET
// /admin/leads/:id/audit (whoever sees the lead) and GET /admin/audit (admins only, filters checked,
// newest first); erasing a lead keeps its rows and removes its transcript. The principals other than
// the token are set on a small app of the same routes (the sign-in of accounts is not this file's).
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AgendaSlotsResponse, AgendaActionResponse } from '../../console/server/api-types.js';
import { recordAudit } from '../../console/server/audit.js';
import { mountAuditRoutes } from '../../console/server/audit-routes.js';
import { mountLeadReply } from '../../console/server/lead-reply.js';
import type { AuditResponse } from '../../console/server/people-api-types.js';
import type { Principal } from '../../console/server/principal.js';
import { forEachBackend, insertLead, type Stack, startStack } from '../e2e/stack.js';
import { giveAgenda, spDate } from './agenda-support.js';
import { ADMIN_TOKEN, signIn, type SignedIn, withSession } from './support.js';

const PHONE = '5511976543210';

forEachBackend('console audit', (backend) => {
  let stack: Stack;
  let session: SignedIn;
  let leadId: number;
  let server: ReturnType<ReturnType<typeof express>['listen']>;
  let scopedUrl: string;
  let userId: number;
  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    session = await signIn(stack);
    await giveAgenda(stack);
    leadId = Number((await insertLead(stack, PHONE, { nome: 'Beatriz Lima' })).id);
    const [user] = await stack.runtime.db
      .knex('usuarios')
      .insert({
        email: 'julia@clinica.test',
        nome: 'Júlia Recepção',
        papel: 'equipe',
        senha_hash: 'x',
        clinica_ids: JSON.stringify([stack.clinic.id]),
      })
      .returning('id');
    userId = Number(typeof user === 'object' ? user.id : user);
    // The same routes behind a principal chosen per request (header x-principal: JSON).
    const app = express();
    const router = express.Router();
    router.use((req, res, next) => {
      res.locals.principal = JSON.parse(String(req.headers['x-principal'] ?? '{"kind":"token"}')) as Principal;
      next();
    });
    mountAuditRoutes(router, stack.runtime.db);
    mountLeadReply(router, { db: stack.runtime.db, engine: stack.engine });
    app.use('/admin', router);
    server = app.listen(0);
    scopedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.close();
    await stack?.close();
  });

  const call = async <T>(path: string, body?: unknown) => {
    const res = await withSession(stack, session, path, body === undefined ? {} : { method: 'POST', body });
    return { status: res.status, body: (await res.json()) as T };
  };
  const asPrincipal = async (principal: Principal, path: string) => {
    const res = await fetch(`${scopedUrl}${path}`, { headers: { 'x-principal': JSON.stringify(principal) } });
    return { status: res.status, body: (await res.json()) as AuditResponse };
  };
  const trail = async (id = leadId) => (await call<AuditResponse>(`/admin/leads/${id}/audit`)).body.entries;
  const equipe = (clinics: number[], papel: 'admin' | 'equipe' | 'hunter' = 'equipe'): Principal => ({
    kind: 'user',
    id: userId,
    email: 'julia@clinica.test',
    nome: 'Júlia Recepção',
    papel,
    clinica_ids: clinics,
  });

  it('each lead action writes one row naming the action, the lead and its clinic', async () => {
    for (const action of ['pause', 'resume', 'transfer', 'untransfer', 'reset'])
      expect((await call(`/admin/leads/${leadId}/actions`, { action })).status).toBe(200);
    const entries = await trail();
    expect(entries.map((e) => e.acao)).toEqual([
      'lead_limpar_memoria',
      'lead_destransferir',
      'lead_transferir',
      'lead_retomar',
      'lead_pausar',
    ]);
    for (const e of entries)
      expect(e).toMatchObject({
        usuario_id: null,
        usuario_nome: 'Token de administração',
        clinica_id: stack.clinic.id,
        lead_id: leadId,
        detalhes: { status: 'success' },
      });
  });

  it('each appointment change writes one row: book, move, cancel, attendance', async () => {
    const c = stack.clinic.id;
    const slots = await call<AgendaSlotsResponse>(`/admin/clinics/${c}/agenda/horarios?dia=${spDate(1)}&lead_id=${leadId}`);
    const [first, second, third] = slots.body.horarios;
    const booked = await call<AgendaActionResponse>(`/admin/clinics/${c}/agenda`, { lead_id: leadId, inicio: first!.inicio });
    expect(booked.status).toBe(201);
    const id = booked.body.agendamento.id;
    expect((await call(`/admin/agendamentos/${id}/mover`, { inicio: second!.inicio })).status).toBe(200);
    expect((await call(`/admin/agendamentos/${id}/cancelar`, { motivo: 'ligou pedindo' })).status).toBe(200);
    const again = await call<AgendaActionResponse>(`/admin/clinics/${c}/agenda`, { lead_id: leadId, inicio: third!.inicio });
    expect((await call(`/admin/agendamentos/${again.body.agendamento.id}/presenca`, { status: 'compareceu' })).status).toBe(200);
    const agenda = (await trail()).filter((e) => e.acao.startsWith('agenda_'));
    expect(agenda.map((e) => [e.acao, e.detalhes.status])).toEqual([
      ['agenda_presenca', 'compareceu'],
      ['agenda_marcar', 'marcado'],
      ['agenda_cancelar', 'cancelado'],
      ['agenda_mover', 'remarcado'],
      ['agenda_marcar', 'marcado'],
    ]);
    expect(agenda[4]!.detalhes.agendamento_id).toBe(id);
    // No row holds the lead's phone, name or a text typed in the console.
    const raw = await stack.runtime.db.knex('auditoria').select('detalhes');
    for (const row of raw) for (const trace of [PHONE.slice(-8), 'Beatriz', 'ligou pedindo']) expect(row.detalhes).not.toContain(trace);
  });

  it('GET /admin/audit filters, orders newest first and refuses bad filters with 422', async () => {
    await recordAudit(stack.runtime.db, equipe([stack.clinic.id]), { acao: 'resposta', clinica_id: stack.clinic.id, lead_id: leadId });
    const all = (await call<AuditResponse>('/admin/audit')).body.entries;
    expect(all[0]).toMatchObject({ acao: 'resposta', usuario_id: userId, usuario_nome: 'Júlia Recepção' });
    const times = all.map((e) => Date.parse(e.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const only = async (query: string) => (await call<AuditResponse>(`/admin/audit?${query}`)).body.entries;
    expect((await only(`usuario_id=${userId}`)).map((e) => e.acao)).toEqual(['resposta']);
    expect((await only('usuario_id=token')).every((e) => e.usuario_id === null)).toBe(true);
    expect((await only('acao=lead_pausar')).map((e) => e.lead_id)).toEqual([leadId]);
    expect(await only(`clinica_id=${stack.clinic.id + 1000}`)).toEqual([]);
    expect(await only(`lead_id=${leadId}&limit=2`)).toHaveLength(2);
    expect(await only('before=2001-01-01')).toEqual([]);
    expect(await only(`after=${spDate(2)}`)).toEqual([]);
    expect((await only(`after=2001-01-01T00:00:00Z&before=${spDate(2)}`)).length).toBe(all.length);
    for (const bad of ['acao=voar', 'limit=0', 'limit=501', 'lead_id=abc', 'usuario_id=-1', 'before=ontem', 'cor=azul', 'acao=a&acao=b']) {
      const res = await call<{ details: Array<{ path: string }> }>(`/admin/audit?${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.details.length, bad).toBeGreaterThan(0);
    }
  });

  it("the whole trail is admins' only; a lead's trail is whoever sees the lead's", async () => {
    expect((await asPrincipal({ kind: 'token' }, '/admin/audit')).status).toBe(200);
    expect((await asPrincipal(equipe([], 'admin'), '/admin/audit')).status).toBe(200);
    expect((await asPrincipal(equipe([stack.clinic.id]), '/admin/audit')).status).toBe(403);
    expect((await asPrincipal(equipe([stack.clinic.id], 'hunter'), '/admin/audit')).status).toBe(403);
    const own = await asPrincipal(equipe([stack.clinic.id]), `/admin/leads/${leadId}/audit`);
    expect(own.status).toBe(200);
    expect(own.body.entries.length).toBeGreaterThan(0);
    expect((await asPrincipal(equipe([stack.clinic.id + 1000]), `/admin/leads/${leadId}/audit`)).status).toBe(404);
    // A hunter sees only transferred or booked leads: this one had its appointment (attended) kept.
    const untouched = Number((await insertLead(stack, '5511976540000')).id);
    expect((await asPrincipal(equipe([stack.clinic.id], 'hunter'), `/admin/leads/${untouched}/audit`)).status).toBe(404);
  });

  it("a person's reply is theirs: named in memory and transcript, audited with their account; another clinic's lead is 404", async () => {
    const replyAs = async (principal: Principal, id: number) => {
      const res = await fetch(`${scopedUrl}/admin/leads/${id}/messages`, {
        method: 'POST',
        headers: { 'x-principal': JSON.stringify(principal), 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'Oi Beatriz, aqui é a Júlia.' }),
      });
      return res.status;
    };
    const before = stack.gateway.requestsTo('/send/text').length;
    expect(await replyAs(equipe([stack.clinic.id + 1000]), leadId)).toBe(404);
    expect(stack.gateway.requestsTo('/send/text')).toHaveLength(before);
    expect(await replyAs(equipe([stack.clinic.id]), leadId)).toBe(201);
    expect(stack.gateway.requestsTo('/send/text')).toHaveLength(before + 1);
    const memory = await stack.runtime.db.knex('wf_chat_histories').where({ session_id: PHONE, type: 'operator' });
    expect(memory.map((r) => r.autor)).toEqual(['Júlia Recepção']);
    expect(await stack.runtime.db.knex('mensagens').where({ lead_id: leadId, autor: 'equipe', tipo: 'texto' }).first()).toMatchObject({
      autor_nome: 'Júlia Recepção',
    });
    expect((await trail())[0]).toMatchObject({ acao: 'resposta', usuario_id: userId, usuario_nome: 'Júlia Recepção' });
  });

  it('erasing the lead keeps its audit rows (lead_id kept) and removes its transcript', async () => {
    const db = stack.runtime.db;
    for (const [direcao, autor, conteudo] of [
      ['entrada', 'lead', 'Quero clarear os dentes'],
      ['saida', 'agente', 'Claro, Beatriz!'],
    ])
      await db.knex('mensagens').insert({ clinica_id: stack.clinic.id, lead_id: leadId, direcao, autor, tipo: 'texto', conteudo });
    const before = (await call<AuditResponse>(`/admin/audit?lead_id=${leadId}&limit=500`)).body.entries;
    expect((await call(`/admin/leads/${leadId}/actions`, { action: 'erase', confirm: PHONE })).status).toBe(200);
    expect(await db.get('leads', { id: leadId })).toBeNull();
    expect(await db.knex('mensagens').where({ lead_id: leadId })).toEqual([]);
    const after = (await call<AuditResponse>(`/admin/audit?lead_id=${leadId}&limit=500`)).body.entries;
    expect(after.map((e) => e.id)).toEqual([expect.any(Number), ...before.map((e) => e.id)]);
    expect(after[0]).toMatchObject({ acao: 'lead_excluir', lead_id: leadId, clinica_id: stack.clinic.id });
    // The lead's own page is gone: its trail answers 404 like any unknown lead.
    expect((await call(`/admin/leads/${leadId}/audit`)).status).toBe(404);
  });
});
