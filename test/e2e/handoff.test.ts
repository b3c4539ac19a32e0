// POST /handoff-agenteia end to end (CONTRACT.md §4, §7, §11; original spec §4.3): the whole service
// over HTTP with a gateway provider's fake (once per provider of test/e2e/providers.ts: uazapi,
// Evolution, Cloud API; the seeded instance and the second clinic's instance are of that provider) and
// fake OpenAI, serving ONLY flows/handoff.yaml (copied to a temp directory so other flows being written
// cannot break these tests).
// On the Cloud API free text reaches only a number that wrote to the instance in the last 24 hours:
// the stories have the Hunters write first (their windows noted as the provider notes an inbound
// message; this suite serves no inbound route), so the notification is the same text on every
// provider, and one story has a silent Hunter, who gets the instance's alerta_hunter template.
// Backends: every story runs on every provider with the embedded backend (SQLite, in-process); on
// PostgreSQL + Redis they run once, on uazapi (what they prove of the backend does not depend on the
// provider), plus the Cloud API's window stories, whose windows live in Redis there.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CustomerWindow } from '../../adapters/gateway/cloud/customer-window.js';
import type { FakeCloudApi } from '../fakes/cloud-api-server.js';
import type { FakeEvolution } from '../fakes/evolution-server.js';
import { removeScratch, runCli } from '../helpers/cli.js';
import { openTestDatabase } from '../helpers/databases.js';
import { TEST_REDIS_URL } from '../helpers/key-values.js';
import {
  CLOUD_TEMPLATES,
  forEachProvider,
  type ProviderCase,
  type ProviderInstanceSeed,
  type SeededInstance,
  sent,
  type TemplateUse,
  UAZAPI_CASE,
} from './providers.js';
import { type Backend, forEachBackend, HUNTER_PHONE, startStack, type Stack } from './stack.js';

const FLOW = join(import.meta.dirname, '../../flows/handoff.yaml');
const SECOND_HUNTER = '5521988887777';

let stack: Stack;
let flowsDir: string;
/** The second clinic's instance, as its row was inserted and as its sends are authenticated. */
let second: { clinicId: number; instanceId: number; instance: SeededInstance };
let phoneSeq = 0;

/** A fresh lead phone per test, so tests share no rows. */
function newPhone(): string {
  phoneSeq += 1;
  return `55119${String(70000000 + phoneSeq).padStart(8, '0')}`;
}

/**
 * The columns of a second instance of the stack's provider, with credentials of its own that the
 * provider's fake accepts: uazapi another token, Evolution another instance and key, Cloud another
 * access token and phone number id (the same approved templates).
 */
function secondInstanceSeed(s: Stack): ProviderInstanceSeed {
  switch (s.provider.name) {
    case 'uazapi':
      s.gateway.addToken('fake-token-2', '5521912340000');
      return { provider: 'uazapi', server_url: s.gateway.url, token: 'fake-token-2' };
    case 'evolution':
      (s.fake as FakeEvolution).addInstance('clinica-centro', 'evo-centro-key');
      return { provider: 'evolution', server_url: s.fake.url, token: 'evo-centro-key', external_id: 'clinica-centro' };
    case 'cloud':
      (s.fake as FakeCloudApi).addToken('cloud-centro-token', ['106540352299999']);
      return {
        provider: 'cloud',
        server_url: (s.fake as FakeCloudApi).graphUrl,
        token: 'cloud-centro-token',
        external_id: '106540352299999',
        app_secret: 'cloud-centro-secret',
        templates: CLOUD_TEMPLATES,
      };
  }
}

/** Send requests the provider's fake has received, answered or not (one that hangs included). */
function sendRequestsSeen(): number {
  switch (stack.provider.name) {
    case 'uazapi':
      return stack.gateway.requestsTo('/send/text').length;
    case 'evolution':
      return (stack.fake as FakeEvolution).requestsTo('/message/sendText/').length;
    case 'cloud':
      return (stack.fake as FakeCloudApi).requests.filter((r) => r.method === 'POST' && r.body?.type !== undefined).length;
  }
}

/** Every request the gateways' fakes received. */
const gatewayRequests = () =>
  stack.gateway.requests.length + (stack.fake === stack.gateway ? 0 : (stack.fake as FakeCloudApi | FakeEvolution).requests.length);

/** The next send is answered only after `ms` (the provider's fake holds it). */
function holdNextSend(ms: number): void {
  if (stack.provider.name === 'uazapi') stack.gateway.failNext('hang', 1, { ms });
  else if (stack.provider.name === 'evolution') (stack.fake as FakeEvolution).failNext('hang', 1, { ms });
  else (stack.fake as FakeCloudApi).fail(1, 'hang', { ms });
}

/** The typing delay of each send, where the provider's send carries one (uazapi, Evolution; the Cloud API has none). */
function sentDelays(): number[] | undefined {
  if (stack.provider.name === 'uazapi') return stack.gateway.requestsTo('/send/text').map((r) => r.body.delay);
  if (stack.provider.name === 'evolution') return (stack.fake as FakeEvolution).requestsTo('/message/sendText/').map((r) => r.body.delay);
  return undefined;
}

/**
 * `phone` wrote to instance `instanceId` just now, as far as the 24-hour rule goes (`wrote`), or has
 * not in 24 hours: on the Cloud API, the window the provider notes on an inbound message (the suite
 * serves only the handoff flow, so no message can come in); nothing to do elsewhere.
 */
async function windowOf(instanceId: number, phone: string, wrote: boolean): Promise<void> {
  if (stack.provider.name !== 'cloud') return;
  const window = new CustomerWindow(stack.runtime.services.kv);
  if (wrote) await window.noteInbound(instanceId, phone, Date.now());
  else await window.forget(instanceId, phone);
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

/** What the Hunters were sent: number and text (a template as `template:<name>(<parameters>)`). */
const notifications = () => sent(stack).map(({ number, text }) => ({ number, text }));

const expectedText = (phone: string, motivo: string, summary?: string) =>
  [
    '*🚨 LEAD TRANSFERIDO*',
    '━━━━━━━━━━━━━━━',
    `Telefone: https://wa.me/${phone}`,
    `Motivo: ${motivo}`,
    ...(summary === undefined ? [] : [`Resumo: ${summary}`]),
  ].join('\n');

/** The Hunter-alert template's parameters for a handoff (flows/handoff.yaml): phone, reason, summary. */
const alertTemplate = (phone: string, motivo: string, summary: string): TemplateUse => ({
  purpose: 'alerta_hunter',
  parameters: [phone, motivo, summary],
});

const words = (n: number) => Array.from({ length: n }, (_, i) => `palavra${i + 1}`).join(' ');

async function leadRows() {
  return stack.runtime.db.find('leads', { limit: 1000 });
}

forEachProvider('handoff', (provider, title) => {
  if (provider === UAZAPI_CASE) forEachBackend(title, (backend) => handoffSuite(provider, backend, 'every story'));
  else if (provider.name === 'cloud')
    forEachBackend(title, (backend) => handoffSuite(provider, backend, backend === 'embedded' ? 'every story' : 'window stories'));
  // Evolution keeps nothing of its own in the backend: on PostgreSQL + Redis its stories are uazapi's.
  else describe(`${title} [sqlite + in-process]`, () => handoffSuite(provider, 'embedded', 'every story'));
});

function handoffSuite(provider: ProviderCase, backend: Backend, which: 'every story' | 'window stories') {
  beforeAll(async () => {
    flowsDir = mkdtempSync(join(tmpdir(), 'leadflow-handoff-flows-'));
    copyFileSync(FLOW, join(flowsDir, 'handoff.yaml'));
    stack = await startStack({ backend, flowsDir, provider });
    const clinic = await stack.runtime.db.insert('clinicas_com_atendentes', {
      nome: 'Clínica Centro',
      endereco: 'Rua do Ouvidor, 50, Rio de Janeiro',
      posicionamento: 'Clareamento',
      hunter_nome: 'Paulo',
      hunter_telefone: SECOND_HUNTER,
      admin_telefones: '',
    });
    const seed = secondInstanceSeed(stack);
    const instance = await stack.runtime.db.insert('instancias_whatsapp', {
      clinica_id: clinic.id,
      nome: 'Centro',
      ...seed,
      ...(seed.templates ? { templates: JSON.stringify(seed.templates) } : {}),
    });
    second = {
      clinicId: Number(clinic.id),
      instanceId: Number(instance.id),
      instance: {
        id: Number(instance.id),
        clinica_id: Number(clinic.id),
        token: seed.token,
        external_id: seed.external_id ?? null,
        app_secret: seed.app_secret ?? null,
        verify_token: null,
      },
    };
    // Both Hunters wrote to their clinic's number a moment ago (see the head comment).
    await windowOf(stack.clinic.instanceId, HUNTER_PHONE, true);
    await windowOf(second.instanceId, SECOND_HUNTER, true);
  });

  afterAll(async () => {
    await stack?.close();
    if (flowsDir) rmSync(flowsDir, { recursive: true, force: true });
    removeScratch();
  });

  beforeEach(() => {
    stack.gateway.requests.length = 0;
    provider.reset(stack.fake);
    stack.openai.reset();
  });

  describe('POST /handoff-agenteia: the 24-hour rule', () => {
    it("a Hunter who has not written in 24 hours gets the instance's alerta_hunter template where the gateway has that rule, and nothing else", async () => {
      const phone = newPhone();
      await insertLead(phone);
      await insertHistory(phone, stack.clinic.id, [['lead', 'Quero lentes']]);
      stack.openai.queueChat({ text: 'Lead quer lentes.' });
      await windowOf(stack.clinic.instanceId, HUNTER_PHONE, false);
      try {
        await handoffDone({ telefone: phone, motivo: 'Quer agendar' });
      } finally {
        await windowOf(stack.clinic.instanceId, HUNTER_PHONE, true);
      }
      const text = expectedText(phone, 'Quer agendar', 'Lead quer lentes.');
      expect(notifications()).toEqual(
        provider
          .toSilent([text], alertTemplate(phone, 'Quer agendar', 'Lead quer lentes.'))
          .map((t) => ({ number: HUNTER_PHONE, text: t })),
      );
      if (provider.name === 'cloud')
        expect(notifications()).toEqual([
          { number: HUNTER_PHONE, text: `template:alerta_hunter_v1(${phone}|Quer agendar|Lead quer lentes.)` },
        ]);
      expect(sent(stack).every((m) => m.authenticated)).toBe(true);
    });

    it('a Hunter who wrote within 24 hours gets the notification as free text, on every provider', async () => {
      const phone = newPhone();
      await insertLead(phone);
      await handoffDone({ telefone: phone, motivo: 'Quer agendar uma avaliação' });
      expect(notifications()).toEqual([{ number: HUNTER_PHONE, text: expectedText(phone, 'Quer agendar uma avaliação') }]);
    });
  });

  // The remaining stories are the same on every provider: declared once on PostgreSQL + Redis.
  if (which === 'window stories') return;

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

      expect(notifications()).toEqual([{ number: HUNTER_PHONE, text: expectedText(phone, 'Quer agendar uma avaliação') }]);
      expect(notifications()[0]!.text).not.toContain('Resumo:');
      expect(sentDelays() ?? [0]).toEqual([0]);
      // Through the lead's instance, with its credentials.
      expect(sent(stack)[0]!.authenticated).toBe(true);
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
      holdNextSend(300);

      const started = Date.now();
      const res = await handoff({ telefone: phone, motivo: 'agendar' });
      expect(res.status).toBe(200);
      // Answered without waiting for the slow summary: the execution is still running.
      expect(Date.now() - started).toBeLessThan(1500);
      expect((await stack.runtime.store.get(res.json.execution_id))?.status).toBe('running');
      expect(await stack.runtime.db.get('leads', { id: lead.id })).toMatchObject({ transferido: true, handoff_enviado: true });

      let flagsWhenNotified: unknown;
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
        if (sendRequestsSeen() > 0) {
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

      const [notified] = notifications();
      const resumo = notified!.text.split('\n').find((l) => l.startsWith('Resumo: '))!;
      const summaryWords = resumo.slice('Resumo: '.length).split(/\s+/).filter(Boolean);
      expect(summaryWords.length).toBeGreaterThan(0);
      expect(summaryWords.length).toBeLessThanOrEqual(50);
      expect(notified!.text).toBe(expectedText(phone, 'Pediu agendamento', words(50)));
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
      expect(gatewayRequests()).toBe(0);
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
      expect(gatewayRequests()).toBe(0);

      await handoffDone({ telefone: phone, motivo: 'Quer clareamento', instancia_id: String(second.instanceId) });
      expect(await stack.runtime.db.get('leads', { id: other.id })).toMatchObject({ transferido: true, handoff_enviado: true });
      expect(await stack.runtime.db.get('leads', { id: first.id })).toMatchObject({
        transferido: false,
        handoff_enviado: false,
        handoff_at: null,
      });
      expect(notifications()).toEqual([{ number: SECOND_HUNTER, text: expectedText(phone, 'Quer clareamento') }]);
      expect(sentDelays() ?? [0]).toEqual([0]);
      // Through the second clinic's instance, with its credentials (not the first's).
      expect(provider.sent(stack.fake, second.instance).map((m) => m.authenticated)).toEqual([true]);
      expect(sent(stack).map((m) => m.authenticated)).toEqual([false]);

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
      expect(gatewayRequests()).toBe(0);
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
      expect(gatewayRequests()).toBe(0);
    });

    it('needs the webhook secret when LEADFLOW_WEBHOOK_SECRET is set (401 before any work)', async () => {
      const guarded = await startStack({ backend, flowsDir, provider, env: { LEADFLOW_WEBHOOK_SECRET: 'segredo' } });
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

    // `leadflow run --dry-run` against a database seeded from seed/example.yaml (a uazapi instance): it
    // uses no stack and no provider fake, so it is declared once, with the uazapi suite.
    if (provider === UAZAPI_CASE)
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
}
