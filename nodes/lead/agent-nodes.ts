// Domain node types used by flows/agent.yaml, for nodes/lead/index.ts.
import type { NodeDefinition } from '../../engine/types.js';
import aiAgent from './ai-agent.js';
import uazapiParse from './uazapi-parse.js';

export const agentNodes: NodeDefinition[] = [uazapiParse, aiAgent] as unknown as NodeDefinition[];
