// Domain node types used by flows/handoff.yaml, for nodes/lead/index.ts.
import type { NodeDefinition } from '../../engine/types.js';

export const handoffNodes: NodeDefinition[] = [];
