// Domain node types used by flows/intake.yaml, for nodes/lead/index.ts.
import type { NodeDefinition } from '../../engine/types.js';
import budgetClassify from './budget-band.js';
import contentHash from './content-hash.js';
import formNormalize from './form-normalize.js';

export const intakeNodes: NodeDefinition[] = [formNormalize, budgetClassify, contentHash] as unknown as NodeDefinition[];
