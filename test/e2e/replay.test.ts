// Replay runs the trigger again (CONTRACT §1: "replay runs the same trigger payload again"), end to
// end over the admin API on the shipped flows, both backends: a message the agent answered, replayed,
// is answered again (its own dedupe mark does not stop it); the same execution replayed a second time
// finds the first replay's mark and stops as a duplicate, as a gateway redelivery still does; a form
// replayed is not taken for the provider's redelivery (the lead is back: return-contact message).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExecutionRecord } from '../../engine/types.js';
import { pollFor } from '../helpers/poll.js';
import { leadTextEvent } from '../helpers/uazapi-events.js';
import { CLINIC_PHONE, forEachBackend, INSTANCE_TOKEN, insertLead, startStack, type Stack } from './stack.js';

const ADMIN_TOKEN = 'replay-admin-token';

forEachBackend('replay runs the trigger again', (backend) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_ADMIN_TOKEN: ADMIN_TOKEN, LEADFLOW_DEBOUNCE_MS: '200' } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  const sentTo = (phone: string) => stack.gateway.sent.filter((s) => s.number === phone).map((s) => s.text);

  /** POST /admin/executions/:id/replay: the new execution's id. */
  async function replay(id: string): Promise<string> {
    const res = await fetch(`${stack.url}/admin/executions/${id}/replay`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { execution_id: string; replay_of: string };
    expect(body.replay_of).toBe(id);
    return body.execution_id;
  }

  const ended = async (id: string): Promise<ExecutionRecord> => {
    await stack.idle();
    return (await stack.engine.store.get(id))!;
  };

  it('a message answered, replayed, is answered again; replayed once more, it is a duplicate', async () => {
    const phone = '5511944440001';
    await insertLead(stack, phone, { nome: 'Rita' });
    const res = await stack.post('/leadagent', leadTextEvent({ phone, text: 'Quanto custa?', token: INSTANCE_TOKEN, owner: CLINIC_PHONE }));
    expect(await res.json()).toEqual({ status: 'queued' });
    await pollFor('the answer', async () => sentTo(phone).length === 1);
    await stack.idle();
    const original = (await stack.executions('agent')).find((r) => JSON.stringify(r.trigger).includes(phone) && r.status === 'success')!;
    expect(original).toBeDefined();

    const first = await ended(await replay(original.id));
    expect(first.trigger.replay_of).toBe(original.id);
    expect([first.status, first.stop_reason ?? null]).toEqual(['success', null]);
    expect(sentTo(phone)).toEqual(['Olá! Como posso ajudar?', 'Olá! Como posso ajudar?']);

    const second = await ended(await replay(original.id));
    expect([second.status, second.stop_reason]).toEqual(['stopped', 'duplicate messageid']);
    expect(sentTo(phone)).toHaveLength(2);
  });

  it("a paused lead's message replayed is kept in memory once, and still gets no reply", async () => {
    const phone = '5511944440003';
    await insertLead(stack, phone, { nome: 'Lia', pausado_ate: new Date(Date.now() + 3_600_000) });
    const res = await stack.post(
      '/leadagent',
      leadTextEvent({ phone, text: 'Ainda estão aí?', token: INSTANCE_TOKEN, owner: CLINIC_PHONE }),
    );
    expect(await res.json()).toEqual({ status: 'ignored', reason: 'agent paused' });
    await stack.idle();
    const original = (await stack.executions('agent')).find((r) => JSON.stringify(r.trigger).includes(phone))!;
    const replayed = await ended(await replay(original.id));
    expect(replayed.steps.map((s) => s.key)).toContain('remember_paused');
    const memory = await stack.runtime.db.find('wf_chat_histories', { where: { session_id: phone } });
    expect(memory.map((r) => [r.type, r.content])).toEqual([['lead', 'Ainda estão aí?']]);
    expect(sentTo(phone)).toEqual([]);
  });

  it('a form replayed is the lead coming back, not the form provider redelivering it', async () => {
    const phone = '5511944440002';
    const res = await stack.post('/form/intake', {
      nome: 'Paula Lima',
      telefone: phone,
      orcamento: 'Até R$ 3.000',
      clinica_id: stack.clinic.id,
    });
    expect(res.status).toBe(202);
    const { execution_id: originalId } = (await res.json()) as { execution_id: string };
    await pollFor('the first message', async () => sentTo(phone).length === 1);
    await stack.idle();
    // The same body again within the dedupe window is the provider's redelivery: nothing happens.
    await stack.post('/form/intake', { nome: 'Paula Lima', telefone: phone, orcamento: 'Até R$ 3.000', clinica_id: stack.clinic.id });
    await stack.idle();
    expect(sentTo(phone)).toHaveLength(1);

    const replayed = await ended(await replay(originalId));
    expect(replayed.stop_reason ?? null).not.toBe('duplicate submission');
    expect(replayed.status).toBe('success');
    expect(sentTo(phone)).toHaveLength(2);
  });
});
