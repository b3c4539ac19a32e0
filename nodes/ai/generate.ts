import { type Static, Type } from '../../engine/typebox.js';
import { AgentFailedError } from '../../adapters/ai/agent-failed-error.js';
import type { AiService } from '../../adapters/ai/ai-service.js';
import type { JsonValue, NodeContext } from '../../engine/types.js';
import { modelChainParams } from './lib/model-params.js';
import { renderTemplate } from './lib/prompt-template.js';
import { defineServiceNode } from '../services.js';
import { lazyModule } from '../lazy-module.js';

/** The model-chain runner, loaded on the first run: describing or validating flows never needs it. */
const agentRunner = lazyModule(() => import('../../adapters/ai/agent-runner.js'));

const GenerateParams = Type.Object(
  {
    ...modelChainParams,
    system: Type.String({
      default: '',
      maxLength: 100_000,
      description: 'System prompt; empty for none. Not a secret: keep credentials and rules enforced by code out of it.',
      examples: ['Você é a assistente da {{ steps.clinic.nome }}.'],
    }),
    prompt: Type.String({
      minLength: 1,
      maxLength: 200_000,
      description: 'The user message to answer.',
      examples: ['Escreva a primeira mensagem para {{ trigger.body.nome }}.'],
    }),
    values: Type.Union([Type.Record(Type.String({ pattern: '^[A-Za-z0-9_]+$' }), Type.Unknown()), Type.Null()], {
      default: null,
      description:
        'Values of the `{{name}}` and `{{name.member}}` placeholders of `system` and `prompt`, for a prompt read from a file of the flow (`files.NAME`, written like flows/prompts/agent-system.md): strings as they are, null and a member a row lacks as empty, other values as JSON; HTML comments are removed and each text trimmed. A placeholder whose name has no value fails the step (`fallback_text` is not used then). Null: `system` and `prompt` are sent as they are.',
      examples: [{ clinica: '{{ steps.clinic }}', conversa: '{{ steps.conversation.text }}' }],
    }),
    max_tokens: Type.Integer({
      minimum: 1,
      maximum: 32_000,
      default: 2048,
      description: 'Most output tokens per call (reasoning models count their reasoning here too).',
      examples: [600],
    }),
    deadline_ms: Type.Integer({
      minimum: 1000,
      maximum: 900_000,
      default: 60_000,
      description: 'Total time for every attempt and wait, milliseconds.',
      examples: [90000],
    }),
    fallback_text: Type.String({
      default: '',
      maxLength: 20_000,
      description:
        'Text output when every model fails (or the AI service is missing), so the step still succeeds, with `written_by: "template"`; empty: the step fails instead. A template like any other parameter.',
      examples: ['{{ steps.greeting.text }} Recebemos o seu formulário e vamos falar com você por aqui.'],
    }),
  },
  { additionalProperties: false },
);

/**
 * `ai.generate`: answers `prompt` (with `system`) through the model chain (`model`, then
 * `fallback_models`; after a 429 the `contingency_model`, all within `deadline_ms`). An empty answer
 * is never output: when every model fails the step fails (AgentFailedError, status 429 when rate
 * limited), unless `fallback_text` is given, which is then output with `written_by: "template"`.
 * Needs the AI service.
 */
export default defineServiceNode({
  type: 'ai.generate',
  services: ['ai'],
  description:
    'Generates text with a model chain: `model`, then each of `fallback_models` when one fails or answers empty. With `contingency_model`, a 429 waits `rate_limit_wait_ms` and tries the contingency model, repeating within `deadline_ms`. An empty answer is never output: when every option fails the step fails (AgentFailedError, status 429 when rate limited), unless `fallback_text` is given: then that text is the output, with `written_by: "template"`.',
  params: GenerateParams,
  output: {
    description:
      '`{text, model_used, written_by, attempts}`: the trimmed, non-empty answer; the `provider:model` that wrote it (`written_by` too); every attempt as `{model, outcome: ok|error|rate_limited|empty, ms, error?}`. With `fallback_text`, after every model failed: `{text: fallback_text, model_used: null, written_by: "template", attempts, error}` (`error`: why).',
  },
  examples: [
    {
      title: 'First message with a fallback and a contingency model',
      step: {
        id: 'first_message',
        type: 'ai.generate',
        params: {
          model: '{{ env.LEADFLOW_MODEL_PRIMARY }}',
          fallback_models: ['{{ env.LEADFLOW_MODEL_FALLBACK }}'],
          contingency_model: '{{ env.LEADFLOW_MODEL_CONTINGENCY }}',
          system: 'Você é a assistente da clínica {{ trigger.body.clinica }}.',
          prompt: 'Escreva uma mensagem de boas-vindas curta para {{ trigger.body.nome }}.',
          rate_limit_wait_ms: '{{ env.LEADFLOW_RATE_LIMIT_WAIT_MS }}',
        },
        on_error: 'continue',
      },
    },
    {
      title: 'A prompt with placeholders (as read from a file of the flow: files.NAME), filled from values',
      step: {
        id: 'followup_message',
        type: 'ai.generate',
        params: {
          model: '{{ env.LEADFLOW_MODEL_PRIMARY }}',
          system: '{{ trigger.body.system_template }}',
          prompt: '{{ trigger.body.prompt_template }}',
          values: { clinica: '{{ trigger.body.clinica }}', conversa: '{{ trigger.body.conversa }}' },
        },
      },
    },
    {
      title: 'A fixed text when every model fails',
      step: {
        id: 'first_message',
        type: 'ai.generate',
        params: {
          model: '{{ env.LEADFLOW_MODEL_PRIMARY }}',
          fallback_models: ['{{ env.LEADFLOW_MODEL_FALLBACK }}'],
          prompt: 'Escreva uma mensagem de boas-vindas curta para {{ trigger.body.nome }}.',
          fallback_text: 'Olá! Recebemos o seu formulário e vamos falar com você por aqui.',
        },
      },
    },
  ],
  async run(params, ctx) {
    const texts = promptTexts(params);
    try {
      return await generate(params, texts, ctx.services.ai, ctx);
    } catch (err) {
      if (!params.fallback_text || ctx.signal.aborted) throw err;
      const error = err instanceof Error ? err.message : String(err);
      ctx.log('warn', 'every model failed: fallback_text used', { error });
      const attempts = err instanceof AgentFailedError ? err.attempts : [];
      return { text: params.fallback_text, model_used: null, written_by: 'template', attempts, error };
    }
  },
});

/** One run of the model chain; throws AgentFailedError when every option fails. */
async function generate(params: Static<typeof GenerateParams>, texts: PromptTexts, ai: AiService, ctx: NodeContext) {
  const { runAgent } = await agentRunner();
  const result = await runAgent({
    ai,
    models: {
      primary: params.model,
      fallbacks: params.fallback_models,
      ...(params.contingency_model ? { contingency: params.contingency_model } : {}),
    },
    ...(texts.system ? { system: texts.system } : {}),
    input: texts.prompt,
    maxTokens: params.max_tokens,
    rateLimitWaitMs: params.rate_limit_wait_ms,
    deadlineMs: params.deadline_ms,
    signal: ctx.signal,
    onAttempt: (a) => ctx.log(a.outcome === 'ok' ? 'debug' : 'warn', 'ai attempt', { ...a }),
  });
  return { text: result.text, model_used: result.model_used, written_by: result.model_used, attempts: result.attempts };
}

/** The system prompt and the user message as sent to the models. */
interface PromptTexts {
  system: string;
  prompt: string;
}

/**
 * `system` and `prompt` as sent: with `values`, their placeholders filled (renderTemplate); else as
 * given. Throws on a placeholder without a value.
 */
function promptTexts(params: Static<typeof GenerateParams>): PromptTexts {
  if (params.values === null) return { system: params.system, prompt: params.prompt };
  const values = params.values as Record<string, JsonValue>;
  return { system: renderTemplate(params.system, values), prompt: renderTemplate(params.prompt, values) };
}
