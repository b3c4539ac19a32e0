// A step-mode webhook whose `respond` step has not run within `timeout_ms` (the steps before it
// waiting: a database or Redis restarting, a slow call): the caller gets the trigger's `late`
// answer, as written, and the execution goes on to its end; without `late`, 202
// `{execution_id, status: "running"}`. The shipped agent flow declares CONTRACT §4's "queued".
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { loadFlowDirectory } from '../../engine/load/loader.js';
import { silentLogger } from '../../engine/logger.js';
import { WebhookAuthModes } from '../../engine/triggers/auth-modes.js';
import { buildWebhookApp } from '../../engine/triggers/webhook-app.js';
import type { LoadedFlow } from '../../engine/types.js';
import { defaultRegistry } from '../../nodes/index.js';
import { loadFlow } from '../helpers/run-flow.js';
import { slowReadNode } from '../helpers/slow-read-node.js';

/** A flow answering at a respond step that comes after a wait of `waitMs`. */
const flow = (name: string, respond: string, waitMs: number) => `
name: ${name}
trigger:
  webhook:
    path: /${name}
    auth: none
    respond: ${respond}
steps:
  - id: slow
    type: wait
    params: { ms: ${waitMs} }
  - id: answer
    type: respond
    params: { status: 200, body: { status: answered } }
`;

let open: { engine: Engine; server: Server } | undefined;
afterEach(async () => {
  if (!open) return;
  await open.engine.shutdown();
  await new Promise((resolve) => open!.server.close(resolve));
  open = undefined;
});

async function serve(flows: LoadedFlow[], registry = defaultRegistry()): Promise<string> {
  const engine = new Engine({ registry, flows: new Map(flows.map((f) => [f.name, f])) });
  await engine.startScheduler();
  const app = buildWebhookApp({ engine, logger: silentLogger, authModes: new WebhookAuthModes([]) });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  open = { engine, server };
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const post = async (url: string) => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

it("answers the trigger's late answer when the respond step comes after timeout_ms, and the execution goes on", async () => {
  const registry = defaultRegistry();
  const url = await serve([
    loadFlow(flow('late', '{ mode: step, timeout_ms: 50, late: { status: 200, body: { status: queued } } }', 400), registry),
    loadFlow(flow('default', '{ mode: step, timeout_ms: 50 }', 400), registry),
    loadFlow(flow('prompt', '{ mode: step, timeout_ms: 5000, late: { status: 200, body: { status: queued } } }', 0), registry),
  ]);
  expect(await post(`${url}/late`)).toEqual({ status: 200, json: { status: 'queued' } });
  const byDefault = await post(`${url}/default`);
  expect(byDefault).toEqual({ status: 202, json: { execution_id: expect.any(String), status: 'running' } });
  // In time, the respond step's own answer.
  expect(await post(`${url}/prompt`)).toEqual({ status: 200, json: { status: 'answered' } });
  // The late one still ran to its end.
  const engine = open!.engine;
  const late = (await engine.store.list({ limit: 10 })).find((r) => r.flow === 'late')!;
  expect((await engine.waitForEnd(late.id)).status).toBe('success');
});

it('a late answer goes out once the execution is on record, though only read-only steps ran so far (its record waits for its first write)', async () => {
  const registry = defaultRegistry().register(slowReadNode);
  const url = await serve(
    [
      loadFlow(
        `
name: reading
trigger: { webhook: { path: /reading, auth: none, respond: { mode: step, timeout_ms: 50 } } }
steps:
  - { id: slow, type: test.slow-read, params: { ms: 400 } }
  - { id: answer, type: respond, params: { status: 200, body: { status: answered } } }
`,
        registry,
      ),
    ],
    registry,
  );
  const late = await post(`${url}/reading`);
  expect(late).toEqual({ status: 202, json: { execution_id: expect.any(String), status: 'running' } });
  const engine = open!.engine;
  const id = late.json.execution_id as string;
  const stored = await engine.store.get(id);
  expect(stored?.status).toBe('running');
  expect(stored?.steps.map((s) => [s.key, s.status])).toEqual([['slow', 'running']]);
  expect((await engine.waitForEnd(id)).status).toBe('success');
});

it("the shipped agent flow's late answer is CONTRACT §4's 200 {status: queued}", () => {
  const { flows } = loadFlowDirectory(join(import.meta.dirname, '../../flows'), defaultRegistry());
  expect(flows.get('agent')?.trigger.webhook?.respond).toEqual({
    mode: 'step',
    timeout_ms: 10000,
    late: { status: 200, body: { status: 'queued' } },
  });
});
