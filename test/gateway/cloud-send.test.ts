// The 24-hour rule end to end against the fake Graph API: free text inside the window, the template
// outside it (no free-text attempt), the template once when Meta answers 131047 although the window
// looked open, and the templates column with the text a template renders.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudClient } from '../../adapters/gateway/cloud/client.js';
import { sendTextOrTemplate, type TemplateFallback } from '../../adapters/gateway/cloud/windowed-send.js';
import { parseCloudTemplates, renderTemplateText } from '../../adapters/gateway/cloud/templates.js';
import { CustomerWindow } from '../../adapters/gateway/cloud/customer-window.js';
import { OutsideWindowError } from '../../adapters/gateway/cloud/errors.js';
import { MemoryKeyValue } from '../../adapters/kv/memory-key-value.js';
import { type FakeCloudApi, startFakeCloudApi } from '../fakes/cloud-api-server.js';
import { rejection } from './helpers/errors.js';

const TOKEN = 'EAAG-cloud-token';
const PNID = '106540352242922';
const LEAD = '5543999806366';
const templates = parseCloudTemplates(
  JSON.stringify({
    primeiro_contato: { name: 'lead_boas_vindas', language: 'pt_BR', body: 'Olá {{1}}! Aqui é a {{2}}. Podemos conversar por aqui?' },
    follow_up: {
      name: 'lead_retorno',
      language: 'pt_BR',
      parameter_names: ['first_name'],
      body: 'Oi {{first_name}}, ainda tem interesse?',
    },
  }),
);
const firstContact: TemplateFallback = { template: templates.primeiro_contato!, parameters: ['Maria', 'Clínica Aurora'] };

let fake: FakeCloudApi;
let kv: MemoryKeyValue;
let window: CustomerWindow;
let client: CloudClient;

beforeEach(async () => {
  fake = await startFakeCloudApi({ tokens: { [TOKEN]: [PNID] } });
  kv = new MemoryKeyValue();
  window = new CustomerWindow(kv);
  client = new CloudClient({ serverUrl: fake.graphUrl, token: TOKEN, phoneNumberId: PNID, retries: 0 });
});

afterEach(async () => {
  await kv.close();
  await fake.close();
});

describe('sendTextOrTemplate', () => {
  it('window open (the lead wrote an hour ago): the free text', async () => {
    await window.noteInbound(3, LEAD, Date.now() - 3_600_000);
    const result = await sendTextOrTemplate(
      { client, window, instanceId: 3 },
      { number: LEAD, text: 'Claro! O clareamento custa…' },
      firstContact,
    );
    expect(result).toMatchObject({ sent_as: 'text', text: 'Claro! O clareamento custa…', messageid: expect.stringMatching(/^wamid\./) });
    expect(fake.sent.map((b) => b.type)).toEqual(['text']);
  });

  it('window closed (a form lead who never wrote): the template only, rendered for memory', async () => {
    const result = await sendTextOrTemplate(
      { client, window, instanceId: 3 },
      { number: LEAD, text: 'Olá Maria! …', delay: 5000 },
      firstContact,
    );
    expect(result).toMatchObject({
      sent_as: 'template',
      template: 'lead_boas_vindas',
      text: 'Olá Maria! Aqui é a Clínica Aurora. Podemos conversar por aqui?',
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.sent[0]).toMatchObject({ type: 'template', template: { name: 'lead_boas_vindas', language: { code: 'pt_BR' } } });
  });

  it('window looked open but Meta answers 131047: the template instead, once', async () => {
    await window.noteInbound(3, LEAD, Date.now() - 60_000);
    fake.outsideWindow(LEAD);
    const result = await sendTextOrTemplate({ client, window, instanceId: 3 }, { number: LEAD, text: 'oi' }, firstContact);
    expect(result.sent_as).toBe('template');
    expect(fake.requests.map((r) => [r.body.type, r.status])).toEqual([
      ['text', 400],
      ['template', 200],
    ]);
  });

  it('no fallback: the free text is tried whatever the window says, and 131047 is thrown as is', async () => {
    const sent = await sendTextOrTemplate({ client, window, instanceId: 3 }, { number: LEAD, text: 'oi' });
    expect(sent.sent_as).toBe('text');
    fake.outsideWindow(LEAD);
    const err = await rejection(sendTextOrTemplate({ client, window, instanceId: 3 }, { number: LEAD, text: 'oi' }));
    expect(err).toBeInstanceOf(OutsideWindowError);
    expect(fake.requests).toHaveLength(2);
  });

  it('the window is per instance: another instance of the same lead gets the template', async () => {
    await window.noteInbound(4, LEAD, Date.now());
    const result = await sendTextOrTemplate({ client, window, instanceId: 3 }, { number: LEAD, text: 'oi' }, firstContact);
    expect(result.sent_as).toBe('template');
  });
});

describe('templates column', () => {
  it('parses a JSON text or object; none is {}', () => {
    expect(templates.follow_up).toEqual({
      name: 'lead_retorno',
      language: 'pt_BR',
      parameter_names: ['first_name'],
      body: 'Oi {{first_name}}, ainda tem interesse?',
    });
    expect(parseCloudTemplates(null)).toEqual({});
    expect(parseCloudTemplates({ alerta_hunter: { name: 'alerta_lead', language: 'pt_BR' } })).toEqual({
      alerta_hunter: { name: 'alerta_lead', language: 'pt_BR' },
    });
  });

  it('lists every problem', () => {
    expect(() => parseCloudTemplates('{')).toThrow('templates: not JSON');
    expect(() => parseCloudTemplates('[]')).toThrow(/must be a JSON object/);
    expect(() =>
      parseCloudTemplates({
        a: { name: 'Bad Name', language: 'portuguese' },
        b: 3,
        c: { name: 'ok', language: 'pt_BR', parameter_names: [1] },
      }),
    ).toThrow(
      'templates: a.name: lower case letters, digits and _ only; a.language: a code such as pt_BR; b: must be an object {name, language}; c.parameter_names: a list of lower case names',
    );
  });

  it('renders {{n}} and {{name}} placeholders; without a body, a marker', () => {
    expect(renderTemplateText(templates.follow_up!, ['Maria'])).toBe('Oi Maria, ainda tem interesse?');
    expect(renderTemplateText(templates.primeiro_contato!, ['Maria'])).toBe('Olá Maria! Aqui é a {{2}}. Podemos conversar por aqui?');
    expect(renderTemplateText({ name: 'alerta_lead', language: 'pt_BR' }, ['x'])).toBe('[template alerta_lead]');
  });
});
