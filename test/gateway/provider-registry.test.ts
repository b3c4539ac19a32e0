// The gateway provider registry (adapters/gateway/provider-registry.ts): `ctx.services.gateway`
// builds each instance's client from the builder of the instance's provider; parsing dispatches the
// same way; an unregistered provider is a typed error, never another provider's client. The
// service's registry (providers.ts) holds uazapi and evolution (evolution/evolution-provider.test.ts).
// The stand-in provider here is a test double of the registry's interface, not an implementation of
// any vendor.
import { describe, expect, it } from 'vitest';
import { UnknownGatewayProviderError } from '../../adapters/gateway/errors/unknown-gateway-provider-error.js';
import type { GatewayClient, GatewayInstanceAccess } from '../../adapters/gateway/gateway-client.js';
import type { GatewayMessage } from '../../adapters/gateway/gateway-message.js';
import {
  type GatewayClientDefaults,
  type GatewayProviderModule,
  GatewayProviderRegistry,
} from '../../adapters/gateway/provider-registry.js';
import { gatewayProviders } from '../../adapters/gateway/providers.js';
import { UazapiClient } from '../../adapters/gateway/uazapi/client.js';
import { uazapiInbound } from '../../adapters/gateway/uazapi/auth.js';
import { uazapiProvider } from '../../adapters/gateway/uazapi/provider.js';
import { uazapiFixture } from './helpers/fixtures.js';

const access = (provider: GatewayInstanceAccess['provider'], extra: Partial<GatewayInstanceAccess> = {}): GatewayInstanceAccess => ({
  provider,
  server_url: 'http://127.0.0.1:9',
  token: 'tok',
  external_id: null,
  templates: null,
  ...extra,
});

/** A stand-in provider module: its clients record what they were built from. */
function standIn(
  name: 'evolution' | 'cloud',
): GatewayProviderModule & { built: Array<{ instance: GatewayInstanceAccess; defaults: GatewayClientDefaults }> } {
  const built: Array<{ instance: GatewayInstanceAccess; defaults: GatewayClientDefaults }> = [];
  return {
    built,
    client(instance, defaults) {
      built.push({ instance, defaults });
      const client: GatewayClient = {
        provider: name,
        serverUrl: instance.server_url,
        sendText: async () => ({ messageid: `${name}-1`, answer: {} }),
        sendEvidenceKey: () => null,
        downloadMedia: async () => ({ mimetype: 'audio/ogg', bytes: Buffer.from('x') }),
      };
      return client;
    },
    parse: (event) => ({ ignored: `${name} stand-in got ${JSON.stringify(event)}` }),
    inbound: { ...uazapiInbound, provider: name, authMode: `${name}-test`, path: `/leadagent/${name}` },
  };
}

describe('GatewayProviderRegistry', () => {
  it("builds each instance's client with its provider's builder and the host's defaults", async () => {
    const other = standIn('evolution');
    const registry = new GatewayProviderRegistry().register('uazapi', uazapiProvider).register('evolution', other);
    const onCall = () => undefined;
    const factory = registry.clientFactory({ retries: 0, onCall });
    const uazapi = factory(access('uazapi'));
    expect(uazapi).toBeInstanceOf(UazapiClient);
    expect(uazapi.provider).toBe('uazapi');
    const evolution = factory(access('evolution', { external_id: 'clinica-a', token: 'evo-key' }));
    expect(evolution.provider).toBe('evolution');
    expect(await evolution.sendText({ number: '5511987654321', text: 'oi' })).toEqual({ messageid: 'evolution-1', answer: {} });
    expect(other.built).toEqual([
      { instance: access('evolution', { external_id: 'clinica-a', token: 'evo-key' }), defaults: { retries: 0, onCall } },
    ]);
    expect(registry.names()).toEqual(['uazapi', 'evolution']);
    expect(registry.inbound().map((i) => i.authMode)).toEqual(['instance-token', 'evolution-test']);
  });

  it('an unregistered provider is UnknownGatewayProviderError, for a client and for a parse; nothing is built', () => {
    const other = standIn('evolution');
    const registry = new GatewayProviderRegistry().register('evolution', other);
    const factory = registry.clientFactory();
    for (const call of [() => factory(access('cloud')), () => factory(access('waha' as 'cloud')), () => registry.parse('uazapi', {})]) {
      let error: unknown;
      try {
        call();
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(UnknownGatewayProviderError);
      expect((error as UnknownGatewayProviderError).code).toBe('unknown-gateway-provider');
      expect((error as Error).message).toMatch(/^gateway provider "(cloud|waha|uazapi)" is not registered \(registered: evolution\)$/);
    }
    expect(other.built).toEqual([]);
  });

  it('parses with the named provider', () => {
    const registry = new GatewayProviderRegistry().register('uazapi', uazapiProvider).register('cloud', standIn('cloud'));
    expect(registry.parse('cloud', { a: 1 })).toEqual({ ignored: 'cloud stand-in got {"a":1}' });
    expect(registry.parse('uazapi', uazapiFixture('text-conversation'))).toMatchObject({ provider: 'uazapi', phone: '5511987654321' });
  });

  it('refuses a provider registered twice, and an inbound module of another provider', () => {
    const registry = new GatewayProviderRegistry().register('uazapi', uazapiProvider);
    expect(() => registry.register('uazapi', uazapiProvider)).toThrow('gateway provider "uazapi" is registered twice');
    expect(() => registry.register('cloud', { ...standIn('cloud'), inbound: uazapiInbound })).toThrow(
      `gateway provider "cloud": its inbound module is "uazapi"'s`,
    );
  });
});

describe("the service's providers", () => {
  it('hold uazapi, evolution and cloud; the uazapi client is the uazapi client, with the token never shown', () => {
    expect(gatewayProviders.names()).toEqual(['uazapi', 'evolution', 'cloud']);
    const client = gatewayProviders.clientFactory()(access('uazapi', { token: 'secret-token-81' }));
    expect(client).toBeInstanceOf(UazapiClient);
    expect(JSON.stringify(client)).not.toContain('secret-token-81');
    expect(client.describe!({ op: 'download', media_ref: '3EB0M' })).toEqual({
      method: 'POST',
      url: 'http://127.0.0.1:9/message/download',
      headers: { token: '***', 'content-type': 'application/json' },
      body: { id: '3EB0M', return_base64: true, return_link: false },
    });
    expect(client.describe!({ op: 'send-text', request: { number: '5511987654321', text: 'oi', delay: 1200.4 } })).toEqual({
      method: 'POST',
      url: 'http://127.0.0.1:9/send/text',
      headers: { token: '***', 'content-type': 'application/json' },
      body: { number: '5511987654321', text: 'oi', delay: 1200 },
    });
    expect(client.sendTemplate).toBeUndefined();
  });

  it('parse uazapi events into the normalised message: media_ref is the message id of a medium, null for a text', () => {
    const text = gatewayProviders.parse('uazapi', uazapiFixture('text-conversation')) as GatewayMessage;
    expect(text).toMatchObject({ provider: 'uazapi', kind: 'text', message_id: '3EB0A1B2C3D4E5F6A7B8', media_ref: null });
    expect(text).not.toHaveProperty('instance_token');
    const audio = gatewayProviders.parse('uazapi', uazapiFixture('audio-ptt')) as GatewayMessage;
    expect(audio).toMatchObject({ provider: 'uazapi', kind: 'audio', media_ref: '3EB0AUD10000000000A1' });
  });
});
