// The gateway providers this service ships, registered once. A provider is a folder
// (adapters/gateway/<provider>/: events, client, auth, errors, provider) and one `register` line here:
// its name becomes a GatewayProvider (what `instancias_whatsapp.provider` may hold, `leadflow seed`
// checks it), its inbound side becomes a webhook auth mode (cli/webhook-auth-modes.ts) and its
// verification GET, if any, a route (cli/gateway-routes.ts); the flow then names its route
// (`trigger.webhook.routes`).
import { cloudProvider } from './cloud/provider.js';
import { evolutionProvider } from './evolution/provider.js';
import { GatewayProviderRegistry } from './provider-registry.js';
import { uazapiProvider } from './uazapi/provider.js';

/** Every provider the service speaks (`ctx.services.gatewayProviders`; its `clientFactory` is `ctx.services.gateway`). */
export const gatewayProviders = new GatewayProviderRegistry()
  .register('uazapi', uazapiProvider)
  .register('evolution', evolutionProvider)
  .register('cloud', cloudProvider);

/** The providers an instance may name (`instancias_whatsapp.provider`): the registered names. */
export type GatewayProvider = ReturnType<typeof gatewayProviders.names>[number];

/** Every provider name, in registration order (the order the docs list them). */
export const GATEWAY_PROVIDERS: readonly GatewayProvider[] = gatewayProviders.names();

/** True when `value` names a registered provider. */
export function isGatewayProvider(value: unknown): value is GatewayProvider {
  return gatewayProviders.has(value);
}
