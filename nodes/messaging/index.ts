// The messaging node types (WhatsApp gateway), for nodes/index.ts to register.
import type { NodeDefinition } from '../../engine/types.js';
import gatewayDownload from './gateway-download.js';
import gatewayForget from './gateway-forget.js';
import gatewayParse from './gateway-parse.js';
import gatewaySend from './gateway-send.js';

export const messagingNodes: NodeDefinition[] = [gatewayParse, gatewaySend, gatewayDownload, gatewayForget] as unknown as NodeDefinition[];
