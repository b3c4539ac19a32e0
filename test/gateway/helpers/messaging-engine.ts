// A registry with the core and messaging node types, and the services the messaging nodes need,
// wired to a fake gateway.
import { MediaCache } from '../../../adapters/gateway/media-cache.js';
import { uazapiClientFactory, type UazapiClientDefaults } from '../../../adapters/gateway/uazapi/client.js';
import { NodeRegistry } from '../../../engine/registry.js';
import { coreNodes } from '../../../nodes/index.js';
import { messagingNodes } from '../../../nodes/messaging/index.js';
import { type InstanceInput, MemoryInstanceDirectory } from './memory-instances.js';

export const messagingRegistry = new NodeRegistry([...coreNodes, ...messagingNodes]);

export interface MessagingServices {
  gateway: ReturnType<typeof uazapiClientFactory>;
  instances: MemoryInstanceDirectory;
  media: MediaCache;
}

export function messagingServices(instances: InstanceInput[], client: UazapiClientDefaults = {}): MessagingServices {
  return {
    gateway: uazapiClientFactory({ retries: 1, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 2000, ...client }),
    instances: new MemoryInstanceDirectory(instances),
    media: new MediaCache(),
  };
}
