// Which media types GET /admin/leads/:id/messages/:mid/media answers inline (console/server/transcript-media.ts).
import { describe, expect, it } from 'vitest';
import { inlineType } from '../../console/server/transcript-media.js';

describe('inlineType', () => {
  it('shows audio, images, videos and PDFs inline, parameters and case aside', () => {
    for (const type of ['audio/ogg; codecs=opus', 'image/jpeg', 'IMAGE/WEBP', 'video/mp4', 'application/pdf'])
      expect(inlineType(type), type).toBe(true);
  });
  it('downloads everything else as a file, SVG (a document that runs scripts) and HTML included', () => {
    for (const type of ['image/svg+xml', 'text/html', 'application/zip', 'application/javascript', '', 'audio/'])
      expect(inlineType(type), type).toBe(false);
  });
});
