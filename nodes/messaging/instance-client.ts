// The gateway client of one WhatsApp instance, for the messaging node types: the instance looked up
// in `services.instances` now (its token never placed in params or outputs), its client built by
// `services.gateway`.
import type { GatewayClient } from '../../adapters/gateway/gateway-client.js';
import { InstanceNotFoundError } from '../../adapters/gateway/errors/instance-not-found-error.js';
import type { GatewayInstance } from '../../adapters/gateway/instance-directory.js';
import type { ServicesOf } from '../services.js';

/** The instance `id` and its client; throws InstanceNotFoundError when no instance has that id. */
export async function instanceClient(
  services: ServicesOf<'gateway' | 'instances'>,
  id: number,
): Promise<{ instance: GatewayInstance; client: GatewayClient }> {
  const factory = services.gateway;
  const instance = await services.instances.get(id);
  if (!instance) throw new InstanceNotFoundError(id);
  return { instance, client: factory({ server_url: instance.server_url, token: instance.token }) };
}
