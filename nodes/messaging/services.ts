// How messaging node types reach the outside: `ctx.services.gateway` (GatewayClientFactory),
// `ctx.services.instances` (InstanceDirectory) and `ctx.services.media` (MediaStore), never a global.
// Each accessor fails with a message naming the step and the missing service.
import type { GatewayClient, GatewayClientFactory } from '../../adapters/gateway/gateway-client.js';
import { InstanceNotFoundError } from '../../adapters/gateway/errors/instance-not-found-error.js';
import type { GatewayInstance, InstanceDirectory } from '../../adapters/gateway/instance-directory.js';
import type { MediaStore } from '../../adapters/gateway/media-cache.js';
import type { NodeContext } from '../../engine/types.js';

function missing(ctx: NodeContext, what: string, key: string): Error {
  return new Error(`step "${ctx.stepId}" needs ${what}, but none is configured (services.${key} is missing)`);
}

export function gatewayFactory(ctx: NodeContext): GatewayClientFactory {
  const factory = ctx.services.gateway;
  if (typeof factory !== 'function') throw missing(ctx, 'a WhatsApp gateway client factory', 'gateway');
  return factory as GatewayClientFactory;
}

export function instanceDirectory(ctx: NodeContext): InstanceDirectory {
  const directory = ctx.services.instances as Partial<InstanceDirectory> | undefined;
  if (!directory || typeof directory.get !== 'function') throw missing(ctx, 'the WhatsApp instance directory', 'instances');
  return directory as InstanceDirectory;
}

export function mediaStore(ctx: NodeContext): MediaStore {
  const media = ctx.services.media as Partial<MediaStore> | undefined;
  if (!media || typeof media.put !== 'function' || typeof media.get !== 'function' || typeof media.take !== 'function') {
    throw missing(ctx, 'a media cache', 'media');
  }
  return media as MediaStore;
}

/** The client of instance `id` (its token read now, never placed in params or outputs). */
export async function instanceClient(ctx: NodeContext, id: number): Promise<{ instance: GatewayInstance; client: GatewayClient }> {
  const factory = gatewayFactory(ctx);
  const instance = await instanceDirectory(ctx).get(id);
  if (!instance) throw new InstanceNotFoundError(id);
  return { instance, client: factory({ server_url: instance.server_url, token: instance.token }) };
}
