// A message accepted by a process that died before buffering it, on ANOTHER machine (so no dead-pid
// check can tell), while the lead's burst window ends elsewhere: the drain must wait until that
// execution's lease lapses, it is taken over and buffers its message — one answer with both
// messages, not two. The interrupted execution is recorded as the dead process left it: `running`,
// no step done, under a lease of `elsewhere:<pid>:…` that is no longer renewed.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExecutionRecord } from '../../engine/types.js';
import { CLINIC_PHONE, forEachBackend, INSTANCE_TOKEN, startStack, type Stack } from '../e2e/stack.js';
import { leadTextEvent } from '../helpers/uazapi-events.js';

let stack: Stack;
let phoneSeq = 0;
const nextPhone = () => `55119${String(61000000 + ++phoneSeq * 1313).padStart(8, '0')}`;

async function createLead(phone: string) {
  await stack.runtime.db.insert('leads', {
    remotejid: phone,
    clinica_id: stack.clinic.id,
    instancia_id: stack.clinic.instanceId,
    nome: 'Ana Lima',
    telefone: phone,
    orcamento: 'Até R$ 3.000',
  });
}

const lastUserText = (request: any): string => {
  const last = request.messages.filter((m: any) => m.role === 'user').at(-1);
  return typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
};

/** Records `body` as an agent execution another machine took and died in, its lease lapsing in `lapseInMs`. */
async function interruptedElsewhere(first: ExecutionRecord, body: Record<string, unknown>, lapseInMs: number): Promise<string> {
  const now = new Date().toISOString();
  const record: ExecutionRecord = {
    id: randomUUID(),
    flow: 'agent',
    status: 'running',
    trigger: { ...(first.trigger as object), body: body as any },
    vars: {},
    steps: [],
    outbound: [],
    dry_run: false,
    created_at: now,
    updated_at: now,
  };
  await stack.runtime.store.insertLeased(record, { owner: 'elsewhere.example:4242:deadbeef', until: Date.now() + lapseInMs });
  return record.id;
}

forEachBackend('burst with a message interrupted on another machine', (backend) => {
  beforeAll(async () => {
    stack = await startStack({ backend, env: { LEADFLOW_DEBOUNCE_MS: '200', LEADFLOW_DEBOUNCE_MAX_MS: '2000' } });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('waits for the interrupted execution to be taken over: one agent run answers both messages', async () => {
    const phone = nextPhone();
    await createLead(phone);
    stack.openai.queueChat({ text: 'Oi Ana! Posso te contar como funciona?' });
    const firstBody = leadTextEvent({ phone, text: 'oi, tudo bem?', token: INSTANCE_TOKEN, owner: CLINIC_PHONE });
    expect(await (await stack.post('/leadagent', firstBody)).json()).toEqual({ status: 'queued' });
    const [first] = await stack.executions('agent');
    // The second message: accepted by a process elsewhere that died before buffering it. Its lease
    // lapses 1.5 s from now, long after the first message's 200 ms window.
    const interrupted = await interruptedElsewhere(
      first!,
      leadTextEvent({ phone, text: 'quero saber das lentes', token: INSTANCE_TOKEN, owner: CLINIC_PHONE }),
      1_500,
    );

    await stack.idle(20_000);
    const chats = stack.openai.chatRequests();
    expect(chats).toHaveLength(1);
    expect(lastUserText(chats[0])).toMatch(/oi, tudo bem\?\nquero saber das lentes/);
    expect(stack.gateway.sent.filter((s) => s.number === phone).map((s) => s.text)).toEqual(['Oi Ana! Posso te contar como funciona?']);
    // The interrupted execution was taken over and ran to its end.
    const taken = await stack.runtime.store.get(interrupted);
    expect(taken?.status).toMatch(/success|stopped/);
    expect(taken?.steps.some((s) => s.id === 'burst')).toBe(true);
  });

  it('a holder that is merely late renewing does not hold the burst back past its lease', async () => {
    const phone = nextPhone();
    await createLead(phone);
    stack.openai.queueChat({ text: 'Oi Ana!' });
    const started = Date.now();
    const body = leadTextEvent({ phone, text: 'bom dia', token: INSTANCE_TOKEN, owner: CLINIC_PHONE });
    expect(await (await stack.post('/leadagent', body)).json()).toEqual({ status: 'queued' });
    const [first] = await stack.executions('agent');
    // A running execution of another lead, whose (live) holder renews late: looks interrupted
    // until it renews. The drain waits while in doubt, then answers at once once renewed.
    const otherPhone = nextPhone();
    const other = await interruptedElsewhere(
      first!,
      leadTextEvent({ phone: otherPhone, text: 'x', token: INSTANCE_TOKEN, owner: CLINIC_PHONE }),
      5_000,
    );
    await new Promise((r) => setTimeout(r, 1_200));
    expect(stack.gateway.sent.filter((s) => s.number === phone)).toHaveLength(0);
    // The holder renews (its lease now runs 30 s ahead): no longer in doubt.
    await stack.runtime.store.renewLease(other, { owner: 'elsewhere.example:4242:deadbeef', until: Date.now() + 30_000 });
    for (let i = 0; i < 100 && stack.gateway.sent.filter((s) => s.number === phone).length === 0; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(stack.gateway.sent.filter((s) => s.number === phone).map((s) => s.text)).toEqual(['Oi Ana!']);
    // Answered before the late holder's lease would have lapsed (5 s), so no needless wait.
    expect(Date.now() - started).toBeLessThan(4_500);
    // Let the "holder" finish so the stack can go idle: it ends its execution as stopped.
    const record = await stack.runtime.store.get(other);
    await stack.runtime.store.update({
      ...record!,
      status: 'stopped',
      stop_reason: 'test holder finished',
      finished_at: new Date().toISOString(),
    });
  });
});
