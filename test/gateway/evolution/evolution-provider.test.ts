// Evolution API as a registered gateway provider (adapters/gateway/evolution/provider.ts):
// the service's registry builds an EvolutionClient from an evolution instance row (API key never
// shown) and parses Evolution events into the normalised message (media_ref null for a text, the
// message id for a medium; every event but messages.upsert ignored; a malformed body a
// GatewayEventError naming evolution and each path). Its inbound side is exercised over HTTP in
// test/e2e/evolution-webhook.test.ts.
import { describe, expect, it } from 'vitest';
import { GatewayEventError } from '../../../adapters/gateway/errors/gateway-event-error.js';
import { EvolutionClient } from '../../../adapters/gateway/evolution/client.js';
import { evolutionInbound } from '../../../adapters/gateway/evolution/auth.js';
import type { GatewayInstanceAccess } from '../../../adapters/gateway/gateway-client.js';
import type { GatewayMessage } from '../../../adapters/gateway/gateway-message.js';
import { gatewayProviders } from '../../../adapters/gateway/providers.js';
import { evolutionEvent, type FakeEvolution, startFakeEvolution } from '../../fakes/evolution-server.js';

const row = (extra: Partial<GatewayInstanceAccess> = {}): GatewayInstanceAccess => ({
  provider: 'evolution',
  server_url: 'http://127.0.0.1:9',
  token: 'evo-secret-key-4471',
  external_id: 'clinica-aurora',
  templates: null,
  app_secret: 'jwt-key-9911',
  ...extra,
});

describe('the evolution provider', () => {
  it("builds an EvolutionClient from the instance row, with the core's defaults; the key never shown", async () => {
    let fake: FakeEvolution | undefined;
    try {
      fake = await startFakeEvolution({ instances: { 'clinica-aurora': 'evo-secret-key-4471' } });
      const calls: string[] = [];
      const client = gatewayProviders.clientFactory({ onCall: (e) => calls.push(`${e.provider}:${e.op}:${e.outcome}`) })(
        row({ server_url: `${fake.url}/` }),
      );
      expect(client).toBeInstanceOf(EvolutionClient);
      expect(client.provider).toBe('evolution');
      expect(JSON.stringify(client)).not.toContain('evo-secret-key-4471');
      const result = await client.sendText({ number: '5511987654321', text: 'Oi' });
      expect(result.messageid).toMatch(/^3EB0/);
      expect(fake.requests.map((r) => [r.path, r.headers.apikey])).toEqual([['/message/sendText/clinica-aurora', 'evo-secret-key-4471']]);
      expect(calls).toEqual(['evolution:send:ok']);
    } finally {
      await fake?.close();
    }
  });

  it('refuses a row without external_id (the instance name) or with an unusable server_url', () => {
    expect(() => gatewayProviders.clientFactory()(row({ external_id: null }))).toThrow(TypeError);
    expect(() => gatewayProviders.clientFactory()(row({ server_url: 'not a url' }))).toThrow(TypeError);
  });

  it('parses messages.upsert into the normalised message: media_ref null for a text, the message id for a medium', () => {
    const text = gatewayProviders.parse('evolution', evolutionEvent('text', { phone: '5511987654321', text: 'Oi' })) as GatewayMessage;
    expect(text).toMatchObject({
      provider: 'evolution',
      phone: '5511987654321',
      kind: 'text',
      text: 'Oi',
      from_me: false,
      sent_by_api: false,
      is_group: false,
      media_ref: null,
      instance_name: 'clinica-aurora',
    });
    const audio = gatewayProviders.parse('evolution', evolutionEvent('audio', { id: '3A7CAUDIO1' })) as GatewayMessage;
    expect(audio).toMatchObject({ kind: 'audio', media_ref: '3A7CAUDIO1', mimetype: 'audio/ogg; codecs=opus' });
    for (const kind of ['image', 'video', 'document', 'sticker'] as const)
      expect((gatewayProviders.parse('evolution', evolutionEvent(kind)) as GatewayMessage).media_ref).toBe(
        evolutionEvent(kind).data.key.id,
      );
  });

  it("a fromMe messages.upsert parses as a person on the clinic's phone (an echo of LeadFlow's send is told by the noted ids: evolution-sent-ids.test.ts); the API's own send.message is ignored", () => {
    const typed = gatewayProviders.parse('evolution', evolutionEvent('from-me-phone', { phone: '5511987654321' })) as GatewayMessage;
    expect(typed).toMatchObject({ from_me: true, sent_by_api: false, phone: '5511987654321' });
    expect(gatewayProviders.parse('evolution', evolutionEvent('from-me-api'))).toEqual({
      ignored: 'event "send.message" is not a new message',
    });
  });

  it('status and other events, broadcasts and LID-only senders are ignored (they start no agent run)', () => {
    for (const kind of ['messages-update', 'connection-update', 'status-broadcast'] as const)
      expect(gatewayProviders.parse('evolution', evolutionEvent(kind))).toEqual({ ignored: expect.any(String) });
    const lidOnly = gatewayProviders.parse('evolution', evolutionEvent('lid-only'));
    expect(lidOnly).toEqual({ ignored: expect.stringMatching(/^unmatched/) });
  });

  it('a body that is not an Evolution event is a GatewayEventError naming evolution and each path', () => {
    const body = evolutionEvent('text');
    delete body.data.key;
    let error: unknown;
    try {
      gatewayProviders.parse('evolution', body);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(GatewayEventError);
    expect((error as GatewayEventError).provider).toBe('evolution');
    expect((error as GatewayEventError).details.map((d) => d.path)).toContain('data.key');
  });

  it('names its route and auth mode as CONTRACT §11 does', () => {
    expect(evolutionInbound).toMatchObject({ provider: 'evolution', authMode: 'evolution-instance', path: '/leadagent/evolution' });
    expect(gatewayProviders.inbound().map((i) => i.authMode)).toContain('evolution-instance');
  });
});
