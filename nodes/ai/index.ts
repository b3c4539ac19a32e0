// The ai node types. The host lists `aiNodes` in nodes/index.ts next to the core nodes.
import type { NodeDefinition } from '../../engine/types.js';
import generate from './generate.js';
import mediaToText from './media-to-text.js';
import summarize from './summarize.js';

export const aiNodes: NodeDefinition[] = [generate, summarize, mediaToText] as unknown as NodeDefinition[];

export { runAgent, type AgentRunOptions, type AgentResult, type AgentTool, type AgentAttempt } from '../../adapters/ai/agent-runner.js';
