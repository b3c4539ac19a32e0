// Outside providers misbehaving for a while, over HTTP against the fakes (test/e2e/stack.ts), on
// both backends: an AI 429 storm (every model rate-limited several times in a row) and a gateway
// answering 500 for a while. The lead is answered once when they recover; a gateway that never
// recovers leaves the execution failed with the reason, never silently dropped.
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { CLINIC_PHONE, forEachBackend, INSTANCE_TOKEN, insertLead, startStack, type Stack } from '../e2e/stack.js';
import { leadTextEvent } from '../helpers/uazapi-events.js';

const ROOT = join(import.meta.dirname, '../..');
let phoneSeq = 0;

const event = (phone: string, text: string) => leadTextEvent({ phone, text, token: INSTANCE_TOKEN, owner: CLINIC_PHONE });

forEachBackend('provider storms', (backend) => {
  let stack: Stack;
  const repliesTo = (phone: string) => stack.gateway.sent.filter((s) => s.number === phone).map((s) => s.text);
  const newLead = async () => {
    const phone = `55119222${String(++phoneSeq).padStart(5, '0')}`;
    await insertLead(stack, phone);
    return phone;
  };

  beforeAll(async () => {
    stack = await startStack({
      backend,
      env: { LEADFLOW_FLOWS_DIR: join(ROOT, 'flows'), LEADFLOW_DEBOUNCE_MS: '100', LEADFLOW_RATE_LIMIT_WAIT_MS: '50' },
    });
  });

  afterAll(async () => {
    await stack?.close();
  });

  beforeEach(async () => {
    await stack.idle();
    stack.openai.reset();
    stack.anthropic.reset();
  });

  it('an AI 429 storm: rate-limited again and again, then the contingency answers, once', async () => {
    const phone = await newLead();
    stack.openai.queueChat(...Array.from({ length: 6 }, () => ({ status: 429, retry_after_s: 0 })), { text: 'Passou a tempestade.' });
    expect(await (await stack.post('/leadagent', event(phone, 'Oi'))).json()).toEqual({ status: 'queued' });
    await stack.idle(30_000);
    expect(repliesTo(phone)).toEqual(['Passou a tempestade.']);
    const agent = (await stack.executions('agent')).flatMap((e) => e.steps).find((s) => s.id === 'agent' && s.status === 'success');
    const attempts = (agent!.output as { attempts: Array<{ outcome: string }> }).attempts;
    expect(attempts.filter((a) => a.outcome === 'rate_limited').length).toBeGreaterThanOrEqual(6);
    expect(attempts.at(-1)).toMatchObject({ outcome: 'ok' });
  }, 60_000);

  it('the gateway answering 500 for a while: the reply is retried with backoff and delivered once', async () => {
    const phone = await newLead();
    stack.openai.queueChat({ text: 'Primeiro parágrafo.\\n\\nSegundo parágrafo.' });
    // Every request after the lead's message is recorded: 500 on the first reply send twice (the
    // client retries 3 times), then the gateway recovers.
    stack.gateway.failNext('500', 2);
    expect(await (await stack.post('/leadagent', event(phone, 'Oi'))).json()).toEqual({ status: 'queued' });
    await stack.idle(30_000);
    expect(repliesTo(phone)).toEqual(['Primeiro parágrafo.', 'Segundo parágrafo.']);
    const attempts = stack.gateway.requestsTo('/send/text').filter((r) => r.body?.number === phone);
    expect(attempts.map((r) => [r.body.text, r.status])).toEqual([
      ['Primeiro parágrafo.', 500],
      ['Primeiro parágrafo.', 500],
      ['Primeiro parágrafo.', 200],
      ['Segundo parágrafo.', 200],
    ]);
    // With a pause between tries (backoff), not a tight loop.
    expect(attempts[2]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(200);
  }, 60_000);

  it('a gateway that never recovers: the execution is failed with the reason, visible in its record', async () => {
    const phone = await newLead();
    stack.openai.queueChat({ text: 'Nunca chega.' });
    stack.gateway.failNext('500', 50);
    expect(await (await stack.post('/leadagent', event(phone, 'Oi'))).json()).toEqual({ status: 'queued' });
    await stack.idle(60_000);
    expect(repliesTo(phone)).toEqual([]);
    const failed = (await stack.executions('agent')).find((e) => e.status === 'failed' && JSON.stringify(e.trigger).includes(phone));
    expect(failed?.error?.message).toMatch(/500|Failed to send/);
    expect(failed?.error?.step).toBeTruthy();
  }, 90_000);
});
