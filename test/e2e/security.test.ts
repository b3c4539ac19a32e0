// The HTTP surface's security with the whole service wired as `serve` wires it (test/e2e/stack.ts):
// the instance-token check of POST /leadagent against the seeded `instancias_whatsapp`, the admin
// surface behind LEADFLOW_ADMIN_TOKEN on the database execution store (replay and dry-run replay as
// the CLI does them), and the log lines of a real agent execution through the service's pino logger.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { maskPhone } from '../../adapters/phones/mask-phone.js';
import { captureLogger } from '../helpers/capture-logger.js';
import type { ExecutionRecord } from '../../engine/types.js';
import { CLINIC_PHONE, forEachBackend, INSTANCE_TOKEN, startStack, type Stack } from './stack.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/uazapi');
const ADMIN_TOKEN = 'admin-e2e-9b1f77c4';
const SECRET = 'e2e-webhook-secret-3d9a';

let seq = 0;
/** A fresh lead phone per test (dedupe, burst and lock keys never mix). */
const nextPhone = () => `55119${String(81000000 + ++seq * 1313).padStart(8, '0')}`;

const MISSING = Symbol('no token');

/** A text message event from `phone` to the seeded instance (`MISSING`: without a `token`). */
function event(phone: string, text: string, token: unknown = INSTANCE_TOKEN): Record<string, any> {
  const body = JSON.parse(readFileSync(join(FIXTURES, 'text-conversation.json'), 'utf8'));
  if (token === MISSING) delete body.token;
  else body.token = token;
  body.owner = CLINIC_PHONE;
  const jid = `${phone}@s.whatsapp.net`;
  body.chat.wa_chatid = jid;
  Object.assign(body.message, {
    messageid: `3EB0SEC${String(++seq).padStart(12, '0')}`,
    chatid: jid,
    sender_pn: jid,
    fromMe: false,
    wasSentByApi: false,
    text,
    content: text,
  });
  return body;
}

async function lead(stack: Stack, phone: string): Promise<void> {
  await stack.runtime.db.insert('leads', {
    remotejid: phone,
    clinica_id: stack.clinic.id,
    instancia_id: stack.clinic.instanceId,
    nome: 'Joana Lima',
    telefone: phone,
    orcamento: 'Até R$ 3.000',
  });
}

async function answer(res: Response): Promise<{ status: number; json: any }> {
  return { status: res.status, json: await res.json() };
}

forEachBackend('security: POST /leadagent instance token', (backend) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ backend });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('an unknown token: 401, no execution stored, nothing sent', async () => {
    const phone = nextPhone();
    await lead(stack, phone);
    const before = (await stack.executions()).length;
    expect(await answer(await stack.post('/leadagent', event(phone, 'Oi', 'unknown-token-5c1e')))).toEqual({
      status: 401,
      json: { error: 'unauthorized', details: [] },
    });
    expect(await stack.executions()).toHaveLength(before);
    await stack.idle();
    expect(stack.gateway.sent.filter((s) => s.number === phone)).toEqual([]);
  });

  it('a missing token (or one that is not a string): 401, no execution stored', async () => {
    const phone = nextPhone();
    const before = (await stack.executions()).length;
    for (const token of [MISSING, '', 42, null, { token: INSTANCE_TOKEN }]) {
      expect((await stack.post('/leadagent', event(phone, 'Oi', token))).status).toBe(401);
    }
    expect(await stack.executions()).toHaveLength(before);
  });

  it('a registered token: the execution has the instance as trigger.auth and never the token', async () => {
    const phone = nextPhone();
    const res = await answer(await stack.post('/leadagent', event(phone, 'Oi')));
    expect(res).toEqual({ status: 200, json: { status: 'ignored', reason: 'not a lead' } });
    const [record] = await stack.executions('agent');
    expect(record!.trigger).toMatchObject({
      body: { token: '***' },
      auth: { instance_id: stack.clinic.instanceId, clinica_id: stack.clinic.id },
    });
    expect(JSON.stringify(record)).not.toContain(INSTANCE_TOKEN);
  });

  it('with LEADFLOW_WEBHOOK_SECRET set, /leadagent needs the secret and the token', async () => {
    const guarded = await startStack({ backend, env: { LEADFLOW_WEBHOOK_SECRET: SECRET } });
    try {
      const phone = nextPhone();
      expect((await guarded.post('/leadagent', event(phone, 'Oi'))).status).toBe(401);
      expect((await guarded.post('/leadagent', event(phone, 'Oi', 'wrong'), { 'x-webhook-secret': SECRET })).status).toBe(401);
      expect(await guarded.executions()).toHaveLength(0);
      expect((await guarded.post('/leadagent', event(phone, 'Oi'), { 'x-webhook-secret': SECRET })).status).toBe(200);
      expect((await guarded.post(`/leadagent?secret=${SECRET}`, event(phone, 'Oi de novo'))).status).toBe(200);
      await guarded.idle();
      expect(JSON.stringify(await guarded.executions())).not.toMatch(new RegExp(`${INSTANCE_TOKEN}|${SECRET}`));
    } finally {
      await guarded.close();
    }
  });
});

forEachBackend('security: admin HTTP surface', (backend) => {
  let stack: Stack;
  const get = (path: string, token = ADMIN_TOKEN) => fetch(`${stack.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const replay = (id: string, query = '') =>
    fetch(`${stack.url}/admin/executions/${id}/replay${query}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('is off (404) when LEADFLOW_ADMIN_TOKEN is unset', async () => {
    const off = await startStack({ backend });
    try {
      const res = await fetch(`${off.url}/admin/executions`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'no flow serves GET /admin/executions', details: [] });
    } finally {
      await off.close();
    }
  });

  it('a wrong or missing bearer: 401', async () => {
    expect(await answer(await get('/admin/executions', 'wrong'))).toEqual({ status: 401, json: { error: 'unauthorized', details: [] } });
    expect((await fetch(`${stack.url}/admin/executions`)).status).toBe(401);
    expect((await fetch(`${stack.url}/admin/executions/x/replay`, { method: 'POST' })).status).toBe(401);
  });

  it('list, show, replay and dry-run replay an agent execution', async () => {
    const phone = nextPhone();
    expect((await stack.post('/leadagent', event(phone, 'Oi'))).status).toBe(200);
    await stack.idle();
    const [original] = await stack.executions('agent');

    const list = await answer(await get('/admin/executions?flow=agent&status=stopped&limit=5'));
    expect(list.status).toBe(200);
    expect(list.json.executions[0]).toMatchObject({
      id: original!.id,
      flow: 'agent',
      status: 'stopped',
      stop_reason: 'not a lead',
      dry_run: false,
    });
    expect(list.json.executions.length).toBeLessThanOrEqual(5);

    const shown = await answer(await get(`/admin/executions/${original!.id}`));
    expect(shown.status).toBe(200);
    const record = shown.json as ExecutionRecord;
    expect(record.steps.map((s) => s.id)).toContain('lead');
    expect(record.steps.find((s) => s.id === 'instance')).toMatchObject({
      status: 'success',
      output: { id: stack.clinic.instanceId, clinica_id: stack.clinic.id },
    });
    expect(JSON.stringify(record)).not.toContain(INSTANCE_TOKEN);
    expect((await get('/admin/executions/00000000-0000-0000-0000-000000000000')).status).toBe(404);
    expect((await get(`/admin/executions/${'x'.repeat(100)}`)).status).toBe(404);

    const again = await answer(await replay(original!.id));
    expect(again.status).toBe(202);
    expect(again.json.replay_of).toBe(original!.id);
    const replayed = await stack.engine.waitForEnd(again.json.execution_id);
    expect(replayed).toMatchObject({
      flow: 'agent',
      status: 'stopped',
      stop_reason: 'not a lead',
      trigger: { auth: { instance_id: stack.clinic.instanceId } },
    });
    expect((await stack.executions('agent')).map((r) => r.id)).toContain(replayed.id);

    const before = (await stack.executions()).length;
    const dry = await answer(await replay(original!.id, '?dry_run=true'));
    expect(dry.status).toBe(200);
    expect(dry.json.execution).toMatchObject({ flow: 'agent', status: 'stopped', dry_run: true });
    // A dry run is kept in memory only.
    expect(await stack.executions()).toHaveLength(before);
  });
});

forEachBackend('security: logs of a real agent execution', (backend) => {
  let stack: Stack;
  let logs: () => string = () => '';
  beforeAll(async () => {
    const captured = captureLogger();
    logs = captured.text;
    stack = await startStack({ backend, logger: captured.logger });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("never print the lead's phone nor the instance token; one info line per execution, debug per step, with execution and flow", async () => {
    const phone = nextPhone();
    await lead(stack, phone);
    expect(await (await stack.post('/leadagent', event(phone, 'Quanto custa a lente?'))).json()).toEqual({ status: 'queued' });
    await new Promise((r) => setTimeout(r, 300));
    await stack.idle();
    expect(stack.gateway.sent.filter((s) => s.number === phone).map((s) => s.text)).toEqual(['Olá! Como posso ajudar?']);
    expect((await stack.post('/leadagent', event(phone, 'Oi', 'leaked-token-a81f'))).status).toBe(401);
    await stack.idle();

    const output = logs();
    const lines = output
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    const executions = (await stack.executions('agent')).map((r) => r.id);
    expect(executions.length).toBeGreaterThan(0);
    for (const id of executions) {
      expect(
        lines.some((l) => l.level === 30 && l.execution === id && l.flow === 'agent' && /^execution (finished|waiting)/.test(l.msg)),
      ).toBe(true);
      expect(lines.some((l) => l.level === 20 && l.msg === 'step' && l.execution === id && l.flow === 'agent')).toBe(true);
    }
    expect(lines.some((l) => l.level === 40 && l.msg === 'webhook rejected: missing or unknown instance token')).toBe(true);
    // The send line names the lead masked; the digits never appear, nor any token.
    expect(output).toContain(maskPhone(phone));
    expect(output).not.toContain(phone);
    expect(output).not.toContain(phone.slice(2));
    expect(output).not.toContain(INSTANCE_TOKEN);
    expect(output).not.toContain('leaked-token-a81f');
  });
});
