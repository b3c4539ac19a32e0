// POST /handoff-agenteia end to end (CONTRACT.md §4, §7; original spec §4.3): the whole service over
// HTTP with the fake gateway and fake OpenAI, serving ONLY flows/handoff.yaml (copied to a temp
// directory so other flows being written cannot break these tests).
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { removeScratch, runCli } from '../helpers/cli.js';
import { openTestDatabase } from '../helpers/databases.js';
import { TEST_REDIS_URL } from '../helpers/key-values.js';
import { forEachBackend, HUNTER_PHONE, INSTANCE_TOKEN, startStack, type Stack } from './stack.js';

const FLOW = join(import.meta.dirname, '../../flows/handoff.yaml');
const SECOND_TOKEN = 'fake-token-2';
const SECOND_HUNTER = '5521988887777';

let stack: Stack;
let flowsDir: string;
let second: { clinicId: number; instanceId: number };
let phoneSeq = 0;

/** A fresh lead phone per test, so tests share no rows. */
function newPhone(): string {
  phoneSeq += 1;
  return `55119${String(70000000 + phoneSeq).padStart(8, '0')}`;
}

async function insertLead(remotejid: string, clinic = { clinicId: stack.clinic.id, instanceId: stack.clinic.instanceId }) {
  return stack.runtime.db.insert('leads', {
    remotejid,
    clinica_id: clinic.clinicId,
    instancia_id: clinic.instanceId,
    nome: 'Ana',
    telefone: remotejid,
    orcamento: 'Até R$ 3.000',
  });
}

async function insertHistory(sessionId: string, clinicId: number, rows: Array<[string, string]>) {
  for (const [type, content] of rows)
    await stack.runtime.db.insert('wf_chat_histories', { session_id: sessionId, clinica_id: clinicId, type, content });
}

async function handoff(body: unknown): Promise<{ status: number; json: any }> {
  const res = await stack.post('/handoff-agenteia', body);
  return { status: res.status, json: await res.json() };
}

/** Posts a handoff that must be accepted and waits for its execution to end. */
async function handoffDone(body: unknown) {
  const res = await handoff(body);
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ transferido: true, execution_id: expect.any(String) });
  const record = await stack.engine.waitForEnd(res.json.execution_id);
  return { ...res, record };
}

const notifications = () => stack.gateway.sent;

const expectedText = (phone: string, motivo: string, summary?: string) =>
  [
    '*🚨 LEAD TRANSFERIDO*',
    '━━━━━━━━━━━━━━━',
    `Telefone: https://wa.me/${phone}`,
    `Motivo: ${motivo}`,
    ...(summary === undefined ? [] : [`Resumo: ${summary}`]),
  ].join('\n');

const words = (n: number) => Array.from({ length: n }, (_, i) => `palavra${i + 1}`).join(' ');

async function leadRows() {
  return stack.runtime.db.find('leads', { limit: 1000 });
}

forEachBackend('handoff', (backend) => {
  beforeAll(async () => {
    flowsDir = mkdtempSync(join(tmpdir(), 'leadflow-handoff-flows-'));
    copyFileSync(FLOW, join(flowsDir, 'handoff.yaml'));
    stack = await startStack({ backend, flowsDir });
    stack.gateway.addToken(SECOND_TOKEN, '5521912340000');
    const clinic = await stack.runtime.db.insert('clinicas_com_atendentes', {
      nome: 'Clínica Centro',
      endereco: 'Rua do Ouvidor, 50, Rio de Janeiro',
      posicionamento: 'Clareamento',
      hunter_nome: 'Paulo',
      hunter_telefone: SECOND_HUNTER,
      admin_telefones: '',
    });
    const instance = await stack.runtime.db.insert('instancias_whatsapp', {
      clinica_id: clinic.id,
      nome: 'Centro',
      server_url: stack.gateway.url,
      token: SECOND_TOKEN,
    });
    second = { clinicId: Number(clinic.id), instanceId: Number(instance.id) };
  });

  afterAll(async () => {
    await stack?.close();
    if (flowsDir) rmSync(flowsDir, { recursive: true, force: true });
    removeScratch();
  });

  beforeEach(() => {
    stack.gateway.requests.length = 0;
    stack.openai.reset();
  });

  describe('POST /handoff-agenteia', () => {
    it('answers 200, sets transferido, handoff_enviado and handoff_at, and notifies the Hunter without Resumo when there is no history', async () => {
      const phone = newPhone();
      const lead = await insertLead(phone);
      expect(lead.transferido).toBe(false);
      const before = Date.now();
      const { record } = await handoffDone({ telefone: phone, motivo: 'Quer agendar uma avaliação' });
      expect(record.status).toBe('success');

      const row = await stack.runtime.db.get('leads', { id: lead.id });
      expect(row).toMatchObject({ transferido: true, handoff_enviado: true });
      expect(Date.parse(String(row!.handoff_at))).toBeGreaterThanOrEqual(before - 1000);

      expect(notifications()).toEqual([{ number: HUNTER_PHONE, text: expectedText(phone, 'Quer agendar uma avaliação'), delay: 0 }]);
      expect(notifications()[0]!.text).not.toContain('Resumo:');
      expect(stack.gateway.requestsTo('/send/text')[0]!.headers.token).toBe(INSTANCE_TOKEN);
      expect(stack.openai.chatRequests()).toHaveLength(0);
    });

    it('has the flags stored before the Hunter is notified, and answers 200 before the summary is written', async () => {
      const phone = newPhone();
      const lead = await insertLead(phone);
      await insertHistory(phone, stack.clinic.id, [
        ['lead', 'Quero lentes'],
        ['agent', 'Posso agendar?'],
      ]);
      stack.openai.queueChat({ text: 'Lead quer lentes e aceita agendar.', delay_ms: 1500 });
      // Hold the notification's answer so the lead row can be read while the gateway has it.
      stack.gateway.failNext('hang', 1, { ms: 300 });

      const started = Date.now();
      const res = await handoff({ telefone: phone, motivo: 'agendar' });
      expect(res.status).toBe(200);
      // Answered without waiting for the slow summary: the execution is still running.
      expect(Date.now() - started).toBeLessThan(1500);
      expect((await stack.runtime.store.get(res.json.execution_id))?.status).toBe('running');
      expect(await stack.runtime.db.get('leads', { id: lead.id })).toMatchObject({ transferido: true, handoff_enviado: true });

      let flagsWhenNotified: unknown;
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
        if (stack.gateway.requestsTo('/send/text').length > 0) {
          flagsWhenNotified = await stack.runtime.db.get('leads', { id: lead.id });
          break;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      expect(flagsWhenNotified).toMatchObject({ transferido: true, handoff_enviado: true, handoff_at: expect.any(String) });
      const record = await stack.engine.waitForEnd(res.json.execution_id);
      expect(record.status).toBe('success');
      expect(notifications()[0]!.text).toBe(expectedText(phone, 'agendar', 'Lead quer lentes e aceita agendar.'));
    });

    it('summarises the history given as `{type}: {content}` lines, and a 120-word answer still gives at most 50 words', async () => {
      const phone = newPhone();
      await insertLead(phone);
      await insertHistory(phone, stack.clinic.id, [
        ['lead', 'Oi, vi o anúncio das lentes'],
        ['agent', 'Olá! As lentes custam a partir de R$ 1.200 por dente.'],
        ['lead', 'Quero agendar'],
      ]);
      // Same phone, other clinic: another conversation, not part of this summary.
      await insertHistory(phone, second.clinicId, [['lead', 'conversa de outra clínica']]);
      stack.openai.queueChat({ text: words(120) }, { text: words(120) });

      await handoffDone({ telefone: phone, motivo: 'Pediu agendamento' });

      const transcript =
        'lead: Oi, vi o anúncio das lentes\nagent: Olá! As lentes custam a partir de R$ 1.200 por dente.\nlead: Quero agendar';
      const first = stack.openai.chatRequests()[0];
      expect(first.model).toBe('gpt-4.1-mini');
      const userText = first.messages
        .filter((m: any) => m.role === 'user')
        .map((m: any) => String(m.content))
        .join('\n');
      expect(userText).toContain(transcript);
      expect(userText).not.toContain('conversa de outra clínica');

      const [sent] = notifications();
      const resumo = sent!.text.split('\n').find((l) => l.startsWith('Resumo: '))!;
      const summaryWords = resumo.slice('Resumo: '.length).split(/\s+/).filter(Boolean);
      expect(summaryWords.length).toBeGreaterThan(0);
      expect(summaryWords.length).toBeLessThanOrEqual(50);
      expect(sent!.text).toBe(expectedText(phone, 'Pediu agendamento', words(50)));
    });

    it('sends an empty Motivo when none is given, and no Resumo line without history', async () => {
      const phone = newPhone();
      await insertLead(phone);
      await handoffDone({ telefone: phone });
      expect(notifications().map((n) => n.text)).toEqual([
        `*🚨 LEAD TRANSFERIDO*\n━━━━━━━━━━━━━━━\nTelefone: https://wa.me/${phone}\nMotivo: `,
      ]);
      expect(stack.openai.chatRequests()).toHaveLength(0);
    });

    it("notifies the clinic's hunter_telefone as stored now", async () => {
      const phone = newPhone();
      await insertLead(phone);
      await stack.runtime.db.update('clinicas_com_atendentes', { id: stack.clinic.id }, { hunter_telefone: '5511933332222' });
      try {
        await handoffDone({ telefone: phone, motivo: 'x' });
        expect(notifications().map((n) => n.number)).toEqual(['5511933332222']);
      } finally {
        await stack.runtime.db.update('clinicas_com_atendentes', { id: stack.clinic.id }, { hunter_telefone: HUNTER_PHONE });
      }
    });

    it('answers 404 for a phone with no lead and changes nothing', async () => {
      const phone = newPhone();
      await insertLead(phone);
      const before = await leadRows();
      const res = await handoff({ telefone: newPhone(), motivo: 'x' });
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ error: expect.any(String) });
      await stack.idle();
      expect(await leadRows()).toEqual(before);
      expect(stack.gateway.requests).toHaveLength(0);
    });

    it('answers 409 for a phone that is a lead of two clinics without instancia_id, and 200 picking the right one with it', async () => {
      const phone = newPhone();
      const first = await insertLead(phone);
      const other = await insertLead(phone, second);
      const before = await leadRows();

      const conflict = await handoff({ telefone: phone, motivo: 'x' });
      expect(conflict.status).toBe(409);
      expect(conflict.json).toMatchObject({ error: expect.any(String) });
      await stack.idle();
      expect(await leadRows()).toEqual(before);
      expect(stack.gateway.requests).toHaveLength(0);

      await handoffDone({ telefone: phone, motivo: 'Quer clareamento', instancia_id: String(second.instanceId) });
      expect(await stack.runtime.db.get('leads', { id: other.id })).toMatchObject({ transferido: true, handoff_enviado: true });
      expect(await stack.runtime.db.get('leads', { id: first.id })).toMatchObject({
        transferido: false,
        handoff_enviado: false,
        handoff_at: null,
      });
      expect(notifications()).toEqual([{ number: SECOND_HUNTER, text: expectedText(phone, 'Quer clareamento'), delay: 0 }]);
      expect(stack.gateway.requestsTo('/send/text')[0]!.headers.token).toBe(SECOND_TOKEN);

      // instancia_id null counts as not given: still ambiguous.
      expect((await handoff({ telefone: phone, instancia_id: null })).status).toBe(409);
      await handoffDone({ telefone: phone, instancia_id: stack.clinic.instanceId });
      expect(await stack.runtime.db.get('leads', { id: first.id })).toMatchObject({ transferido: true, handoff_enviado: true });
    });

    it('answers 404 when instancia_id names an instance whose clinic has no such lead, or no instance at all', async () => {
      const phone = newPhone();
      await insertLead(phone);
      const before = await leadRows();
      expect((await handoff({ telefone: phone, instancia_id: second.instanceId })).status).toBe(404);
      expect((await handoff({ telefone: phone, instancia_id: 999999 })).status).toBe(404);
      await stack.idle();
      expect(await leadRows()).toEqual(before);
      expect(stack.gateway.requests).toHaveLength(0);
    });

    it('answers 422 when telefone is missing or not digits, and changes nothing', async () => {
      const phone = newPhone();
      await insertLead(phone);
      const before = await leadRows();
      const executions = (await stack.executions('handoff')).length;
      const missing = await handoff({ motivo: 'x' });
      expect(missing.status).toBe(422);
      expect(missing.json.details.map((d: { path: string }) => d.path).join(' ')).toContain('telefone');
      expect((await handoff({ telefone: '+55 (11) 9999-0000' })).status).toBe(422);
      expect((await handoff({ telefone: phone, instancia_id: 'abc' })).status).toBe(422);
      expect(await leadRows()).toEqual(before);
      expect((await stack.executions('handoff')).length).toBe(executions);
      expect(stack.gateway.requests).toHaveLength(0);
    });

    it('needs the webhook secret when LEADFLOW_WEBHOOK_SECRET is set (401 before any work)', async () => {
      const guarded = await startStack({ backend, flowsDir, env: { LEADFLOW_WEBHOOK_SECRET: 'segredo' } });
      try {
        const phone = newPhone();
        await guarded.runtime.db.insert('leads', {
          remotejid: phone,
          clinica_id: guarded.clinic.id,
          instancia_id: guarded.clinic.instanceId,
          nome: 'Ana',
        });
        expect((await guarded.post('/handoff-agenteia', { telefone: phone })).status).toBe(401);
        expect(await guarded.runtime.db.get('leads', { remotejid: phone })).toMatchObject({ transferido: false });
        const ok = await guarded.post('/handoff-agenteia', { telefone: phone }, { 'x-webhook-secret': 'segredo' });
        expect(ok.status).toBe(200);
        await guarded.engine.waitForEnd(((await ok.json()) as { execution_id: string }).execution_id);
        expect(await guarded.runtime.db.get('leads', { remotejid: phone })).toMatchObject({ transferido: true });
      } finally {
        await guarded.close();
      }
    });

    it('runs flows/samples/handoff.json with `leadflow run --dry-run` after seeding: records the notification, changes nothing', async () => {
      // A database of its own on this backend, empty until `leadflow seed` migrates and fills it. The
      // CLI has no key prefix option: on Redis it uses `leadflow:`, which the handoff flow never writes.
      const fresh = await openTestDatabase(backend === 'embedded' ? 'sqlite' : 'postgres', { migrate: false });
      const env = { ...fresh.env, REDIS_URL: backend === 'embedded' ? '' : TEST_REDIS_URL };
      const db = fresh.db;
      try {
        expect((await runCli(['seed', 'seed/example.yaml'], { env })).code).toBe(0);
        const sample = JSON.parse(readFileSync(join(import.meta.dirname, '../../flows/samples/handoff.json'), 'utf8')) as {
          telefone: string;
          motivo: string;
        };
        const clinic = await db.get('clinicas_com_atendentes', {});
        const instance = await db.get('instancias_whatsapp', { clinica_id: clinic!.id });
        const lead = await db.insert('leads', {
          remotejid: sample.telefone,
          clinica_id: clinic!.id,
          instancia_id: instance!.id,
          nome: 'Ana',
        });
        const run = await runCli(
          ['run', 'handoff', '--payload', 'flows/samples/handoff.json', '--flows', flowsDir, '--dry-run', '--json'],
          { env, timeoutMs: 30_000 },
        );
        expect(run.code).toBe(0);
        const trace = JSON.parse(run.stdout) as {
          status: string;
          outbound: Array<{ url: string; body: { number: string; text: string } }>;
        };
        expect(trace.status).toBe('success');
        expect(trace.outbound).toHaveLength(1);
        expect(trace.outbound[0]!.url).toBe(`${instance!.server_url}/send/text`);
        expect(trace.outbound[0]!.body).toMatchObject({
          number: clinic!.hunter_telefone,
          text: expectedText(sample.telefone, sample.motivo),
        });
        expect(await db.get('leads', { id: lead.id })).toMatchObject({ transferido: false, handoff_enviado: false, handoff_at: null });
      } finally {
        await fresh.cleanup();
      }
    });
  });
});
