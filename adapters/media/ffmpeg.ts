// Runs ffmpeg as a child process with a time limit. No shell: arguments go as an array.
import { spawn } from 'node:child_process';
import { FfmpegError } from './ffmpeg-error.js';

/** Most stderr kept (characters), from the end. */
const MAX_STDERR = 16_000;

/** How an ffmpeg run ended: its exit code and the end of its stderr (at most MAX_STDERR characters). */
export interface FfmpegRun {
  /** Exit code (null when killed by a signal). */
  code: number | null;
  stderr: string;
}

/**
 * Runs `path args…` with stdin closed and stdout ignored; resolves with the exit code and stderr
 * whatever the code (callers decide). Rejects FfmpegError `missing` when the binary cannot be
 * started, `timeout` after `timeoutMs` (the process is killed with SIGKILL), or the signal's
 * reason when `signal` aborts (also killing it).
 */
export function runFfmpeg(path: string, args: string[], options: { timeoutMs: number; signal?: AbortSignal }): Promise<FfmpegRun> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(options.signal.reason);
    const child = spawn(path, args, { stdio: ['ignore', 'ignore', 'pipe'], windowsHide: true });
    let stderr = '';
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(() => reject(new FfmpegError('timeout', `ffmpeg took longer than ${options.timeoutMs} ms and was killed`, stderr)));
    }, options.timeoutMs);
    const onAbort = () => {
      child.kill('SIGKILL');
      finish(() => reject(options.signal!.reason));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-MAX_STDERR);
    });
    child.on('error', (err: NodeJS.ErrnoException) => {
      const code = err.code === 'ENOENT' || err.code === 'EACCES' ? 'missing' : 'failed';
      finish(() =>
        reject(
          new FfmpegError(code, code === 'missing' ? `ffmpeg not found at "${path}"` : `ffmpeg could not start: ${err.message}`, '', {
            cause: err,
          }),
        ),
      );
    });
    child.on('close', (code) => finish(() => resolve({ code, stderr })));
  });
}
