// POST /admin/executions/:id/cancel on the stack wired as `serve` wires it, on both backends: a form's
// follow-up (a `followup` execution waiting a day, LEADFLOW_FOLLOWUP_AFTER_MS) is cancelled with the
// session cookie and its CSRF token, or the bearer; 401 without either, 403 without the CSRF token
// or from another origin, 404 for an unknown id, 409 (its status in the error) when it is not running
// or waiting, 422 for a bad body (415 / 400 for a non-JSON or broken one); the cancel is counted in
// leadflow_executions_total{status="cancelled"} and the wait never runs on.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AdminErrorBody, CancelExecutionResponse } from '../../engine/triggers/admin-api-types.js';
import { forEachBackend, type Stack, startStack } from '../e2e/stack.js';
import { parseMetrics, sampleValue } from '../helpers/metrics-text.js';
import { ADMIN_TOKEN, signIn, type SignedIn, withBearer, withSession } from './support.js';

forEachBackend('cancel an execution over the admin API', (backend) => {
  let stack: Stack;
  let session: SignedIn;
  let phone = 5511977770000;

  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN, LEADFLOW_FOLLOWUP_AFTER_MS: '86400000' } });
    session = await signIn(stack);
  }, 60_000);
  afterAll(() => stack?.close());

  /** A new lead's form; resolves to its follow-up execution, waiting a day. */
  async function waitingFollowup(): Promise<string> {
    const telefone = String(++phone);
    const res = await stack.post('/form/intake', { nome: 'Clara Dias', telefone, orcamento: 'Até R$ 3.000', clinica_id: stack.clinic.id });
    expect(res.status).toBe(202);
    for (let tries = 0; tries < 300; tries++) {
      const found = (await stack.executions('followup')).find((r) => r.status === 'waiting' && r.concurrency_key?.endsWith(telefone));
      if (found && found.wake_at !== undefined) return found.id;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no waiting follow-up for ${telefone}`);
  }

  const cancel = (id: string, body?: unknown, init: { csrf?: boolean; headers?: Record<string, string> } = {}) =>
    withSession(stack, session, `/admin/executions/${id}/cancel`, { method: 'POST', ...(body !== undefined ? { body } : {}), ...init });

  const cancelledTotal = async () =>
    sampleValue(parseMetrics(await (await fetch(`${stack.url}/metrics`)).text()), 'leadflow_executions_total', {
      flow: 'followup',
      status: 'cancelled',
    }) ?? 0;

  it('cancels a waiting execution with the session (and its CSRF token): 200, no wake time left, counted', async () => {
    const id = await waitingFollowup();
    const before = await cancelledTotal();
    const res = await cancel(id, { reason: 'pedido da clínica' });
    expect(res.status).toBe(200);
    expect((await res.json()) as CancelExecutionResponse).toEqual({ id, status: 'cancelled' });
    const record = (await stack.runtime.store.get(id))!;
    expect(record).toMatchObject({ status: 'cancelled', stop_reason: 'pedido da clínica' });
    expect(record.wake_at).toBeUndefined();
    expect(record.finished_at).toBeDefined();
    expect(await cancelledTotal()).toBe(before + 1);
    // Cancelled already: 409, its status named.
    const again = await cancel(id);
    expect(again.status).toBe(409);
    const body = (await again.json()) as AdminErrorBody;
    expect(body.error).toBe('execution is cancelled: only a running or waiting execution can be cancelled');
    expect(body.details).toEqual([{ path: 'status', message: 'cancelled' }]);
  });

  it('with the bearer and no body: the default reason', async () => {
    const id = await waitingFollowup();
    const res = await withBearer(stack, `/admin/executions/${id}/cancel`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect((await stack.runtime.store.get(id))!).toMatchObject({ status: 'cancelled', stop_reason: 'cancelled by an operator' });
  });

  it('409 for a finished execution, with its status; 404 for an unknown id', async () => {
    const [intake] = (await stack.executions('intake')).filter((r) => r.status === 'success');
    expect(intake).toBeDefined();
    const res = await cancel(intake!.id);
    expect(res.status).toBe(409);
    expect(((await res.json()) as AdminErrorBody).error).toBe('execution is success: only a running or waiting execution can be cancelled');
    expect((await stack.runtime.store.get(intake!.id))!.status).toBe('success');
    const unknown = await cancel('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as AdminErrorBody).error).toBe('no such execution');
  });

  it('refuses without authentication (401), without the CSRF token or from another origin (403); changes nothing', async () => {
    const id = await waitingFollowup();
    const bare = await fetch(`${stack.url}/admin/executions/${id}/cancel`, { method: 'POST' });
    expect(bare.status).toBe(401);
    const wrongBearer = await fetch(`${stack.url}/admin/executions/${id}/cancel`, {
      method: 'POST',
      headers: { authorization: 'Bearer nope' },
    });
    expect(wrongBearer.status).toBe(401);
    expect((await cancel(id, undefined, { csrf: false })).status).toBe(403);
    expect((await cancel(id, undefined, { headers: { origin: 'https://evil.example' } })).status).toBe(403);
    expect((await stack.runtime.store.get(id))!.status).toBe('waiting');
  });

  it('422 for a bad body (415 not JSON, 400 broken JSON); changes nothing', async () => {
    const id = await waitingFollowup();
    for (const body of [{ reason: '' }, { reason: 'x'.repeat(201) }, { reason: 7 }, { motivo: 'x' }, ['x'], 'texto']) {
      const res = await cancel(id, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(((await res.json()) as AdminErrorBody).error).toBe('invalid input');
    }
    const plain = await withSession(stack, session, `/admin/executions/${id}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
    });
    // No body sent: the type of an absent body does not matter.
    expect(plain.status).toBe(200);
    const next = await waitingFollowup();
    const typed = await fetch(`${stack.url}/admin/executions/${next}/cancel`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'text/plain' },
      body: 'reason=x',
    });
    expect(typed.status).toBe(415);
    const broken = await fetch(`${stack.url}/admin/executions/${next}/cancel`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
      body: '{"reason": ',
    });
    expect(broken.status).toBe(400);
    expect((await stack.runtime.store.get(next))!.status).toBe('waiting');
    const long = await cancel(next, { reason: 'y'.repeat(200) });
    expect(long.status).toBe(200);
  });
});
