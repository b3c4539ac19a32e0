import { Type } from '../../engine/typebox.js';
import { fallbackModelsParam, modelRefParam } from './lib/model-params.js';
import { defineServiceNode } from '../services.js';

/**
 * `ai.summarize`: summarises `text` in pt-BR in at most `max_words` words: a longer summary is sent
 * back once to be shortened, then cut at the limit on a word boundary. A blank text gives an empty
 * summary without a model call. Outputs `{summary, words, model_used, retried, truncated}`. Needs the
 * AI service.
 */
export default defineServiceNode({
  type: 'ai.summarize',
  services: ['ai'],
  description:
    'Summarises a text in pt-BR within a hard word limit: when the model writes more than `max_words`, it is asked once to shorten; if still too long, the summary is cut at the limit keeping whole words. A blank `text` gives an empty summary without calling a model.',
  params: Type.Object(
    {
      model: modelRefParam('Model that writes the summary.', '{{ env.LEADFLOW_MODEL_SUMMARY }}'),
      fallback_models: fallbackModelsParam,
      text: Type.String({
        maxLength: 200_000,
        description: 'What to summarise, e.g. the conversation as "Lead: …" / "Agente: …" lines. Treated as data, not instructions.',
        examples: ['Lead: quero saber o preço\nAgente: o protocolo custa R$ 2.500'],
      }),
      max_words: Type.Integer({
        minimum: 1,
        maximum: 1000,
        default: 50,
        description: 'Most words in the summary (whitespace-separated).',
        examples: [50],
      }),
      instructions: Type.String({
        default: '',
        maxLength: 5000,
        description: 'Extra guidance for the summary (focus, audience); empty for none.',
        examples: ['Diga se o lead já informou a data desejada.'],
      }),
      deadline_ms: Type.Integer({
        minimum: 1000,
        maximum: 900_000,
        default: 60_000,
        description: 'Total time for every attempt, milliseconds.',
        examples: [30000],
      }),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{summary, words, model_used, retried, truncated}`: at most `max_words` words on one line; `model_used` null when `text` was blank.',
  },
  examples: [
    {
      title: 'Handoff summary of the conversation',
      step: {
        id: 'summary',
        type: 'ai.summarize',
        params: { model: '{{ env.LEADFLOW_MODEL_SUMMARY }}', text: '{{ trigger.body.historico }}', max_words: 50 },
      },
    },
  ],
  async run(params, ctx) {
    // The summariser loads on the first run: describing or validating flows never needs it.
    const { summarize } = await import('../../adapters/ai/summarizer.js');
    const ai = ctx.services.ai;
    const result = await summarize({
      ai,
      models: { primary: params.model, fallbacks: params.fallback_models },
      text: params.text,
      maxWords: params.max_words,
      ...(params.instructions ? { instructions: params.instructions } : {}),
      deadlineMs: params.deadline_ms,
      signal: ctx.signal,
    });
    return {
      summary: result.summary,
      words: result.words,
      model_used: result.model_used,
      retried: result.retried,
      truncated: result.truncated,
    };
  },
});
