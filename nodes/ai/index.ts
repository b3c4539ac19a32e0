// The ai node types. The host lists `aiNodes` in nodes/index.ts next to the core nodes.
import type { NodeDefinition } from '../../engine/types.js';
import generate from './generate.js';
import mediaToText from './media-to-text.js';
import summarize from './summarize.js';

export const aiNodes: NodeDefinition[] = [generate, summarize, mediaToText] as unknown as NodeDefinition[];

// The runner itself (runAgent) is adapters/ai/agent-runner.ts's: importing it here would load it with
// every node definition.
export type { AgentRunOptions, AgentResult, AgentTool, AgentAttempt } from '../../adapters/ai/agent-runner.js';
