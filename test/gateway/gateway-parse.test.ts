// `gateway.parse` for uazapi events: the provider from `trigger.auth.provider`, uazapi when absent
// (executions recorded before providers had none); a malformed event or an unregistered provider
// fails the step.
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayEventError } from '../../adapters/gateway/errors/gateway-event-error.js';
import { UnknownGatewayProviderError } from '../../adapters/gateway/errors/unknown-gateway-provider-error.js';
import { gatewayProviders } from '../../adapters/gateway/providers.js';
import type { NodeContext } from '../../engine/types.js';
import gatewayParse from '../../nodes/messaging/gateway-parse.js';
import { runFlow, shutdownEngines, stepOutput, stepRecord } from '../helpers/run-flow.js';
import { uazapiFixture } from './helpers/fixtures.js';

const ctx = { services: { gatewayProviders } } as unknown as NodeContext;
/** What the engine of a flow running gateway.parse is handed (`ctx.services`). */
const engine = { services: { gatewayProviders } };

afterEach(shutdownEngines);

describe('gateway.parse (uazapi)', () => {
  it('reads the provider from trigger.auth; absent, uazapi', async () => {
    const flow = `name: parse
steps:
  - id: msg
    type: gateway.parse
    params: { event: "{{ trigger.body }}", provider: "{{ trigger.auth.provider }}" }
`;
    const { record } = await runFlow(flow, { body: uazapiFixture('audio-ptt'), engine });
    expect(record.status).toBe('success');
    expect(stepOutput(record, 'msg')).toMatchObject({
      ignored: false,
      provider: 'uazapi',
      kind: 'audio',
      media_ref: '3EB0AUD10000000000A1',
    });
  });

  it('a body that is not a uazapi event fails the step with each path; an unregistered provider fails it too', async () => {
    await expect(gatewayParse.run({ event: { EventType: 'messages', message: {} }, provider: 'uazapi' }, ctx)).rejects.toSatisfy(
      (err: unknown) =>
        err instanceof GatewayEventError &&
        err.provider === 'uazapi' &&
        err.details.map((d) => d.path).join() === 'message.messageid,message.chatid',
    );
    await expect(gatewayParse.run({ event: uazapiFixture('text-conversation'), provider: 'waha' }, ctx)).rejects.toBeInstanceOf(
      UnknownGatewayProviderError,
    );
    const flow = `name: parse
steps:
  - id: msg
    type: gateway.parse
    params: { event: "{{ trigger.body }}", provider: waha }
`;
    const { record } = await runFlow(flow, { body: {}, engine });
    expect(record.status).toBe('failed');
    expect(stepRecord(record, 'msg').error).toMatchObject({
      name: 'UnknownGatewayProviderError',
      message: `gateway provider "waha" is not registered (registered: ${gatewayProviders.names().join(', ')})`,
    });
  });
});
