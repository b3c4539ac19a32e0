// Every node type LeadFlow ships, one list per folder. Add a node: create its file in the folder of
// what it touches, then list it in that folder's index.ts.
import { NodeRegistry, nodeList } from '../engine/registry.js';
import { aiNodes } from './ai/index.js';
import { bookingNodes } from './booking/index.js';
import { coreNodes } from './core/index.js';
import { dataNodes } from './data/index.js';
import { leadNodes } from './lead/index.js';
import { messagingNodes } from './messaging/index.js';
import { timeNodes } from './time/index.js';

/** The core node types (nodes/core/index.ts), for hosts and tests that register only those. */
export { coreNodes };

/** Every shipped node type: control flow, then what each touches outside the process. */
export const allNodes = nodeList(...coreNodes, ...dataNodes, ...messagingNodes, ...aiNodes, ...leadNodes, ...timeNodes, ...bookingNodes);

/** The registry of every shipped node type (a new one per call). */
export function defaultRegistry(): NodeRegistry {
  return new NodeRegistry(allNodes);
}
