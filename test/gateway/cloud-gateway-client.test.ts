// The Cloud instance's client as gateway.send uses it, against the fake Graph API: a text naming a
// template goes as the template while the lead's window is closed, as text while it is open, and as
// the template once when Meta answers "outside the window" (131047); without a template, or with no
// template for the purpose, the text goes as is.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cloudProvider } from '../../adapters/gateway/cloud/provider.js';
import { CustomerWindow } from '../../adapters/gateway/cloud/customer-window.js';
import { OutsideWindowError } from '../../adapters/gateway/cloud/errors.js';
import type { GatewayClient } from '../../adapters/gateway/gateway-client.js';
import { MemoryKeyValue } from '../../adapters/kv/memory-key-value.js';
import { type FakeCloudApi, startFakeCloudApi } from '../fakes/cloud-api-server.js';

const PNID = '106540352242922';
const LEAD = '5511987654321';
const TEMPLATES = {
  primeiro_contato: { name: 'primeiro_contato_v1', language: 'pt_BR', body: 'Olá, {{1}}! Aqui é da {{2}}.' },
};
const intent = { purpose: 'primeiro_contato' as const, parameters: ['Maria', 'Clínica\nSorriso'] };

let fake: FakeCloudApi;
let kv: MemoryKeyValue;
let client: GatewayClient;

beforeAll(async () => {
  fake = await startFakeCloudApi({ tokens: { tok: [PNID] } });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  kv = new MemoryKeyValue({});
  client = cloudProvider.client(
    { id: 3, provider: 'cloud', server_url: fake.graphUrl, token: 'tok', external_id: PNID, templates: TEMPLATES },
    { kv, retries: 0 },
  );
});

describe('Cloud client: the 24-hour rule on a text that names a template', () => {
  it('window closed: the template goes instead (parameters on one line), with its rendered text; no text is tried', async () => {
    const result = await client.sendText({ number: LEAD, text: 'Oi Maria', template: intent });
    expect(result).toMatchObject({ sent_as: 'template', text: 'Olá, Maria! Aqui é da Clínica Sorriso.', messageid: expect.any(String) });
    expect(fake.sent).toHaveLength(1);
    expect(fake.sent[0]).toMatchObject({
      type: 'template',
      template: {
        name: 'primeiro_contato_v1',
        language: { code: 'pt_BR' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Maria' },
              { type: 'text', text: 'Clínica Sorriso' },
            ],
          },
        ],
      },
    });
  });

  it('window open (the lead wrote): the text', async () => {
    await new CustomerWindow(kv).noteInbound(3, LEAD, Date.now());
    expect(await client.sendText({ number: LEAD, text: 'Oi Maria', template: intent })).toMatchObject({
      sent_as: 'text',
      text: 'Oi Maria',
    });
    expect(fake.sent.map((b) => b.type)).toEqual(['text']);
  });

  it('Meta says outside the window although it looked open: the template once; without a template the error stands', async () => {
    await new CustomerWindow(kv).noteInbound(3, LEAD, Date.now());
    fake.outsideWindow(LEAD);
    expect(await client.sendText({ number: LEAD, text: 'Oi Maria', template: intent })).toMatchObject({ sent_as: 'template' });
    expect(fake.requests.filter((r) => r.method === 'POST').map((r) => [r.body.type, r.status])).toEqual([
      ['text', 400],
      ['template', 200],
    ]);
    await expect(client.sendText({ number: LEAD, text: 'Oi Maria' })).rejects.toBeInstanceOf(OutsideWindowError);
    fake.outsideWindow(LEAD, false);
  });

  it('no template for the purpose: the text as is', async () => {
    const result = await client.sendText({ number: LEAD, text: 'Oi', template: { purpose: 'follow_up', parameters: [] } });
    expect(result).toMatchObject({ sent_as: 'text', text: 'Oi' });
    expect(fake.sent.map((b) => b.type)).toEqual(['text']);
  });
});
