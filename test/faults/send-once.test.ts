// Sent once (issue: "nothing sent twice"): the process running the agent's reply is SIGKILLed at the
// instant the gateway accepted the paragraph, before the answer reached it and before the step was
// recorded. The fake accepts the send and never answers (acceptNextSilently); the provider's own
// webhook then reports the send (uazapi's echo with the send's track_id, Evolution's send.message,
// a Cloud status with its biz_opaque_callback_data: sendConfirmation) to a live process, and a
// second process takes the execution over: the lead receives the reply exactly once, memory holds it
// once, and the take-over is counted as `confirmed`. Without evidence the policy applies (`resend`:
// the reply goes again, counted as `resent`). Each provider, embedded (SQLite, one `serve` restarted)
// and queue mode (PostgreSQL + Redis, `serve` + `worker`: whichever held the execution is killed and
// another process of the same kind started), as real subprocesses; gateways and OpenAI are fakes of
// this test process.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../adapters/db/database.js';
import { DbExecutionStore } from '../../adapters/db/execution-store/index.js';
import { PROVIDERS, type ProviderCase, type ProviderFake, type SeededInstance } from '../e2e/providers.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import { runCli } from '../helpers/cli.js';
import { embeddedBackend, type FaultBackend, killProcess, ProcessFleet, queueBackend, faultEnv } from '../helpers/fault-processes.js';
import { parseMetrics, sampleValue } from '../helpers/metrics-text.js';
import { pollFor } from '../helpers/poll.js';

const REPLY = 'Claro! A avaliação é gratuita e dura 30 minutos.';

let openai: FakeOpenAi;
const fakes = new Map<string, ProviderFake>();

beforeAll(async () => {
  openai = await startFakeOpenAi();
  for (const provider of PROVIDERS) fakes.set(provider.name, await provider.startFake());
});

afterAll(async () => {
  await openai?.close();
  for (const fake of fakes.values()) await fake.close();
});

/** The clinic's seed: one instance per provider (YAML is a superset of JSON). */
function seedText(): string {
  const instancias = PROVIDERS.map((p) => ({ nome: `Instância ${p.name}`, ...p.instance(fakes.get(p.name)!) }));
  return JSON.stringify({
    clinicas: [
      {
        nome: 'Clínica Uma Vez',
        hunter_nome: 'Ana',
        hunter_telefone: '5511987650003',
        protocolos: [{ nome: 'Lentes', descricao: 'Lentes de porcelana' }],
        instancias,
      },
    ],
  });
}

const BACKENDS: Array<[string, () => Promise<FaultBackend>]> = [
  ['sqlite, in-process', () => embeddedBackend('leadflow-send-once')],
  ['postgres + redis', () => queueBackend('leadflow-send-once', 'send-once.test.ts')],
];

for (const [label, make] of BACKENDS) {
  describe(`a reply paragraph accepted by the gateway as its process dies [${label}]`, () => {
    let backend: FaultBackend;
    let env: Record<string, string>;
    let db: Database;
    let store: DbExecutionStore;
    const fleet = new ProcessFleet(() => env);
    const instances = new Map<string, SeededInstance>();
    let phoneSeq = 0;
    const nextPhone = () => `55119${71_000_000 + ++phoneSeq * 1117 + (backend.queue ? 500_000 : 0)}`;

    beforeAll(async () => {
      backend = await make();
      env = faultEnv(backend, openai.baseURL, { LEADFLOW_DEBOUNCE_MS: '100', LEADFLOW_FOLLOWUP_AFTER_MS: '' });
      const seedFile = join(backend.env.LEADFLOW_DATA_DIR!, 'seed.yaml');
      writeFileSync(seedFile, seedText());
      const seeded = await runCli(['seed', seedFile], { env, timeoutMs: 30_000 });
      expect(seeded.code, seeded.stderr).toBe(0);
      db = backend.open();
      store = new DbExecutionStore(db);
      for (const row of await db.find('instancias_whatsapp', { limit: 10 })) {
        instances.set(String(row.provider), {
          id: Number(row.id),
          clinica_id: Number(row.clinica_id),
          token: String(row.token),
          external_id: (row.external_id as string | null) ?? null,
          app_secret: (row.app_secret as string | null) ?? null,
          verify_token: (row.verify_token as string | null) ?? null,
        });
      }
    }, 60_000);

    afterAll(async () => {
      await fleet.killAll();
      await db?.close();
      await backend?.cleanup();
    });

    const live = (kind: 'serve' | 'worker') => fleet.live(kind);
    const startOne = (kind: 'serve' | 'worker', extra: Record<string, string> = {}) => fleet.start(kind, extra);

    /** The lead writes; the agent's reply is accepted by the fake and never answered; the process holding the execution is SIGKILLed. Returns the execution id and the request's body. */
    async function killAtAcceptance(provider: ProviderCase, phone: string, extra: Record<string, string>) {
      const fake = fakes.get(provider.name)!;
      const instance = instances.get(provider.name)!;
      await db.insert('leads', {
        remotejid: phone,
        clinica_id: instance.clinica_id,
        instancia_id: instance.id,
        nome: 'Ana Souza',
        telefone: phone,
      });
      if (!live('serve')) await startOne('serve', extra);
      if (backend.queue && !live('worker')) await startOne('worker', extra);
      openai.queueChat({ text: REPLY });
      provider.acceptNextSilently(fake);
      const call = provider.inbound({ phone, text: 'Quero saber da avaliação' }, instance);
      const answer = await fetch(`${live('serve')!.url}${call.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...call.headers },
        body: call.raw,
      });
      expect(answer.status).toBe(200);
      const requestsFor = () => provider.sendRequests(fake).filter((r) => r.text === REPLY && r.number.endsWith(phone.slice(-8)));
      await pollFor('the gateway to accept the reply', async () => requestsFor().length === 1, 30_000);
      // The accepted send was recorded as started before the call: its step is not finished.
      const [running] = (await store.listRunning()).filter((r) => r.flow === 'agent');
      expect(running, 'the agent execution is running').toBeDefined();
      const holder = fleet.holding(running!.lease_owner);
      expect(holder, `the process holding the execution (${running!.lease_owner})`).toBeDefined();
      await killProcess(holder!);
      const cut = (await store.get(running!.id))!;
      expect(cut.steps.find((s) => s.key === 'send')?.status ?? 'not recorded').not.toBe('success');
      return { id: running!.id, body: requestsFor()[0]!.body, requestsFor, killed: holder!.kind };
    }

    for (const provider of PROVIDERS) {
      it(`${provider.name}: the provider's evidence arrives, another process takes over, the lead gets the reply once`, async () => {
        const phone = nextPhone();
        const { id, body, requestsFor, killed } = await killAtAcceptance(provider, phone, {});
        const instance = instances.get(provider.name)!;
        const confirmation = provider.sendConfirmation(instance, body);
        // The provider reports the send to a live process (a restarted one when the only serve died):
        // its webhook retries until someone answers.
        if (!live('serve')) await startOne('serve');
        const posted = await fetch(`${live('serve')!.url}${confirmation.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...confirmation.headers },
          body: confirmation.raw,
        });
        expect(posted.status).toBe(200);
        if (killed === 'worker') await startOne('worker');
        await pollFor('the taken-over execution to end', async () => (await store.get(id))?.status === 'success', 60_000);
        expect(requestsFor()).toHaveLength(1);
        const memory = await db.find('wf_chat_histories', { where: { session_id: phone }, order_by: [{ column: 'id', direction: 'asc' }] });
        expect(memory.map((r) => [r.type, r.content])).toEqual([
          ['lead', 'Quero saber da avaliação'],
          ['agent', REPLY],
        ]);
        const send = (await store.get(id))!.steps.filter((s) => s.key === 'send');
        expect(send.map((s) => s.status)).toEqual(['success']);
        expect((send[0]!.output as any).sent).toBe(1);
        if (!backend.queue) {
          const metrics = parseMetrics(await (await fetch(`${live('serve')!.url}/metrics`)).text());
          expect(sampleValue(metrics, 'leadflow_gateway_send_recoveries_total', { provider: provider.name, outcome: 'confirmed' })).toBe(1);
        }
      }, 120_000);
    }

    it('uazapi without evidence (its webhook excludes wasSentByApi): the policy `resend` sends the reply again, counted', async () => {
      const uazapi = PROVIDERS.find((p) => p.name === 'uazapi')!;
      const phone = nextPhone();
      const fast = { LEADFLOW_SEND_EVIDENCE_WAIT_MS: '300' };
      await fleet.killAll();
      const { id, requestsFor, killed } = await killAtAcceptance(uazapi, phone, fast);
      if (!live('serve')) await startOne('serve', fast);
      if (killed === 'worker') await startOne('worker', fast);
      await pollFor('the taken-over execution to end', async () => (await store.get(id))?.status === 'success', 60_000);
      expect(requestsFor()).toHaveLength(2);
      if (!backend.queue) {
        const metrics = parseMetrics(await (await fetch(`${live('serve')!.url}/metrics`)).text());
        expect(sampleValue(metrics, 'leadflow_gateway_send_recoveries_total', { provider: 'uazapi', outcome: 'resent' })).toBe(1);
      }
    }, 120_000);
  });
}
