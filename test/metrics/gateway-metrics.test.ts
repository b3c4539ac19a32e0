// The gateway figures carry the provider whose client made the call: one metrics registry fed by the
// service's own client factory (adapters/gateway/providers.ts) with a client of each provider, each
// against its fake server, so the label comes from each client's profile through the shared HTTP
// base (http-client.ts), not from the caller. The label's values are the registry's names only.
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayCallEvent, GatewayInstanceAccess } from '../../adapters/gateway/gateway-client.js';
import { GATEWAY_PROVIDERS, gatewayProviders } from '../../adapters/gateway/providers.js';
import { createMetrics } from '../../adapters/metrics/metrics.js';
import { FakeCloudApi, GRAPH_ERRORS } from '../fakes/cloud-api-server.js';
import { startFakeEvolution } from '../fakes/evolution-server.js';
import { startFakeGateway } from '../fakes/fake-gateway.js';
import { parseMetrics, samplesOf } from '../helpers/metrics-text.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const undo of cleanups.splice(0).reverse()) await undo();
});

const LEAD = '5511987654321';

describe('gateway metrics by provider', () => {
  it("each provider's client labels its sends and retries with its own provider", async () => {
    const uazapi = await startFakeGateway({ tokens: { 'uaz-tok': '5511912345678' } });
    cleanups.push(() => uazapi.close());
    const evolution = await startFakeEvolution({ instances: { 'clinica-aurora': 'evo-key' } });
    cleanups.push(() => evolution.close());
    const cloud = await new FakeCloudApi().start();
    cleanups.push(() => cloud.close());

    const metrics = createMetrics({ defaultMetrics: false });
    const gateway = gatewayProviders.clientFactory({ onCall: metrics.gatewayCall, retries: 1, baseDelayMs: 1, maxDelayMs: 2 });
    const row = (extra: Partial<GatewayInstanceAccess> & Pick<GatewayInstanceAccess, 'provider' | 'server_url' | 'token'>) =>
      ({ external_id: null, templates: null, ...extra }) as GatewayInstanceAccess;

    await gateway(row({ provider: 'uazapi', server_url: uazapi.url, token: 'uaz-tok' })).sendText({ number: LEAD, text: 'a' });
    await gateway(row({ provider: 'evolution', server_url: evolution.url, token: 'evo-key', external_id: 'clinica-aurora' })).sendText({
      number: LEAD,
      text: 'b',
    });
    await gateway(row({ provider: 'evolution', server_url: evolution.url, token: 'evo-key', external_id: 'clinica-aurora' })).sendText({
      number: LEAD,
      text: 'c',
    });
    cloud.fail(1, GRAPH_ERRORS.temporary);
    await gateway(row({ provider: 'cloud', server_url: cloud.graphUrl, token: 'cloud-token', external_id: '106540352242922' })).sendText({
      number: LEAD,
      text: 'd',
    });

    const sends = samplesOf(parseMetrics(await metrics.render()), 'leadflow_gateway_sends_total');
    expect(sends).toEqual(
      expect.arrayContaining([
        { provider: 'uazapi', outcome: 'ok', value: 1 },
        { provider: 'evolution', outcome: 'ok', value: 2 },
        { provider: 'cloud', outcome: 'retried', value: 1 },
        { provider: 'cloud', outcome: 'ok', value: 1 },
      ]),
    );
    expect(sends).toHaveLength(4);
    expect(new Set(sends.map((s) => s.provider))).toEqual(new Set(GATEWAY_PROVIDERS));
  });

  it('an event naming no registered provider is not counted (no new label value), and is reported', async () => {
    const errors: string[] = [];
    const metrics = createMetrics({ defaultMetrics: false, onError: (err, where) => errors.push(`${where}: ${(err as Error).message}`) });
    metrics.gatewayCall({ provider: 'acme', op: 'send', outcome: 'ok' } as unknown as GatewayCallEvent);
    metrics.gatewayCall({ provider: 'cloud', op: 'download', outcome: 'error' });
    const samples = parseMetrics(await metrics.render());
    expect(samplesOf(samples, 'leadflow_gateway_sends_total')).toEqual([]);
    expect(samplesOf(samples, 'leadflow_gateway_downloads_total')).toEqual([{ provider: 'cloud', outcome: 'error', value: 1 }]);
    expect(errors).toEqual(['gatewayCall: gateway call of an unregistered provider "acme"']);
  });
});
