// gateway.send in real flows: loaded from YAML, run by the Engine against the fake uazapi server.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FakeGateway, startFakeGateway } from '../fakes/fake-gateway.js';
import { runFlow, shutdownEngines, stepRecord } from '../helpers/run-flow.js';
import { messagingRegistry, messagingServices, type MessagingServices } from './helpers/messaging-engine.js';

const TOKEN = 'inst-tok-91c2-SECRET';
const PHONE = '5543999806366';
let fake: FakeGateway;
let services: MessagingServices;

beforeEach(async () => {
  fake = await startFakeGateway({ tokens: { [TOKEN]: '5511912345678' }, holdForDelay: true });
  services = messagingServices([
    { id: 1, clinica_id: 10, server_url: fake.url, token: TOKEN },
    { id: 2, clinica_id: 10, server_url: fake.url, token: 'revoked-token-777' },
  ]);
});

afterEach(async () => {
  await shutdownEngines();
  await fake.close();
});

const replyFlow = `
name: reply
env: { LEADFLOW_TYPING_MIN_MS: 1500, LEADFLOW_TYPING_MAX_MS: 4000 }
steps:
  - id: send
    type: gateway.send
    params:
      instance_id: "{{ trigger.body.instance_id }}"
      number: "{{ trigger.body.phone }}"
      messages: "{{ trigger.body.parts }}"
      typing_min_ms: "{{ env.LEADFLOW_TYPING_MIN_MS }}"
      typing_max_ms: "{{ env.LEADFLOW_TYPING_MAX_MS }}"
`;

const env = { LEADFLOW_TYPING_MIN_MS: '30', LEADFLOW_TYPING_MAX_MS: '90' };

function run(body: object, options: { dryRun?: boolean; flow?: string } = {}) {
  return runFlow(options.flow ?? replyFlow, {
    body: body as never,
    engine: { registry: messagingRegistry, services: services as never, env },
    start: { dryRun: options.dryRun ?? false },
  });
}

describe('gateway.send', () => {
  it('a retry after a failure in the middle sends only the messages not yet delivered: none twice, none lost', async () => {
    const flow = replyFlow.replace('    type: gateway.send\n', '    type: gateway.send\n    retry: { attempts: 2, delay_ms: 10 }\n');
    const parts = ['primeira', 'segunda', 'terceira'];
    // The first message goes through; the second fails both tries of the client (retries: 1).
    fake.failNext('500', 2, { skip: 1 });
    const failing = run({ instance_id: 1, phone: PHONE, parts }, { flow });
    // Once the queued failures are spent, the step's retry resumes after the first message.
    const { record } = await failing;
    expect(record.status).toBe('success');
    expect(fake.sent.map((m) => m.text)).toEqual(parts);
    expect(stepRecord(record, 'send')).toMatchObject({ attempt: 2, output: { sent: 3 } });
  });

  it('sends the messages one by one, in order, each with a typing delay in range', async () => {
    const parts = ['Olá, Maria!', 'Aqui é a Ana da Clínica Sorriso.', 'Posso te ajudar com o clareamento?'];
    const { record } = await run({ instance_id: 1, phone: PHONE, parts });
    expect(record.status).toBe('success');
    expect(fake.sent.map((m) => m.text)).toEqual(parts);
    for (const req of fake.requests) {
      expect(req.headers.token).toBe(TOKEN);
      expect(req.body.number).toBe(PHONE);
      expect(Number.isInteger(req.body.delay)).toBe(true);
      expect(req.body.delay).toBeGreaterThanOrEqual(30);
      expect(req.body.delay).toBeLessThanOrEqual(90);
    }
    // Each send waits for the previous answer (the fake holds each answer for its delay).
    expect(fake.maxInFlight).toBe(1);
    for (let i = 1; i < fake.requests.length; i++) expect(fake.requests[i]!.at).toBeGreaterThanOrEqual(fake.requests[i - 1]!.answeredAt!);

    const output = stepRecord(record, 'send').output as any;
    expect(output.sent).toBe(3);
    expect(output.results.map((r: any) => r.delay)).toEqual(fake.requests.map((r) => r.body.delay));
    expect(output.results.every((r: any) => /^3EB0[0-9A-F]{16}$/.test(r.messageid))).toBe(true);
    expect(new Set(output.results.map((r: any) => r.messageid)).size).toBe(3);
    expect(services.instances.lookups).toEqual([1]);
  });

  it('records each performed call with the token masked, and keeps the token out of the whole execution', async () => {
    const { record } = await run({ instance_id: 1, phone: PHONE, parts: ['a', 'b'] });
    expect(record.outbound).toEqual([
      expect.objectContaining({
        step: 'send',
        kind: 'gateway',
        method: 'POST',
        url: `${fake.url}/send/text`,
        headers: { token: '***', 'content-type': 'application/json' },
        body: {
          number: PHONE,
          text: 'a',
          delay: fake.requests[0]!.body.delay,
          track_source: 'leadflow',
          track_id: fake.requests[0]!.body.track_id,
        },
        performed: true,
      }),
      expect.objectContaining({
        body: {
          number: PHONE,
          text: 'b',
          delay: fake.requests[1]!.body.delay,
          track_source: 'leadflow',
          track_id: fake.requests[1]!.body.track_id,
        },
        performed: true,
      }),
    ]);
    // Each message has a send id of its own (uazapi echoes it on the message's webhook).
    const ids = fake.requests.map((r) => r.body.track_id);
    expect(ids.every((id) => typeof id === 'string' && /^[0-9a-f]{32}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2);
    expect(stepRecord(record, 'send').params).toEqual({
      instance_id: 1,
      number: PHONE,
      messages: ['a', 'b'],
      typing_min_ms: 30,
      typing_max_ms: 90,
      evidence_wait_ms: 10_000,
      unconfirmed: 'resend',
      template: null,
    });
    expect(JSON.stringify(record)).not.toContain(TOKEN);
  });

  it('takes a single text, and skips blank ones', async () => {
    const single = await run({ instance_id: 1, phone: PHONE, parts: 'Conversa redefinida ✅' });
    expect(fake.sent.map((m) => m.text)).toEqual(['Conversa redefinida ✅']);
    expect((stepRecord(single.record, 'send').output as any).sent).toBe(1);
    const blank = await run({ instance_id: 1, phone: PHONE, parts: ['  ', 'ok', ''] });
    expect(fake.sent.map((m) => m.text)).toEqual(['Conversa redefinida ✅', 'ok']);
    expect((stepRecord(blank.record, 'send').output as any).sent).toBe(1);
  });

  it('uses typing_min_ms when typing_max_ms is below it', async () => {
    await run(
      { instance_id: 1, phone: PHONE, parts: ['x'] },
      {
        flow: `
name: fixed
steps:
  - id: send
    type: gateway.send
    params: { instance_id: 1, number: "${PHONE}", messages: x, typing_min_ms: 40, typing_max_ms: 10 }
`,
      },
    );
    expect(fake.requests[0]!.body.delay).toBe(40);
  });

  it('dry-run: records every call (token masked) and sends nothing', async () => {
    const { record } = await run({ instance_id: 1, phone: PHONE, parts: ['um', 'dois'] }, { dryRun: true });
    expect(record.status).toBe('success');
    expect(fake.requests).toHaveLength(0);
    expect(record.outbound).toHaveLength(2);
    for (const [i, call] of record.outbound.entries()) {
      expect(call).toMatchObject({
        kind: 'gateway',
        method: 'POST',
        url: `${fake.url}/send/text`,
        headers: { token: '***' },
        performed: false,
        body: { number: PHONE, text: ['um', 'dois'][i] },
      });
      expect((call.body as any).delay).toBeGreaterThanOrEqual(30);
      expect((call.body as any).delay).toBeLessThanOrEqual(90);
    }
    expect(stepRecord(record, 'send').output).toMatchObject({ sent: 0, dry_run: true });
    expect(JSON.stringify(record)).not.toContain(TOKEN);
  });

  it("a rejected send fails the step with the gateway's status and body, without the token", async () => {
    const { record } = await run({ instance_id: 2, phone: PHONE, parts: ['a', 'b'] });
    expect(record.status).toBe('failed');
    const step = stepRecord(record, 'send');
    expect(step.status).toBe('error');
    expect(step.error).toMatchObject({ name: 'GatewayHttpError', status: 401, body: { error: 'Invalid token' } });
    expect(record.error).toMatchObject({ step: 'send', status: 401 });
    expect(fake.requests).toHaveLength(1);
    expect(JSON.stringify(record)).not.toContain('revoked-token-777');
  });

  it('a failure in the middle stops the list: earlier messages sent, later ones not attempted', async () => {
    fake.failNext('500', 2, { skip: 1 });
    const { record } = await run({ instance_id: 1, phone: PHONE, parts: ['first', 'second', 'third'] });
    expect(record.status).toBe('failed');
    expect(stepRecord(record, 'send').error).toMatchObject({ status: 500, body: { error: 'Failed to send message' } });
    expect(fake.sent.map((m) => m.text)).toEqual(['first']);
    // First message once, second message twice (retries: 1), third never.
    expect(fake.requests.map((r) => r.body.text)).toEqual(['first', 'second', 'second']);
  });

  it('an unknown instance fails with a clear error and no request', async () => {
    const { record } = await run({ instance_id: 99, phone: PHONE, parts: ['a'] });
    expect(stepRecord(record, 'send').error).toMatchObject({
      name: 'InstanceNotFoundError',
      code: 'instance-not-found',
      message: 'WhatsApp instance 99 not found',
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('a number that is not plain digits is refused before any lookup or request', async () => {
    const { record } = await run({ instance_id: 1, phone: `${PHONE}@s.whatsapp.net`, parts: ['a'] });
    expect(stepRecord(record, 'send').error).toMatchObject({ name: 'ParamValidationError' });
    expect(services.instances.lookups).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it('without a gateway service: the step names what is missing', async () => {
    const { record } = await runFlow(replyFlow, {
      body: { instance_id: 1, phone: PHONE, parts: ['a'] },
      engine: { registry: messagingRegistry, services: { instances: services.instances }, env },
    });
    expect(stepRecord(record, 'send').error?.message).toBe(
      'step "send" needs a WhatsApp gateway client factory, but none is configured (services.gateway is missing)',
    );
  });
});
