// File name sent with audio to /audio/transcriptions: the API decides the container by extension.
// Accepted there: flac, mp3, mp4, mpeg, mpga, m4a, ogg, wav, webm.

const BY_SUBTYPE: Record<string, string> = {
  ogg: 'ogg',
  opus: 'ogg',
  mpeg: 'mp3',
  mp3: 'mp3',
  mpga: 'mpga',
  mp4: 'm4a',
  m4a: 'm4a',
  'x-m4a': 'm4a',
  aac: 'm4a',
  wav: 'wav',
  'x-wav': 'wav',
  wave: 'wav',
  webm: 'webm',
  flac: 'flac',
  'x-flac': 'flac',
};

/** `audio.<ext>` for a mimetype such as `audio/ogg; codecs=opus`; unknown types are named `.ogg` (WhatsApp voice notes). */
export function audioFilename(mimetype: string): string {
  const subtype = mimetype.split(';')[0]!.trim().toLowerCase().split('/')[1] ?? '';
  return `audio.${BY_SUBTYPE[subtype] ?? 'ogg'}`;
}
