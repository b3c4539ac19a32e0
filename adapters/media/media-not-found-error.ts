/** A media reference is not (or no longer) in the media cache: never downloaded, expired, or already taken. */
export class MediaNotFoundError extends Error {
  override name = 'MediaNotFoundError';
  readonly code = 'media_not_found';
  constructor(readonly ref: string) {
    super(`media "${ref}" is not in the media cache (not downloaded, expired or already taken)`);
  }
}
