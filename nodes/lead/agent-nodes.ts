// Domain node types used by flows/agent.yaml, for nodes/lead/index.ts.
import type { NodeDefinition } from '../../engine/types.js';

export const agentNodes: NodeDefinition[] = [];
