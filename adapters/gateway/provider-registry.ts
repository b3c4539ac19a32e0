// The gateway providers the service speaks, by name (CONTRACT §11): per provider, how to build the
// client of one of its instances, how to parse one of its inbound events, and its inbound route.
// `ctx.services.gateway` is `clientFactory(defaults)`: it dispatches on the instance's `provider`;
// `gateway.parse` dispatches with `parse`. A provider nobody registered is UnknownGatewayProviderError
// (an instance's client, or an event to parse), never another provider's client.
//
// The service's registry is built once in providers.ts, and the provider names are its names
// (GatewayProvider, GATEWAY_PROVIDERS); tests build their own.
import { UnknownGatewayProviderError } from './errors/unknown-gateway-provider-error.js';
import type { GatewayClient, GatewayClientFactory, GatewayInstanceAccess } from './gateway-client.js';
import type { GatewayEventParser, GatewayMessage, ParsedEvent } from './gateway-message.js';
import type { KeyValue } from '../kv/key-value.js';
import type { InboundProvider } from './provider-inbound.js';
import type { GatewayHttpOptions } from './http-client-options.js';

/**
 * What the host hands every provider's client (each takes what applies to it): where it logs, the
 * metrics hook, and limits. Units: ms, bytes.
 */
export interface GatewayClientDefaults extends GatewayHttpOptions {
  /**
   * The key-value store, for a provider that keeps state per lead between calls (Cloud: the 24-hour
   * customer window, read before a send that names a template). Absent: no such state is read.
   */
  kv?: KeyValue;
  /**
   * The host's clock, ms since the epoch, for a provider that applies a time rule to a send (Cloud:
   * whether the lead's 24-hour window is still open). Default Date.now.
   */
  now?: () => number;
}

/** Builds the client of one instance of a provider (throws TypeError for an unusable row, e.g. a bad server_url). */
export type GatewayClientBuilder = (instance: GatewayInstanceAccess, defaults: GatewayClientDefaults) => GatewayClient;

/**
 * What a provider is to the service (its `adapters/gateway/<provider>/provider.ts`): how to build the
 * client of one of its instances, how to parse one of its inbound events, its inbound route, and
 * optionally what it keeps per lead. Registered under its name in providers.ts.
 *
 * @example
 * export const acmeProvider: GatewayProviderModule = {
 *   client: (instance, defaults) => new AcmeClient({ ...defaults, serverUrl: instance.server_url, token: instance.token }),
 *   parse: parseAcmeMessage, // (event, now?) => GatewayMessage | {ignored}
 *   inbound: acmeInbound, // {provider: 'acme', authMode: 'acme-signature', path: '/leadagent/acme', accept}
 * };
 * // providers.ts: new GatewayProviderRegistry()….register('acme', acmeProvider)
 */
export interface GatewayProviderModule {
  /** Builds the client of one of its instances (`ctx.services.gateway` calls it with the host's defaults). */
  client: GatewayClientBuilder;
  /** `gateway.parse` for this provider's events (gateway-message.ts). */
  parse: GatewayEventParser;
  /** Its inbound route: auth mode, authentication and split into events, verification GET. */
  inbound: InboundProvider;
  /**
   * Optional: what the provider keeps of a message a lead sent (`gateway.parse` calls it for each
   * parsed message not from the clinic, when it knows the instance and has the key-value store);
   * Cloud: opens the lead's 24-hour window. Idempotent (the same message twice changes nothing).
   */
  noteInbound?(message: GatewayMessage, instanceId: number, kv: KeyValue): Promise<void>;
  /**
   * Optional: whether a message from the clinic's number (`from_me`) is one LeadFlow itself sent
   * through the provider's API, echoed back (`gateway.parse` asks for each `from_me` message not
   * already `sent_by_api`, when it knows the instance and has the key-value store; true sets
   * `sent_by_api`). Evolution: the message id is one its sends noted (its issue #1340).
   */
  sentByApi?(message: GatewayMessage, instanceId: number, kv: KeyValue): Promise<boolean>;
  /**
   * Optional: erases what noteInbound kept of `phone` (digits) on that instance (`gateway.forget`, for
   * `excluir`); Cloud: the lead's 24-hour window. Resolves to how many keys were deleted.
   */
  forget?(instanceId: number, phone: string, kv: KeyValue): Promise<number>;
}

/**
 * Providers by name; `N` is the union of the names registered so far (the service's registry in
 * providers.ts is where GatewayProvider comes from).
 *
 * @example
 * const providers = new GatewayProviderRegistry().register('uazapi', uazapiProvider);
 * const gateway = providers.clientFactory({ logger }); // ctx.services.gateway
 * gateway(instance).sendText({ number: '5511987654321', text: 'Oi' });
 */
export class GatewayProviderRegistry<N extends string = never> {
  private readonly byName = new Map<string, GatewayProviderModule>();

  /**
   * Adds a provider; throws when it is registered twice or its inbound module names another provider.
   * Returns this registry, typed with `name` among its names.
   */
  register<M extends string>(name: M, module: GatewayProviderModule): GatewayProviderRegistry<N | M> {
    if (this.byName.has(name)) throw new Error(`gateway provider "${name}" is registered twice`);
    if (module.inbound.provider !== name)
      throw new Error(`gateway provider "${name}": its inbound module is "${module.inbound.provider}"'s`);
    this.byName.set(name, module);
    return this;
  }

  /** Registered names, in registration order. */
  names(): N[] {
    return [...this.byName.keys()] as N[];
  }

  /** True when `name` is registered here. */
  has(name: unknown): name is N {
    return typeof name === 'string' && this.byName.has(name);
  }

  /** The provider named `name`; throws UnknownGatewayProviderError when none is registered under it. */
  get(name: string): GatewayProviderModule {
    const module = this.byName.get(name);
    if (!module) throw new UnknownGatewayProviderError(name, this.names());
    return module;
  }

  /** `ctx.services.gateway`: each instance's client from its provider's builder, with `defaults`. */
  clientFactory(defaults: GatewayClientDefaults = {}): GatewayClientFactory {
    return (instance) => this.get(instance.provider).client(instance, defaults);
  }

  /** One event of `provider` parsed (`gateway.parse`); throws UnknownGatewayProviderError, or the parser's GatewayEventError. */
  parse(provider: string, event: unknown, now?: number): ParsedEvent {
    return this.get(provider).parse(event, now);
  }

  /** Every registered provider's inbound side, in registration order. */
  inbound(): InboundProvider[] {
    return [...this.byName.values()].map((m) => m.inbound);
  }
}
