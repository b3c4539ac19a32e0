import { Type } from '../../engine/typebox.js';
import { MediaNotFoundError } from '../../adapters/media/media-not-found-error.js';
import { optionalModelRefParam } from './lib/model-params.js';
import { defineServiceNode } from '../services.js';

/** One media item as the cache holds it. */
interface CachedMedia {
  bytes: Uint8Array;
  mimetype: string;
  filename?: string;
}

/**
 * The part of `services.media` this node reads: `take` hands the item out and removes it; `get`,
 * when the cache has it, reads without removing (so a retried step still finds the bytes). Either
 * may answer later: the runtime's store downloads the medium again when this process lacks it.
 */
interface MediaReader {
  take(ref: string, options?: { signal?: AbortSignal }): CachedMedia | undefined | Promise<CachedMedia | undefined>;
  get?(ref: string, options?: { signal?: AbortSignal }): CachedMedia | undefined | Promise<CachedMedia | undefined>;
}

/**
 * `media.to-text`: turns a downloaded medium (from the media cache, by `media_ref`) into text for the
 * agent: audio transcribed, an image described, a PDF read, a video described from a few frames and
 * its transcribed audio (ffmpeg). When conversion is impossible the text is a pt-BR marker and `ok`
 * is false; outputs `{text, kind, ok, reason?}`. Needs the AI service and the media cache.
 */
export default defineServiceNode({
  type: 'media.to-text',
  services: ['ai', 'media'],
  description:
    'Turns a downloaded media item (taken from the media cache by `media_ref`) into text for the agent: audio is transcribed, an image described, a PDF read, a video described from a few frames plus its transcribed audio (needs ffmpeg). When conversion is impossible the text is a pt-BR marker such as "[vídeo recebido: não foi possível analisar o conteúdo]" and `ok` is false.',
  params: Type.Object(
    {
      media_ref: Type.String({
        minLength: 1,
        maxLength: 500,
        description: 'Reference of the item in the media cache (services.media), as the download step output it.',
        examples: ['{{ steps.download.media_ref }}'],
      }),
      kind: Type.Union(
        [Type.Literal('auto'), Type.Literal('audio'), Type.Literal('image'), Type.Literal('video'), Type.Literal('document')],
        {
          default: 'auto',
          description: 'What the media is; `auto` decides from its mimetype (audio/*, image/*, video/*, anything else a document).',
          examples: ['audio', 'auto'],
        },
      ),
      transcribe_model: optionalModelRefParam(
        'Speech-to-text model (must be openai:).',
        'LEADFLOW_MODEL_TRANSCRIBE',
        '{{ env.LEADFLOW_MODEL_TRANSCRIBE }}',
      ),
      vision_model: optionalModelRefParam(
        'Model describing images and video frames.',
        'LEADFLOW_MODEL_VISION',
        '{{ env.LEADFLOW_MODEL_VISION }}',
      ),
      document_model: optionalModelRefParam('Model reading PDF documents.', 'LEADFLOW_MODEL_DOCUMENT', '{{ env.LEADFLOW_MODEL_DOCUMENT }}'),
      on_failure: Type.Union([Type.Literal('marker'), Type.Literal('error')], {
        default: 'marker',
        description:
          '`marker`: a provider failure gives the marker text (ok false); `error`: it fails the step (so `retry` applies). A missing ffmpeg or unsupported format always gives the marker.',
        examples: ['error'],
      }),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{text, kind, ok, reason?}`: the converted text (or the marker), the kind handled, whether it was converted, and why not.',
  },
  examples: [
    {
      title: 'Transcribe a voice note',
      step: {
        id: 'media_text',
        type: 'media.to-text',
        params: { media_ref: '{{ trigger.body.media_ref }}', kind: 'audio', transcribe_model: '{{ env.LEADFLOW_MODEL_TRANSCRIBE }}' },
      },
    },
  ],
  async run(params, ctx) {
    const ai = ctx.services.ai;
    const cache: MediaReader = ctx.services.media;
    // Read without removing when the cache allows it: a step that fails (on_failure error) and is
    // retried must find the bytes again. They are removed once a conversion result exists.
    const read = { signal: ctx.signal };
    const item = await (cache.get ? cache.get(params.media_ref, read) : cache.take(params.media_ref, read));
    if (!item) throw new MediaNotFoundError(params.media_ref);
    // The converter loads on the first run: describing or validating flows never needs it.
    const { createMediaConverter } = await import('../../adapters/media/media-to-text.js');
    const converter = createMediaConverter({
      ...ctx.services.mediaOptions,
      ai,
      models: {
        transcribe: params.transcribe_model || ai.models.transcribe,
        vision: params.vision_model || ai.models.vision,
        document: params.document_model || ai.models.document,
      },
      log: (level, message, fields) => ctx.log(level, message, fields),
    });
    const result = await converter.toText(
      {
        bytes: item.bytes,
        mimetype: item.mimetype,
        ...(params.kind !== 'auto' ? { kind: params.kind } : {}),
        ...(item.filename ? { filename: item.filename } : {}),
      },
      { signal: ctx.signal, onFailure: params.on_failure },
    );
    if (cache.get) await cache.take(params.media_ref);
    return result.reason !== undefined
      ? { text: result.text, kind: result.kind, ok: result.ok, reason: result.reason }
      : { text: result.text, kind: result.kind, ok: result.ok };
  },
});
