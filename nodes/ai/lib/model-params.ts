// Parameter fragments shared by the ai nodes: model references and the model chain.
import { Type } from '../../../engine/typebox.js';

const MODEL_REF_PATTERN = '^(openai|anthropic):\\S+$';

/** A required `provider:model` parameter. */
export const modelRefParam = (description: string, example: string) =>
  Type.String({
    pattern: MODEL_REF_PATTERN,
    description: `${description} Written \`provider:model\` (openai or anthropic).`,
    examples: [example, 'openai:gpt-4.1-mini'],
  });

/** An optional `provider:model` parameter; '' means `whenEmpty`. */
export const optionalModelRefParam = (description: string, whenEmpty: string, example: string) =>
  Type.String({
    pattern: `^$|${MODEL_REF_PATTERN}`,
    default: '',
    description: `${description} Written \`provider:model\`; empty: ${whenEmpty}.`,
    examples: [example],
  });

/** The `fallback_models` parameter: up to 5 `provider:model` references tried in order, default none. */
export const fallbackModelsParam = Type.Array(Type.String({ pattern: MODEL_REF_PATTERN }), {
  default: [],
  maxItems: 5,
  description: 'Models tried in order when the previous one fails or answers empty, as `provider:model`.',
  examples: [['anthropic:claude-sonnet-4-6'], ['{{ env.LEADFLOW_MODEL_FALLBACK }}']],
});

/**
 * The model chain every AI node shares: `model`, then `fallback_models`, and after a 429 the
 * `contingency_model` once `rate_limit_wait_ms` (ms, default 15000) has passed. Spread into a node's
 * params object.
 */
export const modelChainParams = {
  model: modelRefParam('First model to try.', '{{ env.LEADFLOW_MODEL_PRIMARY }}'),
  fallback_models: fallbackModelsParam,
  contingency_model: optionalModelRefParam(
    'Model used after a 429, after waiting `rate_limit_wait_ms`.',
    'a 429 counts as an ordinary failure',
    '{{ env.LEADFLOW_MODEL_CONTINGENCY }}',
  ),
  rate_limit_wait_ms: Type.Integer({
    minimum: 0,
    maximum: 600_000,
    default: 15_000,
    description: 'Wait after a 429 before the contingency model, milliseconds.',
    examples: ['{{ env.LEADFLOW_RATE_LIMIT_WAIT_MS }}', 15000],
  }),
};
