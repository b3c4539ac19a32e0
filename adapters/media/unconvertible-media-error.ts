/** Media that retrying cannot convert (ffmpeg missing or failing, unsupported format): answered with `marker`. */
export class UnconvertibleMediaError extends Error {
  override name = 'UnconvertibleMediaError';
  constructor(
    /** The pt-BR text the agent receives instead. */
    readonly marker: string,
    message: string,
  ) {
    super(message);
  }
}
