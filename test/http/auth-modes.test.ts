// Webhook auth modes registered by the host (engine/triggers/auth-modes.ts): a flow naming a mode
// the host registered is served through that mode's hooks; the headers a mode declares are never
// recorded; a mode nobody registered is refused when the app is built, when the host loads the
// flows, and (after a reload) per request.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formSignatureAuth } from '../../adapters/forms/form-signature-auth.js';
import { loadFlows } from '../../cli/host.js';
import { Engine } from '../../engine/engine.js';
import { silentLogger } from '../../engine/logger.js';
import { loadFlowText } from '../../engine/load/loader.js';
import type { Logger } from '../../engine/logger.js';
import { WebhookAuthModes } from '../../engine/triggers/auth-modes.js';
import { buildWebhookApp } from '../../engine/triggers/webhook-app.js';
import type { WebhookAuthMode } from '../../engine/triggers/webhook-auth-mode.js';
import type { LoadedFlow } from '../../engine/types.js';
import { defaultRegistry } from '../../nodes/index.js';

const KEY = 'demo-key-9b1e';
const SIGNATURE_HEADER = 'x-demo-signature';

/** A host's mode: `X-Demo-Signature` must be KEY; the body's `account` becomes `trigger.auth`, `pin` is masked. */
const demoKeyAuth: WebhookAuthMode = {
  name: 'demo-key',
  description: 'X-Demo-Signature must be the demo key; the body names the account',
  headersNeverRecorded: [SIGNATURE_HEADER],
  beforeBody: (req) => (req.header(SIGNATURE_HEADER) === KEY ? 'ok' : 'denied'),
  async withBody(_req, body, ctx) {
    const account = body && typeof body === 'object' && !Array.isArray(body) ? body.account : undefined;
    if (typeof account !== 'string') return { denied: 'no account in the body' };
    return { body: { ...(body as object), pin: '***' }, auth: { account, flow: ctx.flow } };
  },
};

const flowYaml = (auth: string) => `name: guarded
trigger:
  webhook:
    path: /guarded
    auth: ${auth}
    respond: { mode: step, timeout_ms: 5000 }
steps:
  - id: answer
    type: respond
    params:
      status: 200
      body: { auth: "{{ trigger.auth }}", body: "{{ trigger.body }}" }
`;

function flowsOf(auth: string): Map<string, LoadedFlow> {
  const { flow, problems } = loadFlowText('guarded.yaml', flowYaml(auth), defaultRegistry());
  expect(problems).toEqual([]);
  return new Map([[flow!.name, flow!]]);
}

function captureLogger(): Logger & { messages: string[] } {
  const messages: string[] = [];
  const at = () => (_fields: object, message: string) => messages.push(message);
  return { messages, debug: at(), info: at(), warn: at(), error: at() };
}

let running: { engine: Engine; server: Server } | undefined;

async function serve(auth: string, logger: Logger = silentLogger): Promise<{ engine: Engine; url: string }> {
  const engine = new Engine({ registry: defaultRegistry(), flows: flowsOf(auth) });
  await engine.startScheduler();
  const app = buildWebhookApp({ engine, logger, authModes: new WebhookAuthModes([demoKeyAuth]) });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  running = { engine, server };
  return { engine, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

afterEach(async () => {
  if (!running) return;
  await running.engine.shutdown();
  await new Promise((resolve) => running!.server.close(resolve));
  running = undefined;
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/guarded`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('a host-registered auth mode', () => {
  it('serves the flow through its hooks: before the body, then its grant (masked body, trigger.auth)', async () => {
    const { url } = await serve('demo-key');
    const res = await post(url, { account: 'acme', pin: '4321' }, { [SIGNATURE_HEADER]: KEY });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ auth: { account: 'acme', flow: 'guarded' }, body: { account: 'acme', pin: '***' } });
  });

  it('a request either hook refuses answers 401 and records nothing; the log says why', async () => {
    const logger = captureLogger();
    const { url, engine } = await serve('demo-key', logger);
    expect((await post(url, { account: 'acme' }, { [SIGNATURE_HEADER]: 'wrong' })).status).toBe(401);
    expect((await post(url, { nobody: true }, { [SIGNATURE_HEADER]: KEY })).status).toBe(401);
    expect(await engine.store.list({ limit: 10 })).toEqual([]);
    expect(logger.messages).toEqual(['webhook rejected: not authenticated', 'webhook rejected: no account in the body']);
  });

  it('the headers it declares are never recorded; other headers are', async () => {
    const { url, engine } = await serve('demo-key');
    expect((await post(url, { account: 'acme' }, { [SIGNATURE_HEADER]: KEY, 'x-trace': 't-1' })).status).toBe(200);
    const [record] = await engine.store.list({ limit: 1 });
    const headers = (record!.trigger as { headers: Record<string, string> }).headers;
    expect(headers['x-trace']).toBe('t-1');
    expect(headers).not.toHaveProperty(SIGNATURE_HEADER);
    expect(JSON.stringify(record)).not.toContain(KEY);
  });
});

describe('headers never recorded', () => {
  it("are the generic credential headers plus each registered mode's", () => {
    expect([...new WebhookAuthModes([formSignatureAuth, demoKeyAuth]).headersNeverRecorded()]).toEqual([
      'authorization',
      'cookie',
      'x-webhook-secret',
      'token',
      'x-api-key',
      'typeform-signature',
      'tally-signature',
      SIGNATURE_HEADER,
    ]);
  });
});

describe('an auth mode nobody registered', () => {
  it('buildWebhookApp throws, naming the flow, the mode and the registered modes', () => {
    const engine = new Engine({ registry: defaultRegistry(), flows: flowsOf('passkey') });
    expect(() => buildWebhookApp({ engine, logger: silentLogger })).toThrow(
      'flow "guarded": webhook auth "passkey" is not a registered mode (registered: none, secret)',
    );
  });

  it('the host reports it when the flows load, at the position of `auth`', () => {
    const dir = mkdtempSync(join(tmpdir(), 'leadflow-auth-'));
    try {
      writeFileSync(join(dir, 'guarded.yaml'), flowYaml('passkey'));
      const { problems } = loadFlows(dir);
      expect(problems).toEqual([
        {
          file: relative(process.cwd(), join(dir, 'guarded.yaml')),
          line: 5,
          col: 11,
          path: ['trigger', 'webhook', 'auth'],
          code: 'invalid-value',
          // one mode per registered gateway provider (uazapi, evolution, and any added after them)
          message: expect.stringMatching(
            /^flow "guarded": webhook auth "passkey" is not a registered mode \(registered: none, secret, form-signature, instance-token, evolution-instance(, [a-z-]+)*\)$/,
          ),
        },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a flow reloaded with it answers 500 and logs the flow and mode; nothing is recorded', async () => {
    const logger = captureLogger();
    const { url, engine } = await serve('demo-key', logger);
    engine.setFlows(flowsOf('passkey'));
    const res = await post(url, { account: 'acme' }, { [SIGNATURE_HEADER]: KEY });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: 'internal error', details: [] });
    expect(await engine.store.list({ limit: 10 })).toEqual([]);
    expect(logger.messages).toContain(
      'flow "guarded": webhook auth "passkey" is not a registered mode (registered: none, secret, demo-key)',
    );
  });
});
