// flows/intake.yaml end to end over HTTP (test/e2e/stack.ts), once per gateway provider of
// test/e2e/providers.ts (the clinic's instance is of that provider): only intake.yaml and the
// followup flow it starts are served (copied to a temp directory, so other flows being edited cannot
// break these tests), with the provider's fake gateway, OpenAI and Anthropic. Each test uses its
// own phone, so rows of one test never meet another's.
import { createHmac } from 'node:crypto';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutionRecord } from '../../engine/types.js';
import { forEachProvider, sent, sentTo as sentOf, type TemplateUse } from './providers.js';
import { forEachBackend, HUNTER_PHONE, startStack, type Stack } from './stack.js';

const root = join(import.meta.dirname, '../..');
const fixture = (name: string) => JSON.parse(readFileSync(join(root, 'test/fixtures/forms', `${name}.json`), 'utf8'));

let stack: Stack;
let flowsDir: string;

/** Posts a form and waits for its execution to end. */
async function submit(body: unknown): Promise<ExecutionRecord> {
  const res = await stack.post('/form/intake', body);
  expect(res.status).toBe(202);
  const { execution_id } = (await res.json()) as { execution_id: string };
  expect(execution_id).toEqual(expect.any(String));
  return stack.engine.waitForEnd(execution_id);
}

const sentTo = (number: string) => sentOf(stack, number);
const leadsWith = (remotejid: string | string[]) =>
  stack.runtime.db.find('leads', {
    where: { clinica_id: stack.clinic.id, remotejid: Array.isArray(remotejid) ? { in: remotejid } : remotejid },
  });
const memory = (remotejid: string) =>
  stack.runtime.db.find('wf_chat_histories', { where: { session_id: remotejid, clinica_id: stack.clinic.id } });
/** Every prompt text of a chat request (system and messages), joined. */
const promptText = (body: any) => JSON.stringify([body.system ?? null, body.messages]);

forEachProvider('intake', (provider, title) => {
  /** The first-contact template of a lead who has not written (its first name, the clinic's name). */
  const firstContact = (firstName: string): TemplateUse => ({ purpose: 'primeiro_contato', parameters: [firstName, 'Clínica Sorriso'] });
  /** The Hunter's alert line as the Hunter gets it: the line, or the alert template with its fields (name, phone, budget). */
  const alert = (line: string): string[] => {
    const [, name, phone, budget] = /^🚨 .+?: (.+?) \| (\d+) \| (.+)$/.exec(line)!;
    return provider.toSilent([line], { purpose: 'alerta_hunter', parameters: [name!, phone!, budget!] });
  };
  forEachBackend(title, (backend) => {
    beforeAll(async () => {
      flowsDir = mkdtempSync(join(tmpdir(), 'leadflow-intake-flows-'));
      copyFileSync(join(root, 'flows/intake.yaml'), join(flowsDir, 'intake.yaml'));
      copyFileSync(join(root, 'flows/followup.yaml'), join(flowsDir, 'followup.yaml'));
      cpSync(join(root, 'flows/prompts'), join(flowsDir, 'prompts'), { recursive: true });
      stack = await startStack({ backend, provider, flowsDir, env: { LEADFLOW_INTAKE_DELAY_MS: '0' } });
    });

    afterAll(async () => {
      await stack?.close();
      rmSync(flowsDir, { recursive: true, force: true });
    });

    beforeEach(() => {
      stack.openai.reset();
      stack.anthropic.reset();
      stack.provider.reset(stack.fake);
    });

    describe('intake: form fields mapped from each provider', () => {
      it('generic body, normal budget: lead stored, first message from clinic and protocol, split and sent in order, one agent row, Hunter alerted', async () => {
        const reply =
          'Olá, Maria! Aqui é a Ana, da Clínica Sorriso.\n\nVi que você se interessou por lentes de contato dental.\n\nPosso te fazer umas perguntas rápidas?';
        stack.openai.queueChat({ text: reply });
        const done = await submit({ ...fixture('generic'), clinica_id: String(stack.clinic.id) });
        expect(done.status).toBe('success');

        const [lead, ...more] = await leadsWith('5543999806366');
        expect(more).toEqual([]);
        expect(lead).toMatchObject({
          nome: 'Maria Souza',
          telefone: '(43) 99980-6366',
          orcamento: 'Até R$ 3.000',
          instancia_id: stack.clinic.instanceId,
          respostas: { email: 'maria@example.com', interesse: 'Lentes de contato dental' },
          transferido: false,
          handoff_enviado: false,
          handoff_at: null,
        });

        // Rule 4: the first message is generated from the clinic and its protocol (primary model: OpenAI).
        const [request, ...others] = stack.openai.chatRequests();
        expect(others).toEqual([]);
        expect(request.model).toBe('gpt-4.1-mini');
        const prompt = promptText(request);
        for (const text of [
          'Clínica Sorriso',
          'Implantes e lentes de contato dental com atendimento humanizado',
          'Lentes de contato dental',
          'Lentes de porcelana em duas sessões',
          'Maria Souza',
          'Até R$ 3.000',
        ]) {
          expect(prompt).toContain(text);
        }
        expect(stack.anthropic.messageRequests()).toEqual([]);

        // Paragraphs become messages, sent one by one in order (each answered before the next leaves),
        // and the Hunter gets the one-line alert.
        const first = firstContact('Maria');
        const delivered = provider.toSilent(
          [
            'Olá, Maria! Aqui é a Ana, da Clínica Sorriso.',
            'Vi que você se interessou por lentes de contato dental.',
            'Posso te fazer umas perguntas rápidas?',
          ],
          first,
        );
        expect(sentTo('5543999806366')).toEqual(delivered);
        const toLead = sent(stack).filter((m) => m.number === '5543999806366');
        for (let i = 1; i < toLead.length; i++) expect(toLead[i]!.at).toBeGreaterThanOrEqual(toLead[i - 1]!.answeredAt!);
        expect(sentTo(HUNTER_PHONE)).toEqual(alert('🚨 Novo lead: Maria Souza | 5543999806366 | Até R$ 3.000'));
        expect(sent(stack)).toHaveLength(delivered.length + 1);
        expect(sent(stack).every((m) => m.authenticated)).toBe(true);

        // Memory: ONE agent row holding the whole text as sent.
        const rows = await memory('5543999806366');
        expect(rows.map((r) => [r.type, r.content])).toEqual([['agent', provider.recordedFor(reply, first)]]);

        expect(done.output).toMatchObject({
          kind: 'first',
          budget: 'normal',
          written_by: 'openai:gpt-4.1-mini',
          messages: delivered.length,
          remotejid: '5543999806366',
        });
        expect((done.output as { form_to_first_message_ms: number }).form_to_first_message_ms).toBeLessThan(120_000);
      });

      it('Typeform payload with a high budget: mapped by field ref, stored already transferred, handoff message from the other provider, Hunter alerted', async () => {
        const reply = 'Olá, Joana! Aqui é da Clínica Sorriso.\n\nA Mariana, nossa especialista, vai falar com você em instantes.';
        stack.anthropic.queue({ text: reply });
        const body = fixture('typeform');
        body.form_response.hidden.clinica_id = String(stack.clinic.id);
        const done = await submit(body);
        expect(done.status).toBe('success');

        const [lead] = await leadsWith('5511988887777');
        expect(lead).toMatchObject({
          nome: 'Joana Lima',
          telefone: '+5511988887777',
          orcamento: 'Acima de R$ 10.000',
          transferido: true,
          handoff_enviado: true,
          respostas: { email: 'joana@example.com', interesses: ['Lentes', 'Clareamento'], aceita_contato: true, utm_source: 'meta' },
        });
        expect(lead!.handoff_at).toEqual(expect.any(String));
        expect(Date.now() - Date.parse(String(lead!.handoff_at))).toBeLessThan(60_000);

        const [request, ...others] = stack.anthropic.messageRequests();
        expect(others).toEqual([]);
        expect(request.model).toBe('claude-sonnet-4-6');
        const prompt = promptText(request);
        for (const text of [
          'Clínica Sorriso',
          'Implantes e lentes de contato dental',
          'Lentes de contato dental',
          'Lentes de porcelana em duas sessões',
          'Joana Lima',
        ])
          expect(prompt).toContain(text);
        expect(stack.openai.chatRequests()).toEqual([]);

        expect(sentTo('5511988887777')).toEqual(
          provider.toSilent(
            ['Olá, Joana! Aqui é da Clínica Sorriso.', 'A Mariana, nossa especialista, vai falar com você em instantes.'],
            firstContact('Joana'),
          ),
        );
        expect(sentTo(HUNTER_PHONE)).toEqual(alert('🚨 Novo lead: Joana Lima | 5511988887777 | Acima de R$ 10.000'));
        expect((await memory('5511988887777')).map((r) => [r.type, r.content])).toEqual([
          ['agent', provider.recordedFor(reply, firstContact('Joana'))],
        ]);
        expect(done.output).toMatchObject({ kind: 'handoff', budget: 'high', written_by: 'anthropic:claude-sonnet-4-6' });
      });

      it('Tally payload: mapped by label, choice option ids turned into their text', async () => {
        const body = fixture('tally');
        body.data.fields.find((f: { label: string }) => f.label === 'clinica_id').value = String(stack.clinic.id);
        const done = await submit(body);
        expect(done.status).toBe('success');
        const [lead] = await leadsWith('5521977776666');
        expect(lead).toMatchObject({
          nome: 'Carla Dias',
          telefone: '+55 21 97777-6666',
          orcamento: 'R$ 5–10 mil',
          transferido: false,
          respostas: { 'E-mail': 'carla@example.com', utm_source: 'meta' },
        });
        expect(sentTo('5521977776666')).toEqual(provider.toSilent(['Olá! Como posso ajudar?'], firstContact('Carla')));
        expect(sentTo(HUNTER_PHONE)).toEqual(alert('🚨 Novo lead: Carla Dias | 5521977776666 | R$ 5–10 mil'));
      });

      it('a body that is none of the three shapes is refused with 422 and runs nothing', async () => {
        const res = await stack.post('/form/intake', { nome: 'Sem Telefone', clinica_id: 1 });
        expect(res.status).toBe(422);
        // Each problem names the shape it belongs to, and the shapes there are.
        expect(((await res.json()) as { details: unknown }).details).toEqual([
          { path: 'telefone', message: 'is required (alternative "generic")' },
          { path: 'form_response', message: 'is required (alternative "typeform")' },
          { path: 'data', message: 'is required (alternative "tally")' },
          { path: '(body)', message: 'must match one of the alternatives: generic, typeform, tally' },
        ]);
        expect(sent(stack)).toEqual([]);
      });
    });

    describe('intake: returning leads and duplicates', () => {
      it('returning lead: no new row, a return-contact message whose prompt holds the history, Hunter alerted again', async () => {
        const phone = '5511977770000';
        await stack.runtime.db.insert('leads', {
          clinica_id: stack.clinic.id,
          remotejid: phone,
          instancia_id: stack.clinic.instanceId,
          nome: 'Paula Reis',
          telefone: phone,
          orcamento: 'Até R$ 3.000',
        });
        await stack.runtime.db.insert('wf_chat_histories', {
          session_id: phone,
          clinica_id: stack.clinic.id,
          type: 'agent',
          content: 'Oi Paula, tudo bem? Aqui é da Clínica Sorriso.',
        });
        await stack.runtime.db.insert('wf_chat_histories', {
          session_id: phone,
          clinica_id: stack.clinic.id,
          type: 'lead',
          content: 'Quero saber quanto custa a lente de porcelana',
        });
        stack.openai.queueChat({ text: 'Oi de novo, Paula! Que bom que voltou.\n\nAinda quer saber do valor das lentes?' });

        const done = await submit({
          nome: 'Paula Reis',
          telefone: '+55 (11) 97777-0000',
          orcamento: 'Até R$ 3.000',
          clinica_id: stack.clinic.id,
          respostas: {},
        });
        expect(done.status).toBe('success');
        expect(await leadsWith(phone)).toHaveLength(1);

        const [request] = stack.openai.chatRequests();
        const prompt = promptText(request);
        expect(prompt).toContain('lead: Quero saber quanto custa a lente de porcelana');
        expect(prompt).toContain('agent: Oi Paula, tudo bem? Aqui é da Clínica Sorriso.');
        expect(prompt).toContain('Lentes de porcelana em duas sessões');
        expect(prompt.indexOf('agent: Oi Paula')).toBeLessThan(prompt.indexOf('lead: Quero saber'));

        expect(sentTo(phone)).toEqual(
          provider.toSilent(['Oi de novo, Paula! Que bom que voltou.', 'Ainda quer saber do valor das lentes?'], firstContact('Paula')),
        );
        expect(sentTo(HUNTER_PHONE)).toEqual(alert('🚨 Lead retornou: Paula Reis | 5511977770000 | Até R$ 3.000'));
        expect((await memory(phone)).map((r) => r.type)).toEqual(['agent', 'lead', 'agent']);
        expect(done.output).toMatchObject({ kind: 'return' });
      });

      it('the same form delivered again after the first was handled is a redelivery: no second reply, lead or alert', async () => {
        const body = { nome: 'Rita Alves', telefone: '11 96666-5555', orcamento: 'Até R$ 3.000', clinica_id: stack.clinic.id };
        expect((await submit(body)).output).toMatchObject({ kind: 'first' });
        const again = await submit(body);
        expect(again).toMatchObject({ status: 'stopped', stop_reason: 'duplicate submission' });
        expect(await leadsWith('5511966665555')).toHaveLength(1);
        expect(sentTo('5511966665555')).toHaveLength(1);
        expect(sentTo(HUNTER_PHONE)).toEqual(alert('🚨 Novo lead: Rita Alves | 5511966665555 | Até R$ 3.000'));
      });

      it('the same person filling the form in again (other answers) is a returning lead: one row, Hunter alerted twice', async () => {
        const body = { nome: 'Rui Alves', telefone: '11 96666-4444', orcamento: 'Até R$ 3.000', clinica_id: stack.clinic.id };
        expect((await submit(body)).output).toMatchObject({ kind: 'first' });
        expect((await submit({ ...body, orcamento: 'R$ 5–10 mil' })).output).toMatchObject({ kind: 'return' });
        expect(await leadsWith('5511966664444')).toHaveLength(1);
        expect(sentTo(HUNTER_PHONE)).toEqual([
          ...alert('🚨 Novo lead: Rui Alves | 5511966664444 | Até R$ 3.000'),
          ...alert('🚨 Lead retornou: Rui Alves | 5511966664444 | R$ 5–10 mil'),
        ]);
      });

      it('duplicate guard: 5 concurrent identical submissions make one lead, one first message and one alert', async () => {
        const body = {
          nome: 'Bruna Costa',
          telefone: '(11) 95555-4444',
          orcamento: 'Até R$ 3.000',
          clinica_id: String(stack.clinic.id),
          respostas: { origem: 'instagram' },
        };
        const answers = await Promise.all(Array.from({ length: 5 }, () => stack.post('/form/intake', body)));
        expect(answers.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
        const ids = await Promise.all(answers.map(async (r) => ((await r.json()) as { execution_id: string }).execution_id));
        const ends = await Promise.all(ids.map((id) => stack.engine.waitForEnd(id)));
        expect(ends.filter((e) => e.status === 'success')).toHaveLength(1);
        expect(
          ends
            .filter((e) => e.status === 'stopped')
            .map((e) => e.stop_reason)
            .sort(),
        ).toEqual(Array(4).fill('duplicate submission'));
        expect(await leadsWith('5511955554444')).toHaveLength(1);
        expect(sentTo('5511955554444')).toEqual(provider.toSilent(['Olá! Como posso ajudar?'], firstContact('Bruna')));
        expect(sentTo(HUNTER_PHONE)).toEqual(alert('🚨 Novo lead: Bruna Costa | 5511955554444 | Até R$ 3.000'));
        expect(await memory('5511955554444')).toHaveLength(1);
      });

      it('phone variants: a lead stored with the legacy 12-digit JID is found by a 13-digit form entry', async () => {
        const legacy = '554398887766';
        await stack.runtime.db.insert('leads', {
          clinica_id: stack.clinic.id,
          remotejid: legacy,
          instancia_id: stack.clinic.instanceId,
          nome: 'Lia Prado',
          telefone: legacy,
          orcamento: 'Até R$ 3.000',
        });
        const done = await submit({
          nome: 'Lia Prado',
          telefone: '(43) 99888-7766',
          orcamento: 'Até R$ 3.000',
          clinica_id: stack.clinic.id,
        });
        expect(done.status).toBe('success');
        expect(await leadsWith([legacy, '5543998887766'])).toHaveLength(1);
        expect(sentTo(legacy)).toEqual(provider.toSilent(['Olá! Como posso ajudar?'], firstContact('Lia')));
        expect(sentTo('5543998887766')).toEqual([]);
        expect(sentTo(HUNTER_PHONE)).toEqual(alert('🚨 Lead retornou: Lia Prado | 554398887766 | Até R$ 3.000'));
      });
    });

    describe('intake: every AI provider down (rule 1)', () => {
      it('sends the fixed template well within 2 minutes and records the time', async () => {
        const down = Array.from({ length: 10 }, () => ({ status: 500 }));
        stack.openai.queueChat(...down);
        stack.anthropic.queue(...down);
        const started = Date.now();
        const done = await submit({
          nome: 'Davi Rocha',
          telefone: '11 94444-3333',
          orcamento: 'Até R$ 3.000',
          clinica_id: stack.clinic.id,
        });
        expect(done.status).toBe('success');
        expect(Date.now() - started).toBeLessThan(10_000);
        expect(stack.openai.chatRequests().length).toBeGreaterThan(0);
        expect(stack.anthropic.messageRequests().length).toBeGreaterThan(0);

        const expected = [
          'Olá, Davi! Aqui é da Clínica Sorriso 😊',
          'Recebemos o seu formulário e vou te acompanhar por aqui. Posso te fazer algumas perguntas rápidas para entender o que você procura?',
        ];
        expect(sentTo('5511944443333')).toEqual(provider.toSilent(expected, firstContact('Davi')));
        expect(sentTo(HUNTER_PHONE)).toEqual(alert('🚨 Novo lead: Davi Rocha | 5511944443333 | Até R$ 3.000'));
        expect((await memory('5511944443333')).map((r) => r.content)).toEqual([
          provider.recordedFor(expected.join('\n\n'), firstContact('Davi')),
        ]);
        const output = done.output as { written_by: string; form_to_first_message_ms: number };
        expect(output.written_by).toBe('template');
        expect(output.form_to_first_message_ms).toBeGreaterThanOrEqual(0);
        expect(output.form_to_first_message_ms).toBeLessThan(10_000);
      });
    });

    describe('intake: webhook authentication (auth: form-signature)', () => {
      it('with LEADFLOW_WEBHOOK_SECRET set: 401 without proof; accepted with the secret header or a Typeform / Tally signature', async () => {
        const secret = 'form-secret';
        const signed = await startStack({
          backend,
          provider,
          flowsDir,
          env: { LEADFLOW_INTAKE_DELAY_MS: '0', LEADFLOW_WEBHOOK_SECRET: secret },
        });
        try {
          const typeform = fixture('typeform');
          typeform.form_response.hidden.clinica_id = String(signed.clinic.id);
          const raw = JSON.stringify(typeform);
          const hmac = createHmac('sha256', secret).update(raw).digest('base64');
          expect((await signed.post('/form/intake', typeform)).status).toBe(401);
          expect(
            (
              await signed.post('/form/intake', typeform, {
                'typeform-signature': `sha256=${createHmac('sha256', 'wrong').update(raw).digest('base64')}`,
              })
            ).status,
          ).toBe(401);
          expect((await signed.post('/form/intake', typeform, { 'typeform-signature': `sha256=${hmac}` })).status).toBe(202);
          const tally = fixture('tally');
          expect(
            (
              await signed.post('/form/intake', tally, {
                'tally-signature': createHmac('sha256', secret).update(JSON.stringify(tally)).digest('base64'),
              })
            ).status,
          ).toBe(202);
          expect((await signed.post('/form/intake', fixture('generic'), { 'x-webhook-secret': secret })).status).toBe(202);
          await signed.idle();
        } finally {
          await signed.close();
        }
      });
    });
  });
});
