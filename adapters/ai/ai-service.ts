// The `ai` service nodes reach through `ctx.services.ai`: chat with any `provider:model`, speech to
// text, and the configured model roles. Built from the environment (CONTRACT §2):
// OPENAI_API_KEY / OPENAI_BASE_URL, ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, LEADFLOW_MODEL_*,
// LEADFLOW_RATE_LIMIT_WAIT_MS. Each provider client is created on first use, so a missing key only
// fails the calls that need it (with a ProviderError code 'config'), and a key is never logged. The
// provider SDKs are imported on that first use too: a process that makes no AI call never loads them.
import type { ChatModel, ChatRequest, ChatResult } from './chat-model.js';
import { readModelConfig, type ModelConfig } from './model-config.js';
import { ModelRefError } from './model-ref-error.js';
import { parseModelRef, type Provider } from './model-ref.js';
import type { OpenAiChat, TranscribeRequest } from './openai-chat.js';
import { ProviderError } from './provider-error.js';
import { RateLimitError } from './rate-limit-error.js';

/** A chat request as nodes give it to AiService.chat: the model goes separately, as `provider:model`. */
export type AiChatRequest = Omit<ChatRequest, 'model'>;
/**
 * A transcription request as nodes give it to AiService.transcribe: the model goes separately, as
 * `openai:model`.
 */
export type AiTranscribeRequest = Omit<TranscribeRequest, 'model'>;

/** The execution a call is made for (a step's: nodes get the service bound to it, nodes/services.ts). */
export interface AiCallExecution {
  id: string;
  flow: string;
  /** True in a dry run. */
  dryRun: boolean;
}

/** One finished provider call, for metrics. `outcome` by error class; `ms` wall time. */
export interface AiCallEvent {
  model: string;
  kind: 'chat' | 'transcribe';
  outcome: 'ok' | 'rate_limited' | 'error';
  ms: number;
  input_tokens?: number;
  output_tokens?: number;
  /** The execution whose step made the call; absent for a call made outside a step. */
  execution?: AiCallExecution;
}

/** One model attempt of an agent or generate run (agent-runner.ts), for metrics: which role the model had in the chain. */
export interface AgentAttemptEvent {
  model: string;
  role: 'primary' | 'fallback' | 'contingency';
  outcome: 'ok' | 'error' | 'rate_limited' | 'empty';
  ms: number;
}

/**
 * The `ai` service nodes reach through `ctx.services.ai` (see the file comment); built by
 * createAiService, faked in tests.
 */
export interface AiService {
  /** Model roles and the 429 wait, from the environment. */
  readonly models: ModelConfig;
  /** Chat with `model` given as `provider:model`. Throws ModelRefError, RateLimitError or ProviderError. */
  chat(model: string, request: AiChatRequest): Promise<ChatResult>;
  /** Speech to text with an `openai:` model; returns the transcript ('' when the audio has no speech). */
  transcribe(model: string, request: AiTranscribeRequest): Promise<string>;
  /** Reports one agent-run attempt to `onAgentAttempt` (called by the agent runner); never throws. */
  reportAttempt?(event: AgentAttemptEvent): void;
  /** The same service, its calls' events naming `execution` (AiCallEvent.execution). Optional. */
  forExecution?(execution: AiCallExecution): AiService;
}

/**
 * How createAiService builds its clients (request timeout, fetch) and where it reports calls and
 * attempts (metrics).
 */
export interface AiServiceOptions {
  /** Default timeout of one provider request, milliseconds. Default 60000. */
  timeoutMs?: number;
  /** Called after every provider call (metrics); must not throw. */
  onCall?: (event: AiCallEvent) => void;
  /** Called after every model attempt of an agent or generate run (metrics); must not throw. */
  onAgentAttempt?: (event: AgentAttemptEvent) => void;
  /** Custom fetch for both SDKs (tests, proxies). */
  fetch?: typeof fetch;
}

/** Timeout of one provider request, milliseconds, when AiServiceOptions.timeoutMs is not given. */
export const DEFAULT_AI_TIMEOUT_MS = 60_000;
const OPENAI_DEFAULT_BASE = 'https://api.openai.com/v1';
const ANTHROPIC_DEFAULT_BASE = 'https://api.anthropic.com';

/**
 * The AI service of a process: model roles read from `env` at once (a malformed LEADFLOW_MODEL_*
 * throws here), provider clients built on first use (a missing key fails only the calls that need
 * it, ProviderError code `config`), every provider call reported to `options.onCall`.
 */
export function createAiService(env: Record<string, string | undefined> = process.env, options: AiServiceOptions = {}): AiService {
  const models = readModelConfig(env);
  const clients = lazyProviderClients(env, options.timeoutMs ?? DEFAULT_AI_TIMEOUT_MS, options.fetch);
  const measured = measuredCalls(options.onCall);

  /** The service whose calls are made for `execution` (none: outside any step). */
  const serviceFor = (execution: AiCallExecution | undefined): AiService => ({
    models,
    async chat(model, request) {
      const ref = parseModelRef(model);
      return measured(
        execution,
        model,
        'chat',
        async () => (await clients.chat(ref.provider, model)).chat({ ...request, model: ref.model }),
        (r) => ({ input_tokens: r.usage.input_tokens, output_tokens: r.usage.output_tokens }),
      );
    },
    async transcribe(model, request) {
      const ref = parseModelRef(model);
      if (ref.provider !== 'openai')
        throw new ModelRefError(`transcription needs an openai: model (only /audio/transcriptions transcribes), got "${model}"`);
      return measured(execution, model, 'transcribe', async () =>
        (await clients.openAi(model)).transcribe({ ...request, model: ref.model }),
      );
    },
    reportAttempt(event) {
      try {
        options.onAgentAttempt?.(event);
      } catch {
        // metrics must never break a run
      }
    },
    forExecution: (of) => serviceFor(of),
  });
  return serviceFor(undefined);
}

/** The provider clients of one service, each built on first use. */
interface ProviderClients {
  /** The OpenAI client (chat and transcription); `modelRef` names the model in a missing-key error. */
  openAi(modelRef: string): Promise<OpenAiChat>;
  /** The chat client of `provider`. */
  chat(provider: Provider, modelRef: string): Promise<ChatModel>;
}

/**
 * Provider clients from `env` (OPENAI_API_KEY / OPENAI_BASE_URL, ANTHROPIC_API_KEY /
 * ANTHROPIC_BASE_URL). Each SDK is imported on the first call that needs it and built once per
 * process; a missing key throws at once (synchronously, before any SDK loads), and a client that
 * failed to build is tried again on the next call.
 */
function lazyProviderClients(env: Record<string, string | undefined>, timeoutMs: number, fetch?: typeof globalThis.fetch): ProviderClients {
  let openai: Promise<OpenAiChat> | undefined;
  let anthropic: Promise<ChatModel> | undefined;
  const key = (name: 'OPENAI_API_KEY' | 'ANTHROPIC_API_KEY', modelRef: string): string => {
    const value = env[name]?.trim();
    if (!value) throw new ProviderError(modelRef, `${name} is not set`, undefined, 'config');
    return value;
  };
  const openAi = (modelRef: string): Promise<OpenAiChat> => {
    if (!openai) {
      const apiKey = key('OPENAI_API_KEY', modelRef);
      openai = import('./openai-chat.js').then(
        ({ createOpenAiChat }) =>
          createOpenAiChat({ apiKey, baseURL: env.OPENAI_BASE_URL?.trim() || OPENAI_DEFAULT_BASE, timeoutMs, fetch }),
        (err: unknown) => {
          openai = undefined;
          throw err;
        },
      );
    }
    return openai;
  };
  const anthropicChat = (modelRef: string): Promise<ChatModel> => {
    if (!anthropic) {
      const apiKey = key('ANTHROPIC_API_KEY', modelRef);
      anthropic = import('./anthropic-chat.js').then(
        ({ createAnthropicChat }) =>
          createAnthropicChat({ apiKey, baseURL: env.ANTHROPIC_BASE_URL?.trim() || ANTHROPIC_DEFAULT_BASE, timeoutMs, fetch }),
        (err: unknown) => {
          anthropic = undefined;
          throw err;
        },
      );
    }
    return anthropic;
  };
  return { openAi, chat: (provider, modelRef) => (provider === 'openai' ? openAi(modelRef) : anthropicChat(modelRef)) };
}

/** A call wrapper that reports each call's outcome, wall time (ms) and token usage to `onCall`. */
function measuredCalls(onCall: AiServiceOptions['onCall']) {
  return async function measured<T>(
    execution: AiCallExecution | undefined,
    model: string,
    kind: AiCallEvent['kind'],
    call: () => Promise<T>,
    usage?: (r: T) => Partial<AiCallEvent>,
  ): Promise<T> {
    const started = Date.now();
    const of = execution ? { execution } : {};
    try {
      const result = await call();
      onCall?.({ model, kind, outcome: 'ok', ms: Date.now() - started, ...usage?.(result), ...of });
      return result;
    } catch (err) {
      onCall?.({ model, kind, outcome: err instanceof RateLimitError ? 'rate_limited' : 'error', ms: Date.now() - started, ...of });
      throw err;
    }
  };
}
