import { createHmac } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formSignatureAuth } from '../../adapters/forms/form-signature-auth.js';
import { Engine } from '../../engine/engine.js';
import { silentLogger } from '../../engine/logger.js';
import { loadFlowDirectory } from '../../engine/load/loader.js';
import { WebhookAuthModes } from '../../engine/triggers/auth-modes.js';
import { buildWebhookApp } from '../../engine/triggers/webhook-app.js';
import { defaultRegistry } from '../../nodes/index.js';

const FLOWS = join(import.meta.dirname, '../fixtures/http-flows');

interface Running {
  engine: Engine;
  server: Server;
  url: string;
}

let running: Running | undefined;

async function serve(secret?: string): Promise<Running> {
  const registry = defaultRegistry();
  const { flows, problems } = loadFlowDirectory(FLOWS, registry);
  expect(problems).toEqual([]);
  const engine = new Engine({ registry, flows });
  await engine.startScheduler();
  const app = buildWebhookApp({ engine, logger: silentLogger, secret, authModes: new WebhookAuthModes([formSignatureAuth]) });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  running = { engine, server, url: `http://127.0.0.1:${port}` };
  return running;
}

afterEach(async () => {
  if (!running) return;
  await running.engine.shutdown();
  await new Promise((resolve) => running!.server.close(resolve));
  running = undefined;
});

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function json(res: Response): Promise<any> {
  return res.json();
}

async function executionCount(engine: Engine): Promise<number> {
  return (await engine.store.list({ limit: 1000 })).length;
}

describe('webhook HTTP surface', () => {
  it('answers GET /healthz', async () => {
    const { url } = await serve();
    const res = await fetch(`${url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers 404 in JSON for a path no flow serves', async () => {
    const { url } = await serve();
    const res = await post(`${url}/nope`, {});
    expect(res.status).toBe(404);
    expect((await json(res)).error).toMatch(/no flow serves POST \/nope/);
  });

  it('starts an execution and answers 202 {execution_id} for a valid body', async () => {
    const { url, engine } = await serve();
    const res = await post(`${url}/lead`, { nome: 'Ana', telefone: '5511987654321' });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { execution_id: string };
    expect(Object.keys(body)).toEqual(['execution_id']);
    const record = await engine.waitForEnd(body.execution_id);
    expect(record.status).toBe('success');
    expect(record.steps[0]!.output).toEqual({ text: 'Olá, Ana' });
  });

  it('rejects a non-JSON content type with 415 and runs nothing', async () => {
    const { url, engine } = await serve();
    const res = await fetch(`${url}/lead`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'nome=Ana' });
    expect(res.status).toBe(415);
    expect((await json(res)).error).toMatch(/application\/json/);
    expect(await executionCount(engine)).toBe(0);
  });

  it('rejects a body over 1 MiB with 413', async () => {
    const { url, engine } = await serve();
    const big = JSON.stringify({ nome: 'x'.repeat(1024 * 1024), telefone: '1' });
    const res = await post(`${url}/lead`, big);
    expect(res.status).toBe(413);
    expect(await executionCount(engine)).toBe(0);
  });

  it('accepts a body just under 1 MiB', async () => {
    const { url } = await serve();
    const body = JSON.stringify({ nome: 'x'.repeat(1024 * 1024 - 100), telefone: '1' });
    const res = await post(`${url}/lead`, body);
    expect(res.status).toBe(202);
  });

  it('rejects invalid JSON with 400', async () => {
    const { url, engine } = await serve();
    const res = await post(`${url}/lead`, '{"nome": ');
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.error).toBe('invalid JSON');
    expect(await executionCount(engine)).toBe(0);
  });

  it('rejects input that breaks the flow schema with 422 and one detail per path', async () => {
    const { url, engine } = await serve();
    const res = await post(`${url}/lead`, { nome: '', telefone: '+55 11' });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { error: string; details: Array<{ path: string; message: string }> };
    expect(body.error).toBe('invalid input');
    expect(body.details.map((d) => d.path).sort()).toEqual(['nome', 'telefone']);
    const missing = await post(`${url}/lead`, {});
    const missingBody = (await missing.json()) as { details: Array<{ path: string }> };
    expect(missingBody.details.map((d) => d.path).sort()).toEqual(['nome', 'telefone']);
    expect(await executionCount(engine)).toBe(0);
  });

  it('answers at the respond step and lets the flow go on', async () => {
    const { url, engine } = await serve();
    const res = await post(`${url}/ask`, { n: 21 });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { doubled: number; execution: string };
    expect(body.doubled).toBe(42);
    const atAnswer = await engine.store.get(body.execution);
    expect(atAnswer?.status).not.toBe('success');
    const done = await engine.waitForEnd(body.execution);
    expect(done.status).toBe('success');
    expect(done.steps.map((s) => s.id)).toEqual(['answer', 'reply', 'later', 'done']);
  });

  it('answers a step-mode flow that never responds with its final status', async () => {
    const { url } = await serve();
    const res = await post(`${url}/silent`, {});
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'success' });
  });

  it('answers 500 without internals when a step-mode flow fails', async () => {
    const { url } = await serve();
    const res = await post(`${url}/broken`, {});
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text).error).toBe('execution failed');
    expect(text).not.toMatch(/\bat .*\.(ts|js):\d+/);
    expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1:1/);
  });
});

describe('webhook authentication', () => {
  const SECRET = 's3cret-value';

  it('rejects a missing or wrong secret with 401 and leaves no execution', async () => {
    const { url, engine } = await serve(SECRET);
    const missing = await post(`${url}/lead`, { nome: 'Ana', telefone: '1' });
    expect(missing.status).toBe(401);
    const wrong = await post(`${url}/lead`, { nome: 'Ana', telefone: '1' }, { 'x-webhook-secret': 'nope' });
    expect(wrong.status).toBe(401);
    const wrongQuery = await post(`${url}/lead?secret=s3cret-valuE`, { nome: 'Ana', telefone: '1' });
    expect(wrongQuery.status).toBe(401);
    expect(await executionCount(engine)).toBe(0);
  });

  it('rejects before reading the body: an unauthenticated bad body still gets 401', async () => {
    const { url } = await serve(SECRET);
    const res = await fetch(`${url}/lead`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(res.status).toBe(401);
  });

  it('accepts the secret as header or query, and never stores it', async () => {
    const { url, engine } = await serve(SECRET);
    const byHeader = await post(`${url}/lead`, { nome: 'Ana', telefone: '1' }, { 'x-webhook-secret': SECRET });
    expect(byHeader.status).toBe(202);
    const byQuery = await post(`${url}/lead?secret=${SECRET}`, { nome: 'Ana', telefone: '1' });
    expect(byQuery.status).toBe(202);
    for (const id of [(await json(byHeader)).execution_id, (await json(byQuery)).execution_id]) {
      const record = await engine.waitForEnd(id);
      expect(JSON.stringify(record)).not.toContain(SECRET);
    }
  });

  it('lets `auth: none` flows through without the secret', async () => {
    const { url } = await serve(SECRET);
    const res = await post(`${url}/silent`, {});
    expect(res.status).toBe(200);
  });

  it('accepts valid Typeform and Tally signatures of the raw body and rejects forged ones', async () => {
    const { url, engine } = await serve(SECRET);
    const raw = JSON.stringify({ event_id: 'e1', form_response: { answers: [] } });
    const digest = createHmac('sha256', SECRET).update(raw).digest('base64');
    const typeform = await post(`${url}/form`, raw, { 'typeform-signature': `sha256=${digest}` });
    expect(typeform.status).toBe(202);
    const tally = await post(`${url}/form`, raw, { 'tally-signature': digest });
    expect(tally.status).toBe(202);
    const tampered = await post(`${url}/form`, raw.replace('e1', 'e2'), { 'typeform-signature': `sha256=${digest}` });
    expect(tampered.status).toBe(401);
    const wrongKey = createHmac('sha256', 'other').update(raw).digest('base64');
    const forged = await post(`${url}/form`, raw, { 'tally-signature': wrongKey });
    expect(forged.status).toBe(401);
    const noPrefix = await post(`${url}/form`, raw, { 'typeform-signature': digest });
    expect(noPrefix.status).toBe(401);
    expect(await executionCount(engine)).toBe(2);
  });
});
