// What a kill-and-restart suite of the agent (test/queue/journal-kill.test.ts, park-kill.test.ts)
// shares: the fake gateway knowing the suite's instance token, the fake OpenAI, and the `serve`
// process the test starts, kills and starts again — SIGKILLed after each test, the fakes closed
// after the file; the lead's message posted as the gateway would; per backend, its data seeded with
// one clinic and its instance (cleaned up after the block), and a lead of that clinic.
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Database } from '../../adapters/db/database.js';
import type { Row } from '../../adapters/db/table-ops.js';
import { FakeGateway } from '../fakes/fake-gateway.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import type { ServeProcess } from './cli.js';
import { type FaultBackend, faultEnv, seedClinicWithInstance } from './fault-processes.js';
import { leadTextEvent } from './uazapi-events.js';

/** The suite's fakes (set before its first test) and its current `serve`, if any. */
export interface KillSuiteFakes {
  gateway: FakeGateway;
  openai: FakeOpenAi;
  /** The `serve` process running now; killed (SIGKILL) and cleared after each test. */
  serving: ServeProcess | undefined;
  /** The texts the gateway sent to `phone`, in order. */
  repliesTo(phone: string): string[];
  /** Posts `text` from `phone` to the running `serve`'s /leadagent as the gateway would, and checks the answer is `queued`. */
  sendLeadMessage(phone: string, text: string): Promise<void>;
}

/** Registers the hooks that start and stop the fakes of a file whose instance has `token` and number `clinicPhone`. */
export function useKillSuiteFakes(token: string, clinicPhone: string): KillSuiteFakes {
  const fakes = {
    serving: undefined,
    repliesTo: (phone: string) => fakes.gateway.sent.filter((s) => s.number === phone).map((s) => s.text),
    sendLeadMessage: async (phone: string, text: string) => {
      const answer = await fetch(`${fakes.serving!.url}/leadagent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(leadTextEvent({ phone, text, token, owner: clinicPhone })),
      });
      expect(await answer.json()).toEqual({ status: 'queued' });
    },
  } as unknown as KillSuiteFakes;
  beforeAll(async () => {
    fakes.gateway = await new FakeGateway({ tokens: { [token]: clinicPhone } }).start();
    fakes.openai = await startFakeOpenAi();
  });
  afterEach(async () => {
    await fakes.serving?.stop('SIGKILL');
    fakes.serving = undefined;
  });
  afterAll(async () => {
    await fakes.gateway?.close();
    await fakes.openai?.close();
  });
  return fakes;
}

/** A describe block's backend and the environment its `serve` runs with (set before its first test). */
export interface SeededBackend {
  backend: FaultBackend;
  env: Record<string, string>;
}

/**
 * Registers the hooks of a describe block that makes its backend (`make`), seeds it with one clinic
 * named `clinic.nome` (Hunter `clinic.hunterPhone`) whose instance has the suite's `token` and talks to
 * its fake gateway, and cleans it up after the block. `serve` runs with `overrides` over faultEnv's.
 */
export function useSeededBackend(
  fakes: KillSuiteFakes,
  make: () => Promise<FaultBackend>,
  clinic: { nome: string; hunterPhone: string; token: string },
  overrides: Record<string, string> = {},
): SeededBackend {
  const seeded = {} as SeededBackend;
  beforeAll(async () => {
    seeded.backend = await make();
    seeded.env = faultEnv(seeded.backend, fakes.openai.baseURL, overrides);
    await seedClinicWithInstance(seeded.backend, seeded.env, { ...clinic, gatewayUrl: fakes.gateway.url });
  }, 60_000);
  afterAll(async () => {
    await seeded.backend?.cleanup();
  });
  return seeded;
}

/** Inserts a lead (`phone`, `nome`) of the seeded clinic and its instance; returns its row. */
export async function insertSeededLead(db: Database, phone: string, nome: string): Promise<Row> {
  const clinic = (await db.find('clinicas_com_atendentes', { limit: 1 }))[0]!;
  const instance = (await db.find('instancias_whatsapp', { limit: 1 }))[0]!;
  return db.insert('leads', { remotejid: phone, clinica_id: clinic.id, instancia_id: instance.id, nome, telefone: phone });
}
