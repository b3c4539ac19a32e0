// The leads list's "waiting for a person" (CONTRACT §13): a lead waits when its newest transcript
// row (`mensagens`, events aside) is its own while the agent is paused or it was transferred. Each
// lead carries `aguardando`, `?aguardando=1` keeps only those, `aguardando_total` counts them; the
// last message shown is the conversation's last in either direction (the transcript's, else the
// `leads` column). Transcript rows are inserted directly, as the flows would write them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LeadResponse, LeadsResponse } from '../../console/server/api-types.js';
import { forEachBackend, type Stack, startStack } from '../e2e/stack.js';
import { ADMIN_TOKEN, signIn, type SignedIn, withSession } from './support.js';

const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

forEachBackend('console leads waiting for a person', (backend) => {
  let stack: Stack;
  let session: SignedIn;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
    session = await signIn(stack);
    const clinica_id = stack.clinic.id;
    const db = stack.runtime.db;
    const add = async (key: string, values: Record<string, unknown>, transcript: Array<[string, string, number]>) => {
      const id = Number((await db.insert('leads', { clinica_id, instancia_id: stack.clinic.instanceId, ...values })).id);
      ids[key] = id;
      for (const [direcao, conteudo, minutesAgo] of transcript) {
        const evento = direcao === 'evento';
        await db.insert('mensagens', {
          clinica_id,
          lead_id: id,
          direcao: evento ? 'saida' : direcao,
          autor: evento ? 'sistema' : direcao === 'entrada' ? 'lead' : 'agente',
          tipo: evento ? 'evento' : 'texto',
          conteudo,
          created_at: at(minutesAgo),
        });
      }
    };
    // Paused, and she wrote after the pause began: waits (the pause event after her is no message).
    await add('paula', { nome: 'Paula', remotejid: '5511900000001', pausado_ate: at(-60), ultima_mensagem_at: at(50) }, [
      ['saida', 'Olá Paula!', 9],
      ['entrada', 'Ainda estou esperando', 4],
      ['evento', 'Agente pausado', 3],
    ]);
    // Transferred, and he wrote last: waits.
    await add('tiago', { nome: 'Tiago', remotejid: '5511900000002', transferido: true }, [['entrada', 'Alguém me atende?', 6]]);
    // Transferred, but the clinic answered last: does not wait.
    await add('rita', { nome: 'Rita', remotejid: '5511900000003', transferido: true }, [
      ['entrada', 'Oi', 8],
      ['saida', 'Oi Rita, aqui é a recepção', 7],
    ]);
    // Wrote last but the agent is answering (not paused, not transferred): does not wait.
    await add('ana', { nome: 'Ana', remotejid: '5511900000004', ultima_mensagem: 'velha', ultima_mensagem_at: at(90) }, [
      ['entrada', 'quanto custa?', 2],
    ]);
    // A pause that ended: does not wait.
    await add('bia', { nome: 'Bia', remotejid: '5511900000005', pausado_ate: at(1) }, [['entrada', 'oi?', 5]]);
    // The agent greeted her and she never answered: her last message is the greeting.
    await add('greeted', { nome: 'Gabi', remotejid: '5511900000006' }, [['saida', 'Olá Gabi, sou a assistente da clínica', 12]]);
    // No transcript at all: the leads columns.
    await add('old', { nome: 'Otto', remotejid: '5511900000007', ultima_mensagem: 'de antes', ultima_mensagem_at: at(30) }, []);
  });
  afterAll(() => stack?.close());

  const get = async <T>(path: string): Promise<T> => {
    const res = await withSession(stack, session, path);
    expect(res.status).toBe(200);
    return (await res.json()) as T;
  };

  it('marks the leads waiting for a person and counts them', async () => {
    const body = await get<LeadsResponse>(`/admin/leads?clinica_id=${stack.clinic.id}`);
    expect(body.total).toBe(7);
    expect(body.aguardando_total).toBe(2);
    const waiting = Object.fromEntries(body.leads.map((l) => [l.nome, l.aguardando]));
    expect(waiting).toEqual({ Paula: true, Tiago: true, Rita: false, Ana: false, Bia: false, Gabi: false, Otto: false });
  });

  it('filters to the waiting leads with ?aguardando=1 (count and page alike)', async () => {
    const body = await get<LeadsResponse>(`/admin/leads?clinica_id=${stack.clinic.id}&aguardando=1`);
    expect(body.leads.map((l) => l.nome)).toEqual(['Paula', 'Tiago']);
    expect(body.total).toBe(2);
    expect(body.aguardando_total).toBe(2);
    const searched = await get<LeadsResponse>(`/admin/leads?aguardando=1&q=tia`);
    expect(searched.leads.map((l) => l.nome)).toEqual(['Tiago']);
    expect(searched.aguardando_total).toBe(1);
    const all = await get<LeadsResponse>(`/admin/leads?aguardando=0`);
    expect(all.total).toBe(7);
    const bad = await withSession(stack, session, '/admin/leads?aguardando=sim');
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { details: Array<{ path: string }> }).details.map((d) => d.path)).toEqual(['aguardando']);
  });

  it('shows the last message in either direction, newest first, events aside', async () => {
    const body = await get<LeadsResponse>(`/admin/leads?clinica_id=${stack.clinic.id}`);
    expect(body.leads.map((l) => [l.nome, l.ultima_mensagem])).toEqual([
      ['Ana', 'quanto custa?'],
      ['Paula', 'Ainda estou esperando'],
      ['Bia', 'oi?'],
      ['Tiago', 'Alguém me atende?'],
      ['Rita', 'Oi Rita, aqui é a recepção'],
      ['Gabi', 'Olá Gabi, sou a assistente da clínica'],
      ['Otto', 'de antes'],
    ]);
    const gabi = body.leads.find((l) => l.nome === 'Gabi')!;
    expect(Math.abs(Date.parse(gabi.ultima_mensagem_at!) - Date.parse(at(12)))).toBeLessThan(2000);
  });

  it("gives the lead's page the same last message and mark", async () => {
    const paula = await get<LeadResponse>(`/admin/leads/${ids.paula}`);
    expect(paula.lead).toMatchObject({ aguardando: true, ultima_mensagem: 'Ainda estou esperando' });
    const rita = await get<LeadResponse>(`/admin/leads/${ids.rita}`);
    expect(rita.lead).toMatchObject({ aguardando: false, ultima_mensagem: 'Oi Rita, aqui é a recepção' });
  });
});
