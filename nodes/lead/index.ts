// Lead-domain node types: the few steps YAML cannot say cleanly.
import type { NodeDefinition } from '../../engine/types.js';
import { agentNodes } from './agent-nodes.js';
import { handoffNodes } from './handoff-nodes.js';
import { intakeNodes } from './intake-nodes.js';
import leadStatus from './lead-status.js';
import phoneInList from './phone-in-list.js';
import phoneNormalize from './phone-normalize.js';
import textIsOneOf from './text-is-one-of.js';
import textSplit from './text-split.js';

export const leadNodes: NodeDefinition[] = [
  phoneNormalize,
  phoneInList,
  textSplit,
  textIsOneOf,
  leadStatus,
  ...intakeNodes,
  ...agentNodes,
  ...handoffNodes,
] as unknown as NodeDefinition[];
