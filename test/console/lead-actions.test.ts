// POST /admin/leads/:id/actions (issue 14) on the in-process stack: each action's effect on the
// database (and the Hunter's notification through the fake gateway), each recorded as one
// `lead-action` execution; erase only with the exact confirmation, then the lead gone and its
// executions masked; 422 / 400 / 404 on bad input.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { LeadActionResponse } from '../../console/server/api-types.js';
import { forEachBackend, HUNTER_PHONE, type Stack, startStack } from '../e2e/stack.js';
import { ADMIN_TOKEN, signIn, type SignedIn, withSession } from './support.js';

const PHONE = '5511987654321';

forEachBackend('console lead actions', (backend) => {
  let stack: Stack;
  let session: SignedIn;
  let leadId: number;
  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN, LEADFLOW_TAKEOVER_MS: '3600000' } });
    session = await signIn(stack);
    const row = await stack.runtime.db.insert('leads', {
      clinica_id: stack.clinic.id,
      instancia_id: stack.clinic.instanceId,
      nome: 'Ana Souza',
      remotejid: PHONE,
      telefone: '(11) 98765-4321',
    });
    leadId = Number(row.id);
    for (const [type, content] of [
      ['lead', 'Quero lentes'],
      ['agent', 'Claro, Ana!'],
    ])
      await stack.runtime.db.insert('wf_chat_histories', { clinica_id: stack.clinic.id, session_id: PHONE, type, content });
  });
  afterAll(() => stack?.close());

  const act = async (body: unknown, id: number = leadId) => {
    const res = await withSession(stack, session, `/admin/leads/${id}/actions`, { method: 'POST', body });
    return { status: res.status, body: (await res.json()) as LeadActionResponse & { error?: string } };
  };
  const lead = () => stack.runtime.db.get('leads', { id: leadId });

  /** The action's execution: a succeeded lead-action with {lead_id, action} as its trigger. */
  async function expectRecorded(result: LeadActionResponse, action: string) {
    expect(result.status).toBe('success');
    const record = await stack.runtime.store.get(result.execution_id);
    expect(record).toMatchObject({ flow: 'lead-action', status: 'success', trigger: { body: { lead_id: leadId, action } } });
  }

  it('pause sets pausado_ate about LEADFLOW_TAKEOVER_MS ahead; resume clears it', async () => {
    const paused = await act({ action: 'pause' });
    expect(paused.status).toBe(200);
    await expectRecorded(paused.body, 'pause');
    expect(paused.body.lead).toMatchObject({ id: leadId, state: 'paused' });
    const until = Date.parse(String((await lead())!.pausado_ate));
    expect(until).toBeGreaterThan(Date.now() + 3_500_000);
    expect(until).toBeLessThan(Date.now() + 3_700_000);

    const resumed = await act({ action: 'resume' });
    await expectRecorded(resumed.body, 'resume');
    expect(resumed.body.lead).toMatchObject({ state: 'conversing', pausado_ate: null });
    expect((await lead())!.pausado_ate).toBeNull();
  });

  it('transfer sets the flags and notifies the Hunter; untransfer clears them and the unanswered mark', async () => {
    const before = stack.gateway.sent.length;
    const moved = await act({ action: 'transfer' });
    await expectRecorded(moved.body, 'transfer');
    expect(moved.body.lead).toMatchObject({ state: 'transferred', transferido: true });
    expect(await lead()).toMatchObject({ transferido: true, handoff_enviado: true });
    const toHunter = stack.gateway.sent.slice(before).filter((m) => m.number === HUNTER_PHONE);
    expect(toHunter).toHaveLength(1);
    expect(toHunter[0]!.text).toContain(PHONE);
    expect(toHunter[0]!.text).toContain('transferido pelo console');
    // The handoff ran as the action's child execution.
    const children = (await stack.executions('handoff')).filter((r) => r.parent_id === moved.body.execution_id);
    expect(children).toHaveLength(1);

    // A lead the AI left unanswered: taking her back from the Hunter clears the mark, as destrans does.
    await stack.runtime.db.knex('leads').where({ remotejid: PHONE }).update({ sem_resposta_at: new Date() });
    const back = await act({ action: 'untransfer' });
    await expectRecorded(back.body, 'untransfer');
    expect(back.body.lead).toMatchObject({ state: 'conversing', transferido: false, pausado_ate: null });
    expect((await lead())?.sem_resposta_at ?? null).toBeNull();
  });

  it("reset empties the lead's memory", async () => {
    const reset = await act({ action: 'reset' });
    await expectRecorded(reset.body, 'reset');
    expect(await stack.runtime.db.find('wf_chat_histories', { where: { session_id: PHONE } })).toEqual([]);
    expect(await lead()).not.toBeNull();
  });

  it('answers 422 to a bad action or body (naming the field), 400 to broken JSON and 404 to an unknown lead, starting nothing', async () => {
    const before = (await stack.executions('lead-action')).length;
    const paths = async (body: unknown) => {
      const res = await act(body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      return (res.body as unknown as { details: Array<{ path: string }> }).details.map((d) => d.path);
    };
    expect(await paths({ action: 'delete' })).toEqual(['action']);
    expect(await paths({})).toEqual(['action']);
    expect(await paths([])).toEqual(['(body)']);
    expect(await paths({ action: 'pause', confirm: 5 })).toEqual(['confirm']);
    expect((await act({ action: 'pause' }, 999_999)).status).toBe(404);
    const raw = await fetch(`${stack.url}/admin/leads/${leadId}/actions`, {
      method: 'POST',
      headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, 'content-type': 'application/json' },
      body: '{"action": ',
    });
    expect(raw.status).toBe(400);
    expect((await stack.executions('lead-action')).length).toBe(before);
  });

  it('erase needs the exact phone as confirmation; then the lead is gone and its executions masked', async () => {
    for (const confirm of [undefined, '', '11987654321', `${PHONE} `]) {
      const refused = await act({ action: 'erase', ...(confirm !== undefined ? { confirm } : {}) });
      expect(refused.status, String(confirm)).toBe(422);
    }
    expect(await lead()).not.toBeNull();

    const erased = await act({ action: 'erase', confirm: PHONE });
    expect(erased.status).toBe(200);
    expect(erased.body.lead).toBeNull();
    expect(erased.body.status).toBe('success');
    expect(await lead()).toBeNull();
    expect((await withSession(stack, session, `/admin/leads/${leadId}`)).status).toBe(404);
    // Every execution about the lead (the earlier actions, the handoff, the erase itself) keeps no trace of the phone or name.
    const all = await stack.executions();
    expect(all.filter((r) => r.flow === 'lead-action').length).toBeGreaterThanOrEqual(6);
    for (const record of all) {
      const text = JSON.stringify(record);
      expect(text, `${record.flow} ${record.id}`).not.toContain('87654321');
      expect(text, `${record.flow} ${record.id}`).not.toContain('8765-4321');
      expect(text, `${record.flow} ${record.id}`).not.toContain('Ana Souza');
    }
    const eraseRecord = await stack.runtime.store.get(erased.body.execution_id);
    expect(eraseRecord).toMatchObject({ flow: 'lead-action', status: 'success', trigger: { body: { action: 'erase' } } });
  });
});
