/**
 * An instance names a gateway provider the service has no implementation of (not registered in the
 * provider registry, adapters/gateway/provider-registry.ts), or a step asked to parse an event of
 * one. Retrying cannot help: fix the instance's `provider` (`leadflow seed`) or register the provider.
 */
export class UnknownGatewayProviderError extends Error {
  override name = 'UnknownGatewayProviderError';
  readonly code = 'unknown-gateway-provider';
  constructor(
    readonly provider: string,
    readonly registered: readonly string[],
  ) {
    super(`gateway provider "${provider}" is not registered (registered: ${registered.join(', ') || 'none'})`);
  }
}
