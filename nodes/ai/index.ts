// The AI node types that are not about leads (the lead agent is nodes/lead/ai-agent.ts).
import { nodeList } from '../../engine/registry.js';
import generate from './generate.js';
import mediaToText from './media-to-text.js';
import summarize from './summarize.js';

/** The `ai.*` node types: generate a text, summarize one, turn a medium into text. */
export const aiNodes = nodeList(generate, summarize, mediaToText);
