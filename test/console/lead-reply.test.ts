// POST /admin/leads/:id/messages (CONTRACT §13) on every gateway provider and both backends, over
// the shipped flows: the reply goes through the lead's instance, is one `operator` memory row with
// `autor` and one transcript row, pauses the agent (follow-up dropped, unanswered mark cleared, an
// event row) and writes a `resposta` audit row without text or phone; the gateway's echo of it
// (uazapi wasSentByApi, Evolution's echoed id, a Cloud status) records nothing and does not extend
// the pause. Cloud outside the 24-hour window: 409 `window`, then the follow_up template; bad bodies
// 422 and an opted-out lead 409 until confirmed, nothing sent.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CustomerWindow } from '../../adapters/gateway/cloud/customer-window.js';
import type { ReplyConflict, ReplyResponse } from '../../console/server/people-api-types.js';
import { echo, forEachProvider, post, sent } from '../e2e/providers.js';
import { forEachBackend, insertLead, type Stack, startStack } from '../e2e/stack.js';
import { ADMIN_TOKEN, signIn, type SignedIn, withSession } from './support.js';

const TAKEOVER_MS = 3_600_000;
let sequence = 0;
const nextPhone = () => `55119${String(70000000 + process.pid * 10 + ++sequence).slice(-8)}`;

forEachProvider('console reply', (provider, title) => {
  forEachBackend(title, (backend) => {
    let stack: Stack;
    let session: SignedIn;
    beforeAll(async () => {
      stack = await startStack({
        backend,
        provider,
        env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN, LEADFLOW_TAKEOVER_MS: String(TAKEOVER_MS) },
      });
      session = await signIn(stack);
    });
    afterAll(() => stack?.close());

    const reply = async (id: number, body: unknown) => {
      const res = await withSession(stack, session, `/admin/leads/${id}/messages`, { method: 'POST', body });
      return { status: res.status, body: (await res.json()) as ReplyResponse & ReplyConflict };
    };
    /** A lead of the stack's clinic that wrote just now (its Cloud window open). */
    const newLead = async (fields: Record<string, unknown> = {}, windowOpen = true) => {
      const phone = nextPhone();
      const row = await insertLead(stack, phone, { nome: 'Ana Souza', ...fields });
      if (windowOpen) await new CustomerWindow(stack.runtime.services.kv).noteInbound(stack.instance.id, phone, Date.now());
      return { id: Number(row.id), phone };
    };
    const operatorRows = (phone: string) =>
      stack.runtime.db.knex('wf_chat_histories').where({ clinica_id: stack.clinic.id, session_id: phone, type: 'operator' });
    const transcript = (leadId: number) => stack.runtime.db.knex('mensagens').where({ lead_id: leadId }).orderBy('id');
    const requests = () => provider.sendRequests(stack.fake).length;

    it('sends through the instance, records memory and transcript, pauses the agent; the echo changes nothing', async () => {
      const lead = await newLead({ sem_resposta_at: new Date() });
      const before = Date.now();
      const answer = await reply(lead.id, { text: 'Olá Ana, aqui é a Júlia da recepção.' });
      expect(answer.status).toBe(201);
      const out = sent(stack).filter((m) => m.number === lead.phone);
      expect(out.map((m) => m.text)).toEqual(['Olá Ana, aqui é a Júlia da recepção.']);
      expect(out[0]!.authenticated).toBe(true);
      expect(answer.body.message).toMatchObject({
        direcao: 'saida',
        autor: 'equipe',
        autor_nome: 'Token de administração',
        tipo: 'texto',
        conteudo: 'Olá Ana, aqui é a Júlia da recepção.',
      });
      const until = Date.parse(answer.body.pausado_ate!);
      expect(until).toBeGreaterThanOrEqual(before + TAKEOVER_MS - 1000);
      expect(until).toBeLessThan(Date.now() + TAKEOVER_MS + 1000);
      const row = await stack.runtime.db.get('leads', { id: lead.id });
      expect(row).toMatchObject({ pausado_ate: answer.body.pausado_ate, sem_resposta_at: null });
      expect(await operatorRows(lead.phone)).toEqual([
        expect.objectContaining({ content: 'Olá Ana, aqui é a Júlia da recepção.', autor: 'Token de administração' }),
      ]);
      const rows = await transcript(lead.id);
      expect(rows.map((r) => [r.autor, r.tipo])).toEqual([
        ['equipe', 'texto'],
        ['sistema', 'evento'],
      ]);
      const audit = await stack.runtime.db.knex('auditoria').where({ lead_id: lead.id });
      expect(audit.map((a) => a.acao)).toEqual(['resposta']);
      expect(audit[0].usuario_id).toBeNull();
      expect(audit[0].detalhes).not.toContain('Júlia');
      expect(audit[0].detalhes).not.toContain(lead.phone.slice(-8));

      // The gateway's echo of the reply: LeadFlow's own send, never a takeover nor a second record.
      // Every provider's own report of the send (uazapi's wasSentByApi echo with its track_id,
      // Evolution's send.message, a Cloud `sent` status), and where it does so the message echoed back.
      const confirmation = provider.sendConfirmation(stack.instance, provider.sendRequests(stack.fake).at(-1)!.body);
      expect((await post(stack, confirmation)).status).toBe(200);
      if (provider.can.apiEchoes) expect((await echo(stack, out[0]!)).json).toEqual({ status: 'ignored', reason: 'sent by the clinic' });
      await stack.idle();
      expect(await operatorRows(lead.phone)).toHaveLength(1);
      expect(await transcript(lead.id)).toHaveLength(2);
      expect((await stack.runtime.db.get('leads', { id: lead.id }))!.pausado_ate).toBe(answer.body.pausado_ate);
    });

    it('refuses empty, blank, over-long and non-text bodies with 422 and sends nothing', async () => {
      const lead = await newLead();
      const count = requests();
      for (const body of [
        { text: '' },
        { text: '  \n ' },
        { text: 'a'.repeat(4097) },
        { text: 5 },
        [],
        { texto: 'oi' },
        { template: 'x' },
      ]) {
        const answer = await reply(lead.id, body);
        expect(answer.status, JSON.stringify(body).slice(0, 40)).toBe(422);
      }
      expect((await reply(0, { text: 'oi' })).status).toBe(422);
      expect((await reply(999999, { text: 'oi' })).status).toBe(404);
      expect(requests()).toBe(count);
      expect(await transcript(lead.id)).toHaveLength(0);
      // Exactly 4,096 characters is allowed.
      expect((await reply(lead.id, { text: 'b'.repeat(4096) })).status).toBe(201);
    });

    it('asks to confirm before writing to an opted-out lead', async () => {
      const lead = await newLead({ optout_at: new Date() });
      const count = requests();
      const refused = await reply(lead.id, { text: 'Oi Ana, tudo bem?' });
      expect(refused.status).toBe(409);
      expect(refused.body.reason).toBe('optout');
      expect(requests()).toBe(count);
      const confirmed = await reply(lead.id, { text: 'Oi Ana, tudo bem?', confirm_optout: true });
      expect(confirmed.status).toBe(201);
      expect(sent(stack).filter((m) => m.number === lead.phone)).toHaveLength(1);
    });

    if (provider.name === 'cloud') {
      it('outside the 24-hour window answers 409 `window`; the follow_up template then goes', async () => {
        const lead = await newLead({}, false);
        const count = requests();
        const refused = await reply(lead.id, { text: 'Oi Ana!' });
        expect(refused.status).toBe(409);
        expect(refused.body.reason).toBe('window');
        expect(refused.body.error).toContain('24 horas');
        expect(requests()).toBe(count);
        const template = await reply(lead.id, { template: 'follow_up' });
        expect(template.status).toBe(201);
        expect(
          sent(stack)
            .filter((m) => m.number === lead.phone)
            .map((m) => m.text),
        ).toEqual(['template:follow_up_v1(Ana)']);
        expect(template.body.message).toMatchObject({ tipo: 'modelo', conteudo: 'Oi, Ana! Ainda quer conversar com a gente?' });
        expect(template.body.pausado_ate).not.toBeNull();
      });
    } else {
      it('has no template to send (only the Cloud API has them): 422', async () => {
        const lead = await newLead();
        const count = requests();
        expect((await reply(lead.id, { template: 'follow_up' })).status).toBe(422);
        expect(requests()).toBe(count);
      });
    }
  });
});
