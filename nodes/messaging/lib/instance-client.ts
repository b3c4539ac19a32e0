// The gateway client of one WhatsApp instance, for the messaging node types: the instance looked up
// in `services.instances` now (its credentials never placed in params or outputs), its client built
// by `services.gateway` for the instance's provider. Also what a call is recorded as.
import type { GatewayClient, GatewayOperation, GatewayRequestRecord } from '../../../adapters/gateway/gateway-client.js';
import { InstanceNotFoundError } from '../../../adapters/gateway/errors/instance-not-found-error.js';
import type { GatewayInstance } from '../../../adapters/gateway/instance-directory.js';
import type { JsonValue } from '../../../engine/types.js';
import type { ServicesOf } from '../../services.js';

/** The instance `id` and its client; throws InstanceNotFoundError when no instance has that id. */
export async function instanceClient(
  services: ServicesOf<'gateway' | 'instances'>,
  id: number,
): Promise<{ instance: GatewayInstance; client: GatewayClient }> {
  const factory = services.gateway;
  const instance = await services.instances.get(id);
  if (!instance) throw new InstanceNotFoundError(id);
  const client = factory({
    id: instance.id,
    provider: instance.provider ?? 'uazapi',
    server_url: instance.server_url,
    token: instance.token,
    external_id: instance.external_id ?? null,
    templates: instance.templates ?? null,
    app_secret: instance.app_secret ?? null,
  });
  return { instance, client };
}

/**
 * What `operation` is recorded as (`ctx.recordOutbound`, kind `gateway`): the client's own
 * description (credentials masked), or, for a client without one, a POST to its server with the
 * operation as the body.
 */
export function recordedCall(client: GatewayClient, operation: GatewayOperation): GatewayRequestRecord {
  if (client.describe) return client.describe(operation);
  return { method: 'POST', url: client.serverUrl, headers: {}, body: operation as unknown as JsonValue };
}
