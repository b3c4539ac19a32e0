// Media to text for the agent (original spec §4.1 "Media handling"):
//   audio    → transcription (POST /audio/transcriptions, `models.transcribe`)
//   image    → description by a vision chat model (`models.vision`)
//   document → PDF: text extraction by a multimodal chat model (`models.document`; OpenAI file part
//              or Anthropic document block); text/*: decoded directly; images sent as documents are
//              described; other formats: a marker
//   video    → ffmpeg extracts a few frames and the audio track; frames are described
//              (`models.vision`) and the audio transcribed; without ffmpeg: a marker
// Bytes stay in memory (a temporary file only for ffmpeg, removed afterwards) and are never logged.
//
// Failures: what retrying cannot fix (ffmpeg missing, failing or too slow; unsupported format;
// oversized input) always yields the kind's pt-BR marker text with `ok: false`. Provider failures
// yield the marker too with `onFailure: 'marker'` (default), or are thrown with `onFailure: 'error'`.
// An abort of `signal` is always thrown.
import { tmpdir } from 'node:os';
import type { AiService } from '../ai/ai-service.js';
import type { ContentPart } from '../ai/chat-model.js';
import { EmptyOutputError } from '../ai/empty-output-error.js';
import { FfmpegError } from './ffmpeg-error.js';
import { baseMimetype, kindOfMimetype, MAX_MEDIA_BYTES, type MediaKind } from './media-kind.js';
import { MEDIA_MARKERS, SILENT_AUDIO_MARKER, UNSUPPORTED_DOCUMENT_MARKER } from './media-markers.js';
import { DOCUMENT_PROMPT, IMAGE_PROMPT, VIDEO_FRAMES_PROMPT } from './media-prompts.js';
import { UnconvertibleMediaError } from './unconvertible-media-error.js';
import { type ExtractedVideo, extractVideo } from './video-extract.js';

/** The `provider:model` of each conversion. */
export interface MediaModels {
  /** `openai:` model for /audio/transcriptions. */
  transcribe: string;
  /** Chat model that accepts images. */
  vision: string;
  /** Chat model that accepts PDF input. */
  document: string;
}

/**
 * What a converter needs: the AI service and models, ffmpeg and its limits, the transcription
 * language, the request timeout, a log.
 */
export interface MediaConverterOptions {
  ai: Pick<AiService, 'chat' | 'transcribe'>;
  models: MediaModels;
  /** ffmpeg binary, a path or a name looked up in PATH. Default `ffmpeg`. */
  ffmpegPath?: string;
  /** Time limit of all ffmpeg work for one video, milliseconds. Default 60000. */
  ffmpegTimeoutMs?: number;
  /** Frames sampled from a video. Default 4. */
  videoFrames?: number;
  /** Where ffmpeg's temporary directory is made. Default the OS temp directory. */
  tmpDir?: string;
  /** Language hint for transcription (ISO-639-1). Default `pt`. */
  language?: string;
  /** Timeout of one provider request, milliseconds. Default the AI service's. */
  requestTimeoutMs?: number;
  /** Receives one line per conversion: kind, mimetype, size, outcome. Never content. */
  log?: (level: 'info' | 'warn', message: string, fields: Record<string, unknown>) => void;
}

/** One medium to convert: its bytes and mimetype, optionally its kind and file name. */
export interface MediaInput {
  bytes: Uint8Array;
  mimetype: string;
  /** Default: from the mimetype. */
  kind?: MediaKind;
  /** Original file name (documents), shown to the model. */
  filename?: string;
}

/** The outcome of one conversion: the text (or the kind's marker), the kind, and whether it was converted. */
export interface MediaText {
  /** The conversion, or the kind's marker text when it could not be made. */
  text: string;
  kind: MediaKind;
  ok: boolean;
  /** Why `ok` is false. */
  reason?: string;
}

/**
 * Per conversion: an abort signal, and whether a provider failure is the marker (`marker`, default) or
 * thrown (`error`).
 */
export interface ConvertOptions {
  signal?: AbortSignal;
  onFailure?: 'marker' | 'error';
}

/** Turns a medium into text for the agent (createMediaConverter). */
export interface MediaConverter {
  toText(input: MediaInput, options?: ConvertOptions): Promise<MediaText>;
}

/** Longest text taken from a plain-text document, characters. */
const MAX_TEXT_DOCUMENT_CHARS = 20_000;
const VISION_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * The converter of the file comment: `toText` resolves the media's text, or its kind's marker with
 * `ok: false` (empty or oversized input, an unconvertible format, and a provider failure unless
 * `onFailure: 'error'`); an abort of `signal` is thrown.
 */
export function createMediaConverter(options: MediaConverterOptions): MediaConverter {
  return new MediaConversions(options);
}

/** The conversions of one converter, by kind, with the converter's models, language and timeout. */
class MediaConversions implements MediaConverter {
  private readonly language: string;
  private readonly timeout: { timeout_ms?: number };

  constructor(private readonly options: MediaConverterOptions) {
    this.language = options.language ?? 'pt';
    this.timeout = options.requestTimeoutMs !== undefined ? { timeout_ms: options.requestTimeoutMs } : {};
  }

  async toText(input: MediaInput, convert: ConvertOptions = {}): Promise<MediaText> {
    const { options } = this;
    const kind = input.kind ?? kindOfMimetype(input.mimetype);
    const fields = { kind, mimetype: baseMimetype(input.mimetype), bytes: input.bytes.byteLength };
    const failed = (reason: string, marker = MEDIA_MARKERS[kind]): MediaText => {
      options.log?.('warn', 'media not converted', { ...fields, reason });
      return { text: marker, kind, ok: false, reason };
    };
    if (input.bytes.byteLength === 0) return failed('empty media');
    if (input.bytes.byteLength > MAX_MEDIA_BYTES[kind]) return failed(`media larger than ${MAX_MEDIA_BYTES[kind]} bytes`);
    try {
      const text = await this.convert(kind, input, convert.signal);
      if (!text) return failed('no text in the media');
      options.log?.('info', 'media converted', fields);
      return { text, kind, ok: true };
    } catch (err) {
      if (convert.signal?.aborted) throw convert.signal.reason ?? err;
      if (err instanceof UnconvertibleMediaError) return failed(err.message, err.marker);
      if (convert.onFailure === 'error') throw err;
      return failed(err instanceof Error ? err.message : String(err));
    }
  }

  /** The text of one medium of `kind`; throws what its conversion throws. */
  private async convert(kind: MediaKind, input: MediaInput, signal?: AbortSignal): Promise<string> {
    if (kind === 'audio') return (await this.transcribe(input.bytes, input.mimetype, signal)) || SILENT_AUDIO_MARKER;
    if (kind === 'image') return this.image(input, signal);
    if (kind === 'document') return this.document(input, signal);
    return this.video(input, signal);
  }

  private async describe(model: string, prompt: string, parts: ContentPart[], maxTokens: number, signal?: AbortSignal): Promise<string> {
    const result = await this.options.ai.chat(model, {
      messages: [{ role: 'user', content: [{ type: 'text', text: prompt }, ...parts] }],
      max_tokens: maxTokens,
      signal,
      ...this.timeout,
    });
    const text = result.text.trim();
    if (!text) throw new EmptyOutputError(model);
    return text;
  }

  private async transcribe(bytes: Uint8Array, mimetype: string, signal?: AbortSignal): Promise<string> {
    const request = { bytes, mimetype, language: this.language, signal, ...this.timeout };
    return (await this.options.ai.transcribe(this.options.models.transcribe, request)).trim();
  }

  private async image(input: MediaInput, signal?: AbortSignal): Promise<string> {
    const type = baseMimetype(input.mimetype);
    if (!VISION_IMAGE_TYPES.has(type))
      throw new UnconvertibleMediaError(MEDIA_MARKERS.image, `image type ${type} is not accepted by vision models`);
    return this.describe(this.options.models.vision, IMAGE_PROMPT, [{ type: 'image', mimetype: type, data: input.bytes }], 400, signal);
  }

  private async document(input: MediaInput, signal?: AbortSignal): Promise<string> {
    const type = baseMimetype(input.mimetype);
    const isPdf = type === 'application/pdf' || Buffer.from(input.bytes.subarray(0, 5)).toString('latin1') === '%PDF-';
    if (isPdf) {
      const pdf: ContentPart = { type: 'pdf', data: input.bytes, filename: input.filename ?? 'documento.pdf' };
      return this.describe(this.options.models.document, DOCUMENT_PROMPT, [pdf], 4000, signal);
    }
    if (type.startsWith('text/') || type === 'application/json')
      return new TextDecoder('utf-8').decode(input.bytes).slice(0, MAX_TEXT_DOCUMENT_CHARS).trim();
    if (type.startsWith('image/')) return this.image(input, signal);
    throw new UnconvertibleMediaError(UNSUPPORTED_DOCUMENT_MARKER, `document type ${type || '(none)'} cannot be read`);
  }

  /** Frames and audio track by ffmpeg; an ffmpeg failure is the video's marker (UnconvertibleMediaError). */
  private async extract(input: MediaInput, signal?: AbortSignal): Promise<ExtractedVideo> {
    const { options } = this;
    try {
      return await extractVideo(input.bytes, {
        ffmpegPath: options.ffmpegPath ?? 'ffmpeg',
        frames: options.videoFrames ?? 4,
        maxWidth: 768,
        maxAudioSeconds: 600,
        timeoutMs: options.ffmpegTimeoutMs ?? 60_000,
        tmpDir: options.tmpDir ?? tmpdir(),
        signal,
      });
    } catch (err) {
      if (err instanceof FfmpegError) throw new UnconvertibleMediaError(MEDIA_MARKERS.video, `ffmpeg ${err.code}: ${err.message}`);
      throw err;
    }
  }

  private async video(input: MediaInput, signal?: AbortSignal): Promise<string> {
    const extracted = await this.extract(input, signal);
    const frames = extracted.frames.map((data) => ({ type: 'image' as const, mimetype: 'image/jpeg', data }));
    const [described, heard] = await Promise.allSettled([
      frames.length ? this.describe(this.options.models.vision, VIDEO_FRAMES_PROMPT, frames, 500, signal) : Promise.resolve(undefined),
      extracted.audio ? this.transcribe(extracted.audio, 'audio/mp4', signal) : Promise.resolve(undefined),
    ]);
    // One half failing still leaves something to say; both failing is the video's failure.
    if (described.status === 'rejected' && (heard.status === 'rejected' || !extracted.audio)) throw described.reason;
    if (heard.status === 'rejected' && !extracted.frames.length) throw heard.reason;
    const lines = [`[vídeo${extracted.durationSeconds ? ` de ${Math.round(extracted.durationSeconds)} s` : ''}]`];
    if (extracted.frames.length)
      lines.push(`Descrição do vídeo: ${described.status === 'fulfilled' ? described.value : '[não foi possível descrever as imagens]'}`);
    if (extracted.audio)
      lines.push(
        `Áudio do vídeo: ${heard.status === 'fulfilled' ? heard.value || 'sem fala reconhecível' : '[não foi possível transcrever]'}`,
      );
    return lines.join('\n');
  }
}
