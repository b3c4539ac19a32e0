// The Cloud API provider module: one event body (the envelope reduced to one message) parsed into the
// normalised message, a request split into one body per message, and the window noted per lead.
import { describe, expect, it } from 'vitest';
import { splitCloudWebhook } from '../../adapters/gateway/cloud/auth.js';
import { cloudProvider, parseCloudMessage } from '../../adapters/gateway/cloud/provider.js';
import { CustomerWindow } from '../../adapters/gateway/cloud/customer-window.js';
import { GatewayEventError } from '../../adapters/gateway/errors/gateway-event-error.js';
import type { GatewayMessage } from '../../adapters/gateway/gateway-message.js';
import { gatewayProviders } from '../../adapters/gateway/providers.js';
import { MemoryKeyValue } from '../../adapters/kv/memory-key-value.js';
import {
  CLOUD_PHONE_NUMBER_ID,
  cloudAudioWebhook,
  cloudBatchWebhook,
  cloudEchoWebhook,
  cloudStatusWebhook,
  cloudTextWebhook,
  cloudUsernameOnlyWebhook,
} from '../fakes/cloud-webhooks.js';

const LEAD = '5511987654321';

describe('Cloud API provider: parse', () => {
  it('a text is the normalised message of provider cloud, from the lead, with no media_ref', () => {
    const parsed = parseCloudMessage(cloudTextWebhook({ from: LEAD, text: 'Oi', id: 'wamid.T1', timestamp: 1773050145 })) as GatewayMessage;
    expect(parsed).toMatchObject({
      provider: 'cloud',
      phone: LEAD,
      chat_id: `${LEAD}@s.whatsapp.net`,
      message_id: 'wamid.T1',
      from_me: false,
      sent_by_api: false,
      is_group: false,
      kind: 'text',
      text: 'Oi',
      media_ref: null,
      sender_name: 'Maria Souza',
      timestamp_ms: 1773050145000,
    });
    expect(parsed).not.toHaveProperty('phone_number_id');
  });

  it('a voice note names its media id as media_ref; an echo is from the clinic, not the API', () => {
    expect(parseCloudMessage(cloudAudioWebhook({ from: LEAD, mediaId: '1234567890' }))).toMatchObject({
      kind: 'audio',
      media_ref: '1234567890',
      mimetype: 'audio/ogg; codecs=opus',
    });
    expect(parseCloudMessage(cloudEchoWebhook({ to: LEAD, text: 'reset' }))).toMatchObject({
      phone: LEAD,
      from_me: true,
      sent_by_api: false,
      text: 'reset',
    });
  });

  it('statuses and a user without a phone are ignored, saying why; a foreign body fails with paths', () => {
    expect(parseCloudMessage(cloudStatusWebhook({ recipient: LEAD, status: 'read' }))).toEqual({ ignored: '1 status update(s)' });
    expect(parseCloudMessage(cloudUsernameOnlyWebhook({ userId: 'BR.1502576394655843', text: 'Oi' }))).toEqual({
      ignored: expect.stringMatching(/^unmatched: .* user BR\.1502576394655843 has no phone number$/),
    });
    expect(() => parseCloudMessage({ token: 'x' })).toThrow(GatewayEventError);
    expect(() => gatewayProviders.parse('cloud', { object: 'page', entry: [] })).toThrow(/not a cloud event: object must be/);
  });
});

describe('Cloud API provider: a request split into events', () => {
  it('a batch of three messages is three bodies, in order, each holding one message that parses alone', () => {
    const batch = cloudBatchWebhook({ from: LEAD, texts: ['um', 'dois'] }, { from: '5511911112222', text: 'três' });
    const parts = splitCloudWebhook(batch);
    expect(parts.map((p) => p.phoneNumberId)).toEqual([CLOUD_PHONE_NUMBER_ID, CLOUD_PHONE_NUMBER_ID, CLOUD_PHONE_NUMBER_ID]);
    const parsed = parts.map((p) => parseCloudMessage(p.body) as GatewayMessage);
    expect(parsed.map((m) => [m.phone, m.text])).toEqual([
      [LEAD, 'um'],
      [LEAD, 'dois'],
      ['5511911112222', 'três'],
    ]);
    for (const part of parts) {
      const value = (part.body as any).entry[0].changes[0].value;
      expect(value.messages).toHaveLength(1);
    }
  });

  it('statuses alone are no event; an echo is one', () => {
    expect(splitCloudWebhook(cloudStatusWebhook({ recipient: LEAD, status: 'delivered' }))).toEqual([]);
    expect(splitCloudWebhook(cloudEchoWebhook({ to: LEAD, text: 'oi' }))).toHaveLength(1);
    expect(splitCloudWebhook('not json')).toEqual([]);
  });
});

describe('Cloud API provider: the window noted per lead', () => {
  it("a lead's message opens the window at its time; the clinic's own echo does not", async () => {
    const kv = new MemoryKeyValue({});
    const now = Date.now();
    const window = new CustomerWindow(kv);
    const echo = parseCloudMessage(cloudEchoWebhook({ to: LEAD, text: 'oi', timestamp: Math.floor(now / 1000) })) as GatewayMessage;
    await cloudProvider.noteInbound!(echo, 7, kv);
    expect(await window.isOpen(7, LEAD)).toBe(false);
    const lead = parseCloudMessage(cloudTextWebhook({ from: LEAD, text: 'Oi', timestamp: Math.floor(now / 1000) })) as GatewayMessage;
    await cloudProvider.noteInbound!(lead, 7, kv);
    expect(await window.isOpen(7, LEAD)).toBe(true);
    expect(await window.isOpen(8, LEAD)).toBe(false);
    await kv.close();
  });
});
