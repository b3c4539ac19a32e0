// The `serve` helper's stop resolves for a server already gone, whether it exited or was killed.
import { once } from 'node:events';
import { afterAll, expect, it } from 'vitest';
import { removeScratch, startServe } from './cli.js';

afterAll(removeScratch);

it('stop resolves at once for a serve killed by a signal before it', async () => {
  const serve = await startServe([]);
  serve.child.kill('SIGKILL');
  await once(serve.child, 'close');
  const late = new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 2_000).unref());
  // Its `close` is past: a stop waiting for it would never resolve.
  expect(await Promise.race([serve.stop(), late])).toBeNull();
});
