// Domain node types used by flows/intake.yaml, for nodes/lead/index.ts.
import type { NodeDefinition } from '../../engine/types.js';

export const intakeNodes: NodeDefinition[] = [];
