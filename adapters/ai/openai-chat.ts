// OpenAI (or any OpenAI-compatible server) through Chat Completions with function tools:
// POST {baseURL}/chat/completions, and speech to text through POST {baseURL}/audio/transcriptions.
// No other endpoint is used. SDK retries are off (maxRetries 0) so a 429 reaches the agent runner.
import OpenAI, { toFile } from 'openai';
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions/completions';
import { DEFAULT_MAX_TOKENS, type ChatMessage, type ChatModel, type ChatRequest, type ChatResult, type ContentPart } from './chat-model.js';
import { audioFilename } from './audio-filename.js';
import { mapSdkError } from './sdk-error.js';

/**
 * How the OpenAI client is built: API key, base URL (ending in `/v1`), default request timeout in ms,
 * and an optional fetch.
 */
export interface OpenAiChatOptions {
  apiKey: string;
  /** Ends in `/v1`; the SDK appends `/chat/completions`. */
  baseURL: string;
  /** Default request timeout, milliseconds. */
  timeoutMs: number;
  fetch?: typeof fetch;
}

/** One speech-to-text call (POST /audio/transcriptions): the audio's bytes and container type, a language hint. */
export interface TranscribeRequest {
  /** Provider model id, e.g. `gpt-4o-mini-transcribe`. */
  model: string;
  bytes: Uint8Array;
  /** Container type, e.g. `audio/ogg; codecs=opus` (WhatsApp voice notes). Decides the file name sent. */
  mimetype: string;
  /** ISO-639-1 hint, e.g. `pt`. */
  language?: string;
  signal?: AbortSignal;
  timeout_ms?: number;
}

/** The OpenAI ChatModel, which also transcribes (the only provider of the two that does). */
export interface OpenAiChat extends ChatModel {
  transcribe(request: TranscribeRequest): Promise<string>;
}

const base64 = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');

function toPart(part: ContentPart): ChatCompletionContentPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return { type: 'image_url', image_url: { url: `data:${part.mimetype};base64,${base64(part.data)}`, detail: 'auto' } };
    case 'pdf':
      return {
        type: 'file',
        file: { filename: part.filename ?? 'document.pdf', file_data: `data:application/pdf;base64,${base64(part.data)}` },
      };
  }
}

function toMessages(system: string | undefined, messages: ChatMessage[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = system ? [{ role: 'system', content: system }] : [];
  for (const m of messages) {
    if (m.role === 'user') out.push({ role: 'user', content: typeof m.content === 'string' ? m.content : m.content.map(toPart) });
    else if (m.role === 'tool') out.push({ role: 'tool', tool_call_id: m.tool_call_id, content: m.content });
    else if (m.tool_calls?.length)
      out.push({
        role: 'assistant',
        content: m.content || null,
        tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } })),
      });
    else out.push({ role: 'assistant', content: m.content });
  }
  return out;
}

/**
 * The ChatModel of OpenAI's Chat Completions API (and its transcriptions): images as data URLs, PDFs
 * as file parts, tools as function calls. Errors are mapped by mapSdkError (RateLimitError on 429,
 * ProviderError otherwise); the SDK never retries by itself.
 */
export function createOpenAiChat(options: OpenAiChatOptions): OpenAiChat {
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    timeout: options.timeoutMs,
    maxRetries: 0,
    // Pinned: a debug level set through OPENAI_LOG would print request bodies (lead texts, media).
    logLevel: 'warn',
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const ref = (model: string) => `openai:${model}`;

  return {
    provider: 'openai',

    async chat(request: ChatRequest): Promise<ChatResult> {
      const body: ChatCompletionCreateParamsNonStreaming = {
        model: request.model,
        messages: toMessages(request.system, request.messages),
        max_completion_tokens: request.max_tokens ?? DEFAULT_MAX_TOKENS,
      };
      if (request.tools?.length) {
        body.tools = request.tools.map((t) => ({
          type: 'function' as const,
          function: { name: t.name, description: t.description, parameters: t.parameters },
        }));
        body.tool_choice = request.tool_choice ?? 'auto';
      }
      let completion;
      try {
        completion = await client.chat.completions.create(body, {
          signal: request.signal,
          timeout: request.timeout_ms ?? options.timeoutMs,
          maxRetries: 0,
        });
      } catch (err) {
        throw mapSdkError(err, ref(request.model), request.signal);
      }
      const choice = completion.choices?.[0];
      const message = choice?.message;
      return {
        text: typeof message?.content === 'string' ? message.content : '',
        tool_calls: (message?.tool_calls ?? [])
          .filter((c): c is Extract<typeof c, { type: 'function' }> => c.type === 'function')
          .map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments ?? '' })),
        usage: { input_tokens: completion.usage?.prompt_tokens ?? 0, output_tokens: completion.usage?.completion_tokens ?? 0 },
        model: completion.model ?? request.model,
        stop_reason: choice?.finish_reason ?? null,
      };
    },

    async transcribe(request: TranscribeRequest): Promise<string> {
      try {
        const file = await toFile(
          Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength),
          audioFilename(request.mimetype),
          {
            type: request.mimetype.split(';')[0]!.trim(),
          },
        );
        const result = await client.audio.transcriptions.create(
          { file, model: request.model, response_format: 'json', ...(request.language ? { language: request.language } : {}) },
          { signal: request.signal, timeout: request.timeout_ms ?? options.timeoutMs, maxRetries: 0 },
        );
        return typeof result === 'string' ? result : (result.text ?? '');
      } catch (err) {
        throw mapSdkError(err, ref(request.model), request.signal);
      }
    },
  };
}
