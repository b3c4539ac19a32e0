// The WhatsApp Cloud API's own route rules end to end (CONTRACT §11), on both backends: the
// verification GET (200 with the challenge as text/plain, 403 otherwise), the X-Hub-Signature-256
// check (401, nothing recorded), a signed body that is not a Cloud webhook (422 with each path,
// nothing recorded), several messages in one request (one execution each), statuses (200, nothing
// started), the lead's 24-hour window opened by a lead's message, and a text Meta accepted then
// refused late (a `failed` status, 131047) answered with the template, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustomerWindow } from '../../adapters/gateway/cloud/customer-window.js';
import { cloudBatchWebhook, cloudStatusWebhook, signCloudBody } from '../fakes/cloud-webhooks.js';
import { CLOUD_CASE, CLOUD_TEMPLATES, CLOUD_VERIFY_TOKEN, post, send } from './providers.js';
import { forEachBackend, startStack, type Stack } from './stack.js';

let stack: Stack;

const verify = (query: string) => fetch(`${stack.url}/leadagent/cloud?${query}`);

forEachBackend('cloud routes', (backend) => {
  beforeAll(async () => {
    stack = await startStack({ backend, provider: CLOUD_CASE });
  });
  afterAll(async () => {
    await stack?.close();
  });

  describe('verification GET /leadagent/cloud', () => {
    it("answers the challenge as text/plain to an instance's verify token, 403 to anything else", async () => {
      const ok = await verify(`hub.mode=subscribe&hub.verify_token=${CLOUD_VERIFY_TOKEN}&hub.challenge=1158201444`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await ok.text()).toBe('1158201444');
      for (const query of [
        'hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1158201444',
        `hub.mode=unsubscribe&hub.verify_token=${CLOUD_VERIFY_TOKEN}&hub.challenge=1158201444`,
        `hub.mode=subscribe&hub.verify_token=${CLOUD_VERIFY_TOKEN}&hub.challenge=<script>`,
        'hub.mode=subscribe&hub.challenge=1158201444',
      ]) {
        const refused = await verify(query);
        expect(refused.status, query).toBe(403);
        expect(await refused.text()).not.toContain('1158201444');
      }
      expect(await stack.executions()).toEqual([]);
    });
  });

  describe('POST /leadagent/cloud', () => {
    it('a bad, missing or foreign signature is 401 and records nothing', async () => {
      const call = CLOUD_CASE.inbound({ phone: '5511987650001', text: 'Oi' }, stack.instance);
      expect(await post(stack, CLOUD_CASE.forge(call))).toEqual({ status: 401, json: { error: 'unauthorized', details: [] } });
      expect(await post(stack, { ...call, headers: {} })).toEqual({ status: 401, json: { error: 'unauthorized', details: [] } });
      // Signed right, but for a phone number id no instance has.
      const foreign = call.raw.replaceAll(stack.instance.external_id!, '999999999999999');
      const signed = { ...call, raw: foreign, headers: { 'x-hub-signature-256': signCloudBody(foreign, stack.instance.app_secret!) } };
      expect((await post(stack, signed)).status).toBe(401);
      expect(await stack.executions()).toEqual([]);
    });

    it('a correctly signed body that is not a Cloud webhook is 422 with each path, and records nothing', async () => {
      const pnid = stack.instance.external_id!;
      const signed = (body: unknown) => {
        const raw = JSON.stringify(body);
        return { path: '/leadagent/cloud', raw, headers: { 'x-hub-signature-256': signCloudBody(raw, stack.instance.app_secret!) } };
      };
      const metadata = { display_phone_number: '5511912345678', phone_number_id: pnid };
      const cases: Array<[unknown, Array<{ path: string; message: string }>]> = [
        // Another object type (a Page webhook) naming the instance's number.
        [
          { object: 'page', entry: [{ id: '1', changes: [{ field: 'messages', value: { metadata } }] }] },
          [{ path: 'object', message: 'must be equal to constant' }],
        ],
        // The lists of a messages change that are not lists.
        [
          {
            object: 'whatsapp_business_account',
            entry: [{ id: '1', changes: [{ field: 'messages', value: { metadata, messages: {} } }] }],
          },
          [{ path: 'entry.0.changes.0.value.messages', message: 'must be array' }],
        ],
        [
          {
            object: 'whatsapp_business_account',
            entry: [{ id: '1', changes: [{ field: 'messages', value: { metadata, statuses: 'read' } }] }],
          },
          [{ path: 'entry.0.changes.0.value.statuses', message: 'must be array' }],
        ],
        // A message without an id, beside a well-formed one: the whole request is refused.
        [
          {
            object: 'whatsapp_business_account',
            entry: [
              {
                id: '1',
                changes: [
                  {
                    field: 'messages',
                    value: {
                      metadata,
                      messages: [
                        { from: '5511987650009', id: 'wamid.ok', type: 'text', text: { body: 'oi' } },
                        { from: '5511987650009', type: 'text', text: { body: 'sem id' } },
                      ],
                    },
                  },
                ],
              },
            ],
          },
          [{ path: 'entry.0.changes.0.value.messages.1.id', message: 'is required' }],
        ],
      ];
      const before = (await stack.executions()).length;
      for (const [body, details] of cases) {
        expect(await post(stack, signed(body)), JSON.stringify(body)).toEqual({ status: 422, json: { error: 'invalid input', details } });
      }
      expect(await stack.executions()).toHaveLength(before);
      // A body naming no phone number id cannot be tied to an app secret: not authenticated.
      for (const body of [{}, { object: 'page' }, { object: 'whatsapp_business_account', entry: [{ changes: {} }] }])
        expect((await post(stack, signed(body))).status, JSON.stringify(body)).toBe(401);
      expect(await stack.executions()).toHaveLength(before);
    });

    it('a webhook of three messages starts three executions, each parsing its own message, in order', async () => {
      const body = cloudBatchWebhook(
        { from: '5511987650002', texts: ['um', 'dois'], timestamp: Math.floor(Date.now() / 1000) },
        { from: '5511987650003', text: 'três', timestamp: Math.floor(Date.now() / 1000) },
      );
      const raw = JSON.stringify(body);
      const res = await post(stack, {
        path: '/leadagent/cloud',
        raw,
        headers: { 'x-hub-signature-256': signCloudBody(raw, stack.instance.app_secret!) },
      });
      expect(res).toEqual({ status: 200, json: { status: 'accepted', executions: 3 } });
      const runs = (await stack.idle()).filter((r) => r.flow === 'agent').reverse();
      expect(runs).toHaveLength(3);
      const parsed = runs.map((r) => r.steps.find((s) => s.id === 'msg')?.output as Record<string, unknown>);
      expect(parsed.map((m) => [m.provider, m.phone, m.text])).toEqual([
        ['cloud', '5511987650002', 'um'],
        ['cloud', '5511987650002', 'dois'],
        ['cloud', '5511987650003', 'três'],
      ]);
      for (const run of runs) expect(run.trigger).toMatchObject({ auth: { instance_id: stack.instance.id, provider: 'cloud' } });
      // Each lead's message opened that lead's 24-hour window on the instance.
      const window = new CustomerWindow(stack.runtime.services.kv);
      expect(await window.isOpen(stack.instance.id, '5511987650002')).toBe(true);
      expect(await window.isOpen(stack.instance.id, '5511987650003')).toBe(true);
      expect(await window.isOpen(stack.instance.id, '5511987650004')).toBe(false);
    });

    it("reads batches beyond the other webhooks' 1 MiB (Meta's are up to 3 MB), and refuses over 4 MiB with 413", async () => {
      const batch = (padding: number) => {
        // Many statuses in one delivery, as Meta batches them: an `errors`-free status list grown to size.
        const body = cloudStatusWebhook({ phoneNumberId: stack.instance.external_id!, recipient: '5511987650002', status: 'read' }) as {
          entry: Array<{ changes: Array<{ value: { statuses: unknown[] } }> }>;
        };
        const statuses = body.entry[0]!.changes[0]!.value.statuses;
        const one = JSON.stringify(statuses[0]);
        const copies = Math.ceil(padding / one.length);
        for (let i = 1; i < copies; i++) statuses.push(statuses[0]);
        const raw = JSON.stringify(body);
        return { path: '/leadagent/cloud', raw, headers: { 'x-hub-signature-256': signCloudBody(raw, stack.instance.app_secret!) } };
      };
      const big = batch(2 * 1024 * 1024);
      expect(big.raw.length).toBeGreaterThan(1024 * 1024);
      expect(await post(stack, big)).toEqual({ status: 200, json: { status: 'accepted', executions: 0 } });
      const tooBig = batch(4 * 1024 * 1024 + 1024);
      expect(await post(stack, tooBig)).toMatchObject({ status: 413, json: { error: `body larger than ${4 * 1024 * 1024} bytes` } });
      // The uazapi route keeps the 1 MiB limit.
      expect(await post(stack, { path: '/leadagent', raw: big.raw, headers: {} })).toMatchObject({
        status: 413,
        json: { error: `body larger than ${1024 * 1024} bytes` },
      });
    });

    it("a text refused late as outside the window (a failed status, 131047) sends the purpose's template once", async () => {
      const lead = '5511987650021';
      const { kv, gateway, instances } = stack.runtime.services;
      // LeadFlow takes the window as open (the lead wrote), so the texts go as texts and Meta accepts them.
      await new CustomerWindow(kv).noteInbound(stack.instance.id, lead, Date.now() - 60_000);
      const client = gateway((await instances.get(stack.instance.id))!);
      const template = { purpose: 'follow_up' as const, parameters: ['Maria'] };
      const first = await client.sendText({ number: lead, text: 'Oi, Maria! Ainda quer conversar?', template });
      const second = await client.sendText({ number: lead, text: 'Estamos por aqui.', template });
      expect([first.sent_as, second.sent_as]).toEqual(['text', 'text']);
      const templates = () =>
        stack.provider.sent(stack.fake, stack.instance).filter((m) => m.number === lead && m.text.startsWith('template:'));
      expect(templates()).toEqual([]);

      const failed = (messageId: string) => {
        const raw = JSON.stringify(
          cloudStatusWebhook({
            phoneNumberId: stack.instance.external_id!,
            recipient: lead,
            messageId,
            status: 'failed',
            errorCode: 131047,
          }),
        );
        return { path: '/leadagent/cloud', raw, headers: { 'x-hub-signature-256': signCloudBody(raw, stack.instance.app_secret!) } };
      };
      const before = (await stack.executions()).length;
      const status = failed(first.messageid!);
      expect(await post(stack, status)).toEqual({ status: 200, json: { status: 'accepted', executions: 0 } });
      expect(templates().map((m) => m.text)).toEqual([`template:${CLOUD_TEMPLATES.follow_up.name}(Maria)`]);
      // The same status again (Meta's redelivery), and the late refusal of the same send's other text: nothing more.
      expect(await post(stack, status)).toEqual({ status: 200, json: { status: 'accepted', executions: 0 } });
      expect(await post(stack, failed(second.messageid!))).toEqual({ status: 200, json: { status: 'accepted', executions: 0 } });
      expect(templates()).toHaveLength(1);
      expect(await stack.executions()).toHaveLength(before);
    });

    it('a webhook of statuses only answers 200 and starts nothing', async () => {
      const before = (await stack.executions()).length;
      const raw = JSON.stringify(
        cloudStatusWebhook({ phoneNumberId: stack.instance.external_id!, recipient: '5511987650002', status: 'read' }),
      );
      const res = await post(stack, {
        path: '/leadagent/cloud',
        raw,
        headers: { 'x-hub-signature-256': signCloudBody(raw, stack.instance.app_secret!) },
      });
      expect(res).toEqual({ status: 200, json: { status: 'accepted', executions: 0 } });
      expect(await stack.executions()).toHaveLength(before);
      // And a single message is answered by the flow itself.
      expect(await send(stack, { phone: '5511987650005', text: 'Oi' })).toEqual({
        status: 200,
        json: { status: 'ignored', reason: 'not a lead' },
      });
    });
  });
});
