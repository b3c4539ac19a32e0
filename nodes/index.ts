// Every node type LeadFlow ships. Add a node: create its file, then list it here.
import { NodeRegistry } from '../engine/registry.js';
import type { NodeDefinition } from '../engine/types.js';
import callFlow from './core/call-flow.js';
import flowCancel from './core/flow-cancel.js';
import flowStart from './core/flow-start.js';
import foreach from './core/foreach.js';
import httpRequest from './core/http-request.js';
import ifNode from './core/if.js';
import parallel from './core/parallel.js';
import respond from './core/respond.js';
import set from './core/set.js';
import stop from './core/stop.js';
import stopIf from './core/stop-if.js';
import switchNode from './core/switch.js';
import wait from './core/wait.js';
import { dbNodes } from './data/db-index.js';
import executionsErase from './data/executions-erase.js';
import { kvNodes } from './data/kv-index.js';
import { messagingNodes } from './messaging/index.js';
import { aiNodes } from './ai/index.js';
import { leadNodes } from './lead/index.js';
import { timeNodes } from './time/index.js';

export const coreNodes: NodeDefinition[] = [
  set,
  ifNode,
  switchNode,
  foreach,
  parallel,
  wait,
  stop,
  stopIf,
  respond,
  callFlow,
  flowStart,
  flowCancel,
  httpRequest,
] as unknown as NodeDefinition[];

/** Every shipped node type: control flow, then what each touches outside the process. */
export const allNodes: NodeDefinition[] = [
  ...coreNodes,
  ...dbNodes,
  executionsErase as unknown as NodeDefinition,
  ...kvNodes,
  ...messagingNodes,
  ...aiNodes,
  ...leadNodes,
  ...timeNodes,
];

/** The registry of every shipped node type. */
export function defaultRegistry(): NodeRegistry {
  return new NodeRegistry(allNodes);
}
