// Model references as written in flows and environment variables: `provider:model`,
// e.g. `openai:gpt-4.1-mini` or `anthropic:claude-sonnet-4-6`.
import { ModelRefError } from './model-ref-error.js';

/** The AI providers a model reference may name, as written before the colon. */
export const PROVIDERS = ['openai', 'anthropic'] as const;
/** One of PROVIDERS. */
export type Provider = (typeof PROVIDERS)[number];

/** A parsed `provider:model` reference (parseModelRef). */
export interface ModelRef {
  provider: Provider;
  /** The provider's model id, sent as-is (no validation against a model list: any compatible server may be configured). */
  model: string;
}

/** Model ids: letters, digits and `.-_:/@` (OpenAI-compatible servers use ids like `meta/llama-3:8b`), 1..200 characters. */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$/;

/** Parses `provider:model`; throws ModelRefError naming the problem (missing colon, unknown provider, bad id). */
export function parseModelRef(text: string): ModelRef {
  if (typeof text !== 'string' || text.trim() === '')
    throw new ModelRefError('model reference is empty; expected "provider:model", e.g. "openai:gpt-4.1-mini"');
  const trimmed = text.trim();
  const colon = trimmed.indexOf(':');
  if (colon < 0)
    throw new ModelRefError(
      `model reference "${trimmed}" has no provider; expected "provider:model" with provider one of ${PROVIDERS.join(', ')}, e.g. "openai:${trimmed}"`,
    );
  const provider = trimmed.slice(0, colon).toLowerCase();
  const model = trimmed.slice(colon + 1);
  if (!(PROVIDERS as readonly string[]).includes(provider))
    throw new ModelRefError(`model reference "${trimmed}": unknown provider "${provider}"; expected one of ${PROVIDERS.join(', ')}`);
  if (!MODEL_ID.test(model))
    throw new ModelRefError(
      `model reference "${trimmed}": model id "${model}" is empty or has characters outside letters, digits and . - _ : / @`,
    );
  return { provider: provider as Provider, model };
}
