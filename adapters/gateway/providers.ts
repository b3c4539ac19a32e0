// The gateway providers this service ships, registered once (provider-registry.ts). Adding a
// provider is one `register` line here: its client builder, parser and inbound side (its auth mode
// is then registered by cli/webhook-auth-modes.ts, its verification GET mounted by
// cli/gateway-routes.ts), and its route declared in the flow (`trigger.webhook.routes`).
import { evolutionProvider } from './evolution/provider.js';
import { cloudProvider } from './cloud/provider.js';
import { GatewayProviderRegistry } from './provider-registry.js';
import { uazapiProvider } from './uazapi/provider.js';

/** Every provider the service speaks. */
export const gatewayProviders: GatewayProviderRegistry = new GatewayProviderRegistry()
  .register('uazapi', uazapiProvider)
  .register('evolution', evolutionProvider)
  .register('cloud', cloudProvider);
