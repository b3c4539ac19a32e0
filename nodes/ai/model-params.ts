// Parameter fragments shared by the ai nodes: model references and the model chain.
import { Type } from '@sinclair/typebox';

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

export const fallbackModelsParam = Type.Array(Type.String({ pattern: MODEL_REF_PATTERN }), {
  default: [],
  maxItems: 5,
  description: 'Models tried in order when the previous one fails or answers empty, as `provider:model`.',
  examples: [['anthropic:claude-sonnet-4-6'], ['{{ env.LEADFLOW_MODEL_FALLBACK }}']],
});
