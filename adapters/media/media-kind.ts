// Media kinds the agent understands, and how a WhatsApp mimetype maps to one.

/** The kinds of media the agent turns into text. */
export const MEDIA_KINDS = ['audio', 'image', 'video', 'document'] as const;
/** One of MEDIA_KINDS. */
export type MediaKind = (typeof MEDIA_KINDS)[number];

/** `audio/ogg; codecs=opus` → `audio/ogg`. */
export function baseMimetype(mimetype: string): string {
  return (mimetype.split(';')[0] ?? '').trim().toLowerCase();
}

/** The kind a mimetype implies: audio/*, image/*, video/*, anything else is a document. */
export function kindOfMimetype(mimetype: string): MediaKind {
  const base = baseMimetype(mimetype);
  if (base.startsWith('audio/')) return 'audio';
  if (base.startsWith('image/')) return 'image';
  if (base.startsWith('video/')) return 'video';
  return 'document';
}

/** Largest input accepted per kind, bytes (provider limits: 25 MiB audio, 32 MB Anthropic request). */
export const MAX_MEDIA_BYTES: Readonly<Record<MediaKind, number>> = Object.freeze({
  audio: 25 * 1024 * 1024,
  image: 20 * 1024 * 1024,
  document: 30 * 1024 * 1024,
  video: 64 * 1024 * 1024,
});
