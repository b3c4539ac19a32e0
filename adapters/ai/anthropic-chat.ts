// Anthropic through the Messages API with tools, image and PDF document blocks:
// POST {baseURL}/v1/messages. SDK retries are off (maxRetries 0) so a 429 reaches the agent runner.
import Anthropic from '@anthropic-ai/sdk';
import type {
  ContentBlockParam,
  MessageCreateParamsNonStreaming,
  MessageParam,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages/messages';
import { DEFAULT_MAX_TOKENS, type ChatMessage, type ChatModel, type ChatRequest, type ChatResult, type ContentPart } from './chat-model.js';
import { mapSdkError } from './sdk-error.js';

/**
 * How the Anthropic client is built: API key, base URL (without `/v1`), default request timeout in ms,
 * and an optional fetch.
 */
export interface AnthropicChatOptions {
  apiKey: string;
  /** Without `/v1`; the SDK appends `/v1/messages`. */
  baseURL: string;
  /** Default request timeout, milliseconds. */
  timeoutMs: number;
  fetch?: typeof fetch;
}

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
type ImageType = (typeof IMAGE_TYPES)[number];

const base64 = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');

function toBlock(part: ContentPart): ContentBlockParam {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image': {
      const mediaType = part.mimetype.split(';')[0]!.trim().toLowerCase();
      // The API rejects other image types; say so here rather than as an opaque 400.
      if (!(IMAGE_TYPES as readonly string[]).includes(mediaType))
        return { type: 'text', text: `[imagem em formato não suportado: ${mediaType}]` };
      return { type: 'image', source: { type: 'base64', media_type: mediaType as ImageType, data: base64(part.data) } };
    }
    case 'pdf':
      return {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: base64(part.data) },
        ...(part.filename ? { title: part.filename } : {}),
      };
  }
}

/** Parsed tool input for an earlier tool_use block; invalid JSON (only possible from another provider's turn) becomes {}. */
function toolInput(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * Stands in for the lead's side when the history starts with our own message (e.g. the intake's
 * first message): the Messages API rejects a conversation whose first turn is not `user`.
 */
export const CONVERSATION_START = '[início da conversa]';

/** A turn's content as blocks (a string is one text block). */
function blocksOf(content: MessageParam['content']): ContentBlockParam[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/**
 * Appends `turn` to `out`, merged into the last turn when both have the same role: the Messages API
 * wants user and assistant turns to alternate (older API versions answer 400 otherwise). Two texts
 * are joined by a blank line; otherwise the blocks follow one another, in order (tool results first,
 * since they only ever follow the assistant turn that asked for them).
 */
function appendTurn(out: MessageParam[], turn: MessageParam): void {
  const last = out.at(-1);
  if (last?.role !== turn.role) out.push(turn);
  else if (typeof last.content === 'string' && typeof turn.content === 'string') last.content = `${last.content}\n\n${turn.content}`;
  else last.content = [...blocksOf(last.content), ...blocksOf(turn.content)];
}

/**
 * Our messages as Anthropic turns, alternating user and assistant: consecutive turns of one role
 * become one (see appendTurn; e.g. several lead messages in a row, or a clinic operator's message
 * then the agent's), so consecutive tool results become one user turn of tool_result blocks; blank
 * text turns are dropped (the API rejects empty text blocks); a leading assistant turn gets a
 * CONVERSATION_START user turn before it.
 */
function toMessages(messages: ChatMessage[]): MessageParam[] {
  const out: MessageParam[] = [];
  for (const m of messages) {
    if (m.role !== 'tool' && typeof m.content === 'string' && !m.content.trim() && !(m.role === 'assistant' && m.tool_calls?.length))
      continue;
    if (out.length === 0 && m.role === 'assistant') out.push({ role: 'user', content: CONVERSATION_START });
    if (m.role === 'tool') {
      const block: ToolResultBlockParam = {
        type: 'tool_result',
        tool_use_id: m.tool_call_id,
        content: m.content,
        ...(m.is_error ? { is_error: true } : {}),
      };
      appendTurn(out, { role: 'user', content: [block] });
    } else if (m.role === 'user') {
      appendTurn(out, { role: 'user', content: typeof m.content === 'string' ? m.content : m.content.map(toBlock) });
    } else if (m.tool_calls?.length) {
      const blocks: ContentBlockParam[] = m.content.trim() ? [{ type: 'text', text: m.content }] : [];
      for (const c of m.tool_calls) blocks.push({ type: 'tool_use', id: c.id, name: c.name, input: toolInput(c.arguments) });
      appendTurn(out, { role: 'assistant', content: blocks });
    } else {
      appendTurn(out, { role: 'assistant', content: m.content });
    }
  }
  return out;
}

/**
 * The ChatModel of the Anthropic Messages API: our turns merged to alternate (toMessages), images and
 * PDFs as base64 blocks, tools as tool_use / tool_result. Errors are mapped by mapSdkError
 * (RateLimitError on 429, ProviderError otherwise); the SDK never retries by itself.
 */
export function createAnthropicChat(options: AnthropicChatOptions): ChatModel {
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    timeout: options.timeoutMs,
    maxRetries: 0,
    // Pinned: ANTHROPIC_LOG=debug would print request bodies, and traces in content mode would carry them.
    logLevel: 'warn',
    openTelemetry: { traces: { contentMode: 'metadata_only' } },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  return {
    provider: 'anthropic',

    async chat(request: ChatRequest): Promise<ChatResult> {
      const body: MessageCreateParamsNonStreaming = {
        model: request.model,
        max_tokens: request.max_tokens ?? DEFAULT_MAX_TOKENS,
        messages: toMessages(request.messages),
        ...(request.system ? { system: request.system } : {}),
      };
      if (request.tools?.length) {
        body.tools = request.tools.map((t) => ({
          name: t.name,
          description: t.description,
          input_schema: t.parameters as Anthropic.Tool.InputSchema,
        }));
        body.tool_choice = { type: request.tool_choice ?? 'auto' };
      }
      let message;
      try {
        message = await client.messages.create(body, {
          signal: request.signal,
          timeout: request.timeout_ms ?? options.timeoutMs,
          maxRetries: 0,
        });
      } catch (err) {
        throw mapSdkError(err, `anthropic:${request.model}`, request.signal);
      }
      const content = Array.isArray(message.content) ? message.content : [];
      return {
        text: content
          .filter((b) => b.type === 'text')
          .map((b) => (b as { text: string }).text)
          .join(''),
        tool_calls: content
          .filter((b) => b.type === 'tool_use')
          .map((b) => {
            const use = b as { id: string; name: string; input: unknown };
            return { id: use.id, name: use.name, arguments: JSON.stringify(use.input ?? {}) };
          }),
        usage: { input_tokens: message.usage?.input_tokens ?? 0, output_tokens: message.usage?.output_tokens ?? 0 },
        model: message.model ?? request.model,
        stop_reason: message.stop_reason ?? null,
      };
    },
  };
}
