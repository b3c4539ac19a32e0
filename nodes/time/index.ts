// The time node types: questions about clinic hours and instants. The host lists `timeNodes` in
// nodes/index.ts next to the core nodes.
import type { NodeDefinition } from '../../engine/types.js';
import hoursCheck from './hours-check.js';

export const timeNodes: NodeDefinition[] = [hoursCheck] as unknown as NodeDefinition[];
