// How the ai nodes reach their services (ctx.services), with a clear error when the host did not
// provide one. The media cache is coded against a minimal local interface: whatever the gateway
// stores under `ctx.services.media` only needs `take(ref)`.
import type { AiService } from '../../adapters/ai/ai-service.js';
import type { MediaConverterOptions } from '../../adapters/media/media-to-text.js';
import type { NodeContext } from '../../engine/types.js';

/** One downloaded media item, as the gateway's media cache holds it. */
export interface CachedMedia {
  bytes: Uint8Array;
  mimetype: string;
  filename?: string;
}

/**
 * The part of the gateway's media cache these nodes use: `take` hands the item out and removes it;
 * `get`, when the cache has it, reads without removing (so a retried step still finds the bytes).
 */
export interface MediaCacheLike {
  take(ref: string): CachedMedia | undefined | Promise<CachedMedia | undefined>;
  get?(ref: string): CachedMedia | undefined | Promise<CachedMedia | undefined>;
}

export function aiServiceOf(ctx: NodeContext, nodeType: string): AiService {
  const ai = ctx.services.ai as Partial<AiService> | undefined;
  if (!ai || typeof ai.chat !== 'function' || typeof ai.transcribe !== 'function' || !ai.models)
    throw new Error(`${nodeType} needs the AI service: the host must pass createAiService(env) (adapters/ai/ai-service.ts) as services.ai`);
  return ai as AiService;
}

export function mediaCacheOf(ctx: NodeContext, nodeType: string): MediaCacheLike {
  const media = ctx.services.media as Partial<MediaCacheLike> | undefined;
  if (!media || typeof media.take !== 'function')
    throw new Error(`${nodeType} needs the media cache: the host must pass one with take(ref) as services.media`);
  return media as MediaCacheLike;
}

/** Host settings for media conversion (ffmpeg path and limits, temp dir, language), from services.mediaOptions. */
export type MediaHostOptions = Pick<
  MediaConverterOptions,
  'ffmpegPath' | 'ffmpegTimeoutMs' | 'videoFrames' | 'tmpDir' | 'language' | 'requestTimeoutMs'
>;

export function mediaOptionsOf(ctx: NodeContext): MediaHostOptions {
  const options = ctx.services.mediaOptions;
  return options && typeof options === 'object' ? (options as MediaHostOptions) : {};
}
