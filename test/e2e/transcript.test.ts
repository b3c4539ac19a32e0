// The transcript (CONTRACT §13, table `mensagens`) end to end over HTTP, on both backends and every
// gateway provider of test/e2e/providers.ts: the shipped flows write one row per WhatsApp message in
// and out, once each, and the events; the providers' delivery statuses reach the rows; the console's
// GET /admin/leads/:id/messages reads it (with `after`); reset keeps it, erase removes it.
//   - a lead's message, the agent's reply (one row per paragraph, with the provider's message id), a
//     follow-up ("Acompanhamento"); a read status; LeadFlow's own echo, a redelivery and a replay add
//     nothing;
//   - a pause, a message while paused, resume, a transfer, a message while transferred (the lead
//     waits: `aguardando`), untransfer, opt-out (event and confirmation), a message after it; a
//     person typing on the clinic's phone (where the provider reports it) as `equipe`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Row } from '../../adapters/db/table-ops.js';
import { ADMIN_TOKEN, withBearer } from '../console/support.js';
import { signCloudBody } from '../fakes/cloud-webhooks.js';
import { pollFor } from '../helpers/poll.js';
import { transcriptRows } from '../helpers/transcript-rows.js';
import { echo, forEachProvider, type InboundCall, post, type ProviderCase, send, sent } from './providers.js';
import { forEachBackend, insertLead, type Stack, startStack } from './stack.js';

let phoneSeq = 0;
const nextPhone = () => `55119${String(72000000 + ++phoneSeq * 1717).padStart(8, '0')}`;

forEachProvider('transcript', (provider, title) => {
  forEachBackend(title, (backend) => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({
        backend,
        provider,
        env: {
          LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN,
          LEADFLOW_DEBOUNCE_MS: backend === 'postgres+redis' ? '300' : '150',
          LEADFLOW_FOLLOWUP_AFTER_MS: '600',
          LEADFLOW_TAKEOVER_MS: '600000',
        },
      });
    });
    afterAll(async () => {
      await stack?.close();
    });
    stories(provider, () => stack);
  });
});

/** The lead's transcript rows in id order. */
const transcript = (stack: Stack, leadId: number) => transcriptRows(stack.runtime.db, leadId);

/** A console action on the lead (POST /admin/leads/:id/actions), awaited. */
async function act(stack: Stack, leadId: number, action: string, confirm?: string): Promise<void> {
  const res = await withBearer(stack, `/admin/leads/${leadId}/actions`, {
    method: 'POST',
    body: { action, ...(confirm ? { confirm } : {}) },
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

/** The provider's delivery report that message `messageid` was read, as its webhook posts it. */
function readReport(provider: ProviderCase, stack: Stack, messageid: string): InboundCall {
  const { call } = provider.receipt(stack.instance);
  const body = JSON.parse(call.raw);
  if (provider.name === 'cloud') {
    const status = body.entry[0].changes[0].value.statuses[0];
    status.id = messageid;
    status.status = 'read';
  } else if (provider.name === 'evolution') {
    body.data.keyId = messageid;
    body.data.status = 'READ';
  } else {
    body.event.MessageIDs = [messageid];
    body.event.Type = 'Read';
  }
  const raw = JSON.stringify(body);
  // A Cloud body is signed over its bytes: signed again.
  if (provider.name === 'cloud')
    return { ...call, raw, headers: { 'x-hub-signature-256': signCloudBody(raw, stack.instance.app_secret ?? '') } };
  return { ...call, raw };
}

const pick = (rows: Row[]) => rows.map((r) => [r.direcao, r.autor, r.tipo, r.conteudo]);

function stories(provider: ProviderCase, current: () => Stack) {
  describe('messages and replies', () => {
    it('records the lead message, each paragraph of the reply with its provider id, a follow-up and a read status once each; echo, redelivery and replay add nothing', async () => {
      const stack = current();
      const phone = nextPhone();
      const lead = await insertLead(stack, phone, { nome: 'Maria Souza' });
      const leadId = Number(lead.id);
      stack.openai.queueChat({ text: 'Primeiro parágrafo.\n\nSegundo parágrafo.' }, { text: 'Oi, Maria! Ficou alguma dúvida?' });
      const call = provider.inbound({ phone, text: 'Oi, quero saber do clareamento' }, stack.instance);
      expect((await post(stack, call)).status).toBe(200);
      const rows = await pollFor('reply and follow-up rows', async () => {
        const r = await transcript(stack, leadId);
        return r.length >= 4 ? r : undefined;
      });
      expect(pick(rows)).toEqual([
        ['entrada', 'lead', 'texto', 'Oi, quero saber do clareamento'],
        ['saida', 'agente', 'texto', 'Primeiro parágrafo.'],
        ['saida', 'agente', 'texto', 'Segundo parágrafo.'],
        ['saida', 'sistema', 'texto', 'Oi, Maria! Ficou alguma dúvida?'],
      ]);
      expect(rows[3]!.autor_nome).toBe('Acompanhamento');
      const [first, second] = [rows[1]!, rows[2]!];
      expect(first.provider_message_id).toEqual(expect.any(String));
      expect(first.status).toBe('enviada');
      expect(second.provider_message_id).not.toBe(first.provider_message_id);
      expect(Date.parse(String(first.created_at))).toBeGreaterThanOrEqual(Date.parse(String(rows[0]!.created_at)));

      // The provider reports the first paragraph read.
      await post(stack, readReport(provider, stack, String(first.provider_message_id)));
      await pollFor('the read status', async () => (await stack.runtime.db.get('mensagens', { id: first.id }))?.status === 'lida');

      // The same message again (a redelivery), LeadFlow's echo of its own send, a replay: nothing new.
      await post(stack, call);
      if (provider.can.apiEchoes) await echo(stack, sent(stack).filter((m) => m.number === phone)[0]!);
      const agent = (await stack.executions('agent')).find((r) => r.status === 'success' && JSON.stringify(r.trigger.body).includes(phone));
      const replayed = await withBearer(stack, `/admin/executions/${agent!.id}/replay`, { method: 'POST' });
      expect(replayed.status).toBeLessThan(300);
      await stack.idle();
      // The replay answered again and planned a new follow-up (a new message, recorded as such); the
      // message and the paragraphs it answered again stay one row each.
      const final = await transcript(stack, leadId);
      const replays = final.filter((r) => r.autor_nome !== 'Acompanhamento');
      expect(pick(replays)).toEqual(pick(rows.slice(0, 3)));

      // The endpoint: everything in time order; `after` only what came later.
      const all = (await (await withBearer(stack, `/admin/leads/${leadId}/messages`)).json()) as any;
      expect(all.messages.map((m: any) => m.conteudo)).toEqual(final.map((r) => r.conteudo));
      expect(all.messages[1].status).toBe('lida');
      expect(all.aguardando).toBe(false);
      const later = (await (await withBearer(stack, `/admin/leads/${leadId}/messages?after=${rows[1]!.id}`)).json()) as any;
      expect(later.messages.map((m: any) => m.id)).toEqual(final.slice(2).map((r) => Number(r.id)));
      expect((await withBearer(stack, `/admin/leads/${leadId}/messages?after=x`)).status).toBe(422);
      expect((await withBearer(stack, '/admin/leads/99999999/messages')).status).toBe(404);
    });
  });

  describe('while paused, transferred or opted out', () => {
    it('records every message and the events; the lead waits while transferred; reset keeps the transcript, erase removes it', async () => {
      const stack = current();
      const phone = nextPhone();
      const lead = await insertLead(stack, phone, { nome: 'Ana Lima' });
      const leadId = Number(lead.id);
      const say = async (text: string, from: 'lead' | 'operator' = 'lead') => {
        const before = (await transcript(stack, leadId)).length;
        expect((await send(stack, { phone, text, from })).status).toBe(200);
        await pollFor(`"${text}" recorded`, async () => (await transcript(stack, leadId)).length > before);
      };
      await act(stack, leadId, 'pause');
      await say('Vocês atendem sábado?');
      await act(stack, leadId, 'resume');
      await act(stack, leadId, 'transfer');
      await say('Alô?');
      const waiting = (await (await withBearer(stack, `/admin/leads/${leadId}/messages`)).json()) as any;
      expect(waiting.aguardando).toBe(true);
      await act(stack, leadId, 'untransfer');
      if (provider.can.operatorMessages) await say('Aqui é a Júlia, da clínica', 'operator');
      await act(stack, leadId, 'resume');
      await say('parar');
      await pollFor('the opt-out confirmation', async () =>
        (await transcript(stack, leadId)).some((r) => r.autor === 'sistema' && r.tipo === 'texto'),
      );
      await say('Só mais uma coisa');
      await stack.idle();
      const rows = await transcript(stack, leadId);
      expect(pick(rows)).toEqual([
        ['saida', 'equipe', 'evento', 'Agente pausado'],
        ['entrada', 'lead', 'texto', 'Vocês atendem sábado?'],
        ['saida', 'equipe', 'evento', 'Agente retomado'],
        ['saida', 'sistema', 'evento', 'Transferido ao atendente'],
        ['entrada', 'lead', 'texto', 'Alô?'],
        ['saida', 'equipe', 'evento', 'Devolvido ao agente (transferência desfeita)'],
        ...(provider.can.operatorMessages
          ? [
              ['saida', 'equipe', 'texto', 'Aqui é a Júlia, da clínica'],
              ['saida', 'equipe', 'evento', 'Agente pausado'],
            ]
          : []),
        ['saida', 'equipe', 'evento', 'Agente retomado'],
        ['entrada', 'lead', 'texto', 'parar'],
        ['saida', 'sistema', 'evento', 'Lead pediu para não receber mensagens automáticas'],
        ['saida', 'sistema', 'texto', 'Tudo bem, você não receberá mais mensagens automáticas. ✅'],
        ['entrada', 'lead', 'texto', 'Só mais uma coisa'],
      ]);

      await act(stack, leadId, 'reset');
      const afterReset = await transcript(stack, leadId);
      expect(afterReset.length).toBe(rows.length + 1);
      expect(afterReset.at(-1)!.conteudo).toBe('Memória do agente limpa');
      await act(stack, leadId, 'erase', phone);
      expect(await transcript(stack, leadId)).toEqual([]);
    });
  });
}
