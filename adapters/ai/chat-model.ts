// One chat interface over both providers. Implementations: openai-chat.ts (Chat Completions),
// anthropic-chat.ts (Messages). Everything here is provider-neutral and plain data.

/** Part of a user message. Binary data is raw bytes; implementations base64 it on the wire. */
export type ContentPart =
  | { type: 'text'; text: string }
  /** `mimetype`: image/jpeg, image/png, image/gif or image/webp (what both providers accept). */
  | { type: 'image'; mimetype: string; data: Uint8Array }
  /** A PDF document. `filename` is shown to the model (OpenAI requires one; default `document.pdf`). */
  | { type: 'pdf'; data: Uint8Array; filename?: string };

/** A tool call the model asked for. `arguments` is the JSON text as the model wrote it: untrusted, may be invalid. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * One turn of a conversation sent to a model: the user's (text or content parts), the model's own
 * (with the tool calls it asked for), or a tool's result.
 */
export type ChatMessage =
  | { role: 'user'; content: string | ContentPart[] }
  /** An earlier model turn; `tool_calls` when that turn asked for tools (their results follow as `tool` messages). */
  | { role: 'assistant'; content: string; tool_calls?: ToolCall[] }
  /** Result of one tool call, JSON text; `is_error` when the call was rejected or its handler failed. */
  | { role: 'tool'; tool_call_id: string; name: string; content: string; is_error?: boolean };

/** A tool offered to the model. `parameters` is a JSON Schema of an object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** One chat call to a provider's model, provider-neutral; ChatModel.chat maps it to the provider's API. */
export interface ChatRequest {
  /** The provider's model id (no `provider:` prefix). */
  model: string;
  system?: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  /** `auto` (default when tools are given) lets the model call tools; `none` asks for text only. */
  tool_choice?: 'auto' | 'none';
  /** Most output tokens. Default 1024. OpenAI: `max_completion_tokens`; Anthropic: `max_tokens`. */
  max_tokens?: number;
  signal?: AbortSignal;
  /** Request timeout in milliseconds; default the client's (see ai-service.ts). */
  timeout_ms?: number;
}

/** Tokens of one call (or summed over a run), as the provider reports them. */
export interface ChatUsage {
  input_tokens: number;
  output_tokens: number;
}

/** A provider's answer to one ChatRequest, provider-neutral: text, tool calls, usage and why it stopped. */
export interface ChatResult {
  /** The text of the answer, '' when the model wrote none. */
  text: string;
  tool_calls: ToolCall[];
  usage: ChatUsage;
  /** Model id the provider reports having used. */
  model: string;
  /** Provider's stop reason (`stop`, `tool_calls`, `end_turn`, `tool_use`, `length`, `max_tokens` ...). */
  stop_reason: string | null;
}

/** One provider's chat. Errors: RateLimitError (429), ProviderError (anything else); never retries by itself. */
export interface ChatModel {
  readonly provider: 'openai' | 'anthropic';
  chat(request: ChatRequest): Promise<ChatResult>;
}

/** Output tokens of one call when ChatRequest.max_tokens is not given. */
export const DEFAULT_MAX_TOKENS = 1024;
