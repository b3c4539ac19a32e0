/**
 * ffmpeg could not be used: `missing` (the binary was not found at the configured path),
 * `timeout` (killed after the time limit), `failed` (non-zero exit; `stderr` holds its last lines,
 * never media bytes).
 */
export class FfmpegError extends Error {
  override name = 'FfmpegError';
  constructor(
    readonly code: 'missing' | 'timeout' | 'failed',
    message: string,
    readonly stderr = '',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
