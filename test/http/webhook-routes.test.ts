// A webhook's extra routes (`trigger.webhook.routes`) and auth modes that split one request into
// several events (engine/triggers/webhook-pipeline.ts): each route has its own auth mode and starts
// the same flow, recorded like the main route; a request split into 0, 1 or 3 events starts that
// many executions (1: answered by the flow; otherwise 200 `{status: accepted, executions: n}`); an
// invalid event refuses the whole request (422 naming it) and records nothing; the raw bytes reach
// the mode; duplicate routes and unregistered modes are refused when the flows load.
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadFlows } from '../../cli/host.js';
import { Engine } from '../../engine/engine.js';
import { triggerLabel } from '../../engine/graph/flow-graph.js';
import { loadFlowDirectory, loadFlowText } from '../../engine/load/loader.js';
import { WebhookAuthModes } from '../../engine/triggers/auth-modes.js';
import { buildWebhookApp } from '../../engine/triggers/webhook-app.js';
import type { WebhookAuthMode } from '../../engine/triggers/webhook-auth-mode.js';
import type { ExecutionRecord, JsonObject, LoadedFlow } from '../../engine/types.js';
import { defaultRegistry } from '../../nodes/index.js';
import { captureLogger } from '../helpers/capture-logger.js';

const KEY = 'batch-key-51c0';

/**
 * A sender that batches: `X-Batch-Signature` is the hex HMAC-SHA256 of the raw body with KEY; the
 * body `{batch, items: [{text}, …]}` is split into one event per item, each `{text, n}` with
 * `trigger.auth = {batch, index}`, and each must have a string `text` (its `input`).
 */
const batchAuth: WebhookAuthMode = {
  name: 'batch-signature',
  description: 'X-Batch-Signature: hex HMAC-SHA256 of the raw body; one event per item',
  headersNeverRecorded: ['x-batch-signature'],
  async withBody(req, body, _ctx, raw) {
    const expected = createHmac('sha256', KEY).update(raw).digest('hex');
    if (req.header('x-batch-signature') !== expected) return { denied: 'bad batch signature' };
    const { batch, items } = body as { batch: string; items: JsonObject[] };
    return {
      events: items.map((item, index) => ({
        body: { ...item, n: index },
        auth: { batch, index },
        input: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } },
      })),
    };
  },
};

const FLOW = `name: inbox
trigger:
  webhook:
    path: /inbox
    auth: secret
    respond: { mode: step, timeout_ms: 5000 }
    routes:
      - { path: /inbox/batched, auth: batch-signature }
      - { path: /inbox/open, method: PUT, auth: none }
      - { path: /inbox/same }
  input:
    type: object
    properties: { n: { type: integer, maximum: 10 } }
steps:
  - id: answer
    type: respond
    params: { status: 200, body: { text: "{{ trigger.body.text }}", auth: "{{ trigger.auth }}" } }
`;

function flowsOf(text = FLOW): Map<string, LoadedFlow> {
  const { flow, problems } = loadFlowText('inbox.yaml', text, defaultRegistry());
  expect(problems).toEqual([]);
  return new Map([[flow!.name, flow!]]);
}

let running: { engine: Engine; server: Server } | undefined;

async function serve(secret?: string) {
  const logger = captureLogger();
  const engine = new Engine({ registry: defaultRegistry(), flows: flowsOf() });
  await engine.startScheduler();
  const app = buildWebhookApp({ engine, logger: logger.logger, secret, authModes: new WebhookAuthModes([batchAuth]) });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  running = { engine, server };
  return { engine, logger, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

afterEach(async () => {
  if (!running) return;
  await running.engine.shutdown();
  await new Promise((resolve) => running!.server.close(resolve));
  running = undefined;
});

function send(url: string, path: string, body: unknown, headers: Record<string, string> = {}, method = 'POST') {
  return fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** A batch signed over exactly the bytes sent. */
function sendBatch(url: string, batch: unknown, signature?: string) {
  const raw = JSON.stringify(batch);
  const sig = signature ?? createHmac('sha256', KEY).update(raw).digest('hex');
  return fetch(`${url}/inbox/batched`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-batch-signature': sig },
    body: raw,
  });
}

const records = async (engine: Engine): Promise<ExecutionRecord[]> => (await engine.store.list({ limit: 100 })).reverse();

describe('extra routes of one webhook', () => {
  it('each route starts the same flow with its own auth mode; the main route is unchanged', async () => {
    const { url, engine } = await serve('s3cret');
    expect(await (await send(url, '/inbox', { text: 'main' }, { 'x-webhook-secret': 's3cret' })).json()).toEqual({ text: 'main' });
    expect((await send(url, '/inbox', { text: 'main' })).status).toBe(401);
    // auth: none on a PUT route, whatever the secret.
    const open = await send(url, '/inbox/open', { text: 'open' }, {}, 'PUT');
    expect([open.status, await open.json()]).toEqual([200, { text: 'open' }]);
    // A route without `auth` takes the webhook's.
    expect((await send(url, '/inbox/same', { text: 'same' })).status).toBe(401);
    expect((await send(url, '/inbox/same', { text: 'same' }, { 'x-webhook-secret': 's3cret' })).status).toBe(200);
    // Only the declared method.
    expect((await send(url, '/inbox/open', { text: 'x' })).status).toBe(404);
    expect((await records(engine)).map((r) => (r.trigger.body as JsonObject).text)).toEqual(['main', 'open', 'same']);
  });

  it('a batch of 3 starts 3 executions in order, recorded like the main route; the answer counts them', async () => {
    const { url, engine } = await serve();
    const res = await sendBatch(url, { batch: 'b-1', items: [{ text: 'um' }, { text: 'dois' }, { text: 'três' }] });
    expect([res.status, await res.json()]).toEqual([200, { status: 'accepted', executions: 3 }]);
    const all = await records(engine);
    expect(all.map((r) => r.flow)).toEqual(['inbox', 'inbox', 'inbox']);
    expect(all.map((r) => [r.trigger.body, r.trigger.auth])).toEqual([
      [
        { text: 'um', n: 0 },
        { batch: 'b-1', index: 0 },
      ],
      [
        { text: 'dois', n: 1 },
        { batch: 'b-1', index: 1 },
      ],
      [
        { text: 'três', n: 2 },
        { batch: 'b-1', index: 2 },
      ],
    ]);
    for (const r of all) {
      expect((r.trigger as { headers: Record<string, string> }).headers).not.toHaveProperty('x-batch-signature');
      expect((await engine.waitForEnd(r.id)).response).toMatchObject({ status: 200, body: { text: (r.trigger.body as JsonObject).text } });
    }
  });

  it('a batch of 1 is answered by the flow, like a request that is not split', async () => {
    const { url, engine } = await serve();
    const res = await sendBatch(url, { batch: 'b-2', items: [{ text: 'só' }] });
    expect([res.status, await res.json()]).toEqual([200, { text: 'só', auth: { batch: 'b-2', index: 0 } }]);
    expect(await records(engine)).toHaveLength(1);
  });

  it('a batch of 0 answers 200 and starts nothing', async () => {
    const { url, engine } = await serve();
    const res = await sendBatch(url, { batch: 'receipts', items: [] });
    expect([res.status, await res.json()]).toEqual([200, { status: 'accepted', executions: 0 }]);
    expect(await records(engine)).toEqual([]);
  });

  it("an event that breaks its own input or the flow's refuses the whole request with 422 naming it; nothing is recorded", async () => {
    const { url, engine } = await serve();
    const bad = await sendBatch(url, { batch: 'b-3', items: [{ text: 'ok' }, { texto: 'sem text' }, { text: 7 }] });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({
      error: 'invalid input',
      details: [
        { path: '[1].text', message: 'is required' },
        { path: '[2].text', message: 'must be string' },
      ],
    });
    const items = Array.from({ length: 12 }, (_, i) => ({ text: `m${i}` }));
    const tooMany = await sendBatch(url, { batch: 'b-4', items });
    expect(tooMany.status).toBe(422);
    expect(((await tooMany.json()) as { details: Array<{ path: string }> }).details.map((d) => d.path)).toEqual(['[11].n']);
    expect(await records(engine)).toEqual([]);
  });

  it('the mode gets the raw bytes: a signature over other bytes answers 401 and records nothing', async () => {
    const { url, engine, logger } = await serve();
    const batch = { batch: 'b-5', items: [{ text: 'x' }] };
    const forged = createHmac('sha256', KEY)
      .update(JSON.stringify(batch, null, 2))
      .digest('hex');
    expect((await sendBatch(url, batch, forged)).status).toBe(401);
    expect(await records(engine)).toEqual([]);
    expect(
      logger
        .lines()
        .filter((l) => l.level === 40)
        .map((l) => l.msg),
    ).toEqual(['webhook rejected: bad batch signature']);
  });

  it("the graph's trigger names every route", () => {
    expect(triggerLabel(flowsOf().get('inbox')!)).toBe('POST /inbox, POST /inbox/batched, PUT /inbox/open, POST /inbox/same');
  });
});

describe('routes when the flows load', () => {
  function inDir(files: Record<string, string>, fn: (dir: string) => void): void {
    const dir = mkdtempSync(join(tmpdir(), 'leadflow-routes-'));
    try {
      for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
      fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('a route served twice, in one flow or by two, is a duplicate-route at its path', () => {
    const twice = FLOW.replace('{ path: /inbox/same }', '{ path: /inbox/batched, auth: none }');
    const other =
      'name: other\ntrigger:\n  webhook:\n    path: /other\n    routes:\n      - { path: /inbox/open, method: PUT }\nsteps: []\n';
    inDir({ 'a-inbox.yaml': twice }, (dir) => {
      const { flows, problems } = loadFlowDirectory(dir, defaultRegistry());
      expect(problems.map((p) => [p.line, p.col, p.code, p.path.join('.'), p.message])).toEqual([
        [
          10,
          17,
          'duplicate-route',
          'trigger.webhook.routes.2.path',
          expect.stringMatching(/^route POST \/inbox\/batched is already served by .*a-inbox\.yaml \(its trigger\.webhook\.routes\[0\]\)$/),
        ],
      ]);
      expect(flows.size).toBe(0);
    });
    inDir({ 'a-inbox.yaml': FLOW, 'b-other.yaml': other }, (dir) => {
      const { flows, problems } = loadFlowDirectory(dir, defaultRegistry());
      expect(problems.map((p) => [p.line, p.code, p.path.join('.'), p.message])).toEqual([
        [
          6,
          'duplicate-route',
          'trigger.webhook.routes.0.path',
          expect.stringMatching(/^route PUT \/inbox\/open is already served by .*a-inbox\.yaml$/),
        ],
      ]);
      expect([...flows.keys()]).toEqual(['inbox']);
    });
  });

  it('a route naming an unregistered mode is refused: by the host when the flows load, and by buildWebhookApp', () => {
    inDir({ 'inbox.yaml': FLOW }, (dir) => {
      const { problems } = loadFlows(dir);
      expect(problems).toEqual([
        expect.objectContaining({
          file: relative(process.cwd(), join(dir, 'inbox.yaml')),
          line: 8,
          col: 39,
          path: ['trigger', 'webhook', 'routes', 0, 'auth'],
          code: 'invalid-value',
          message: expect.stringMatching(
            /^flow "inbox": webhook auth "batch-signature" is not a registered mode \(registered: none, secret, /,
          ),
        }),
      ]);
    });
    const engine = new Engine({ registry: defaultRegistry(), flows: flowsOf() });
    expect(() => buildWebhookApp({ engine, logger: captureLogger().logger })).toThrow(
      'flow "inbox": webhook auth "batch-signature" is not a registered mode (registered: none, secret)',
    );
  });
});
