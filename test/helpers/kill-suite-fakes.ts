// What a kill-and-restart suite of the agent (test/queue/journal-kill.test.ts, park-kill.test.ts)
// shares: the fake gateway knowing the suite's instance token, the fake OpenAI, and the `serve`
// process the test starts, kills and starts again — SIGKILLed after each test, the fakes closed
// after the file.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { FakeGateway } from '../fakes/fake-gateway.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import type { ServeProcess } from './cli.js';

/** The suite's fakes (set before its first test) and its current `serve`, if any. */
export interface KillSuiteFakes {
  gateway: FakeGateway;
  openai: FakeOpenAi;
  /** The `serve` process running now; killed (SIGKILL) and cleared after each test. */
  serving: ServeProcess | undefined;
  /** The texts the gateway sent to `phone`, in order. */
  repliesTo(phone: string): string[];
}

/** Registers the hooks that start and stop the fakes of a file whose instance has `token` and number `clinicPhone`. */
export function useKillSuiteFakes(token: string, clinicPhone: string): KillSuiteFakes {
  const fakes = {
    serving: undefined,
    repliesTo: (phone: string) => fakes.gateway.sent.filter((s) => s.number === phone).map((s) => s.text),
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
