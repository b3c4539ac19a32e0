// Every node type LeadFlow ships. Add a node: create its file, then list it here.
import { NodeRegistry } from '../engine/registry.js';
import type { NodeDefinition } from '../engine/types.js';
import callFlow from './core/call-flow.js';
import foreach from './core/foreach.js';
import httpRequest from './core/http-request.js';
import ifNode from './core/if.js';
import parallel from './core/parallel.js';
import respond from './core/respond.js';
import set from './core/set.js';
import stop from './core/stop.js';
import switchNode from './core/switch.js';
import wait from './core/wait.js';

export const coreNodes: NodeDefinition[] = [set, ifNode, switchNode, foreach, parallel, wait, stop, respond, callFlow, httpRequest] as unknown as NodeDefinition[];

/** The registry of every shipped node type. */
export function defaultRegistry(): NodeRegistry {
  return new NodeRegistry(coreNodes);
}
