// A transcript row's medium (issue 30), fetched from GET /admin/leads/:id/messages/:mid/media (the
// server downloads it again from the provider; same origin, with the session cookie): a voice note
// or audio as an audio player, an image as a picture (a click opens it full size in a new tab), a
// video as a video player, a document as a link that opens it. Nothing is fetched until needed
// (players `preload="none"`, pictures `loading="lazy"`). When the medium does not load (WhatsApp no
// longer has it, the provider failed) the row says "Mídia indisponível"; its text stays under it.
import { useState } from 'preact/hooks';
import type { TranscriptMessage } from '../../server/people-api-types.js';
import { t } from '../i18n/index.js';

const WORDS = t.transcript;

/** The address of a row's medium. */
export function mediaUrl(leadId: number, messageId: number): string {
  return `/admin/leads/${leadId}/messages/${messageId}/media`;
}

/** The medium of row `m` (which has `midia`), or "Mídia indisponível" once it failed to load. */
export function TranscriptMedia({ leadId, m }: { leadId: number; m: TranscriptMessage }) {
  const [failed, setFailed] = useState(false);
  if (failed) return <p class="tmedia-failed">{WORDS.mediaUnavailable}</p>;
  const src = mediaUrl(leadId, m.id);
  const fail = () => setFailed(true);
  if (m.tipo === 'audio') {
    return (
      // biome-ignore lint/a11y/useMediaCaption: the row's converted text, shown under the player, is its transcript.
      <audio class="tmedia-audio" controls preload="none" src={src} onError={fail} aria-label={WORDS.media.audio} />
    );
  }
  if (m.tipo === 'video') {
    return (
      // biome-ignore lint/a11y/useMediaCaption: the row's converted text, shown under the player, describes it.
      <video class="tmedia-video" controls preload="none" src={src} onError={fail} aria-label={WORDS.media.video} />
    );
  }
  if (m.tipo === 'imagem') {
    return (
      <a class="tmedia-image" href={src} target="_blank" rel="noopener" title={WORDS.openImage}>
        <img src={src} loading="lazy" alt={WORDS.imageAlt} onError={fail} />
      </a>
    );
  }
  return (
    <a class="tmedia-document" href={src} target="_blank" rel="noopener">
      {WORDS.openDocument}
    </a>
  );
}
