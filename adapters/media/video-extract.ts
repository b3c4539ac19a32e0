// Video → a few JPEG frames and the audio track, with ffmpeg. The video is written to a private
// temporary directory (MP4 often needs seeking, which stdin cannot give), and that directory is
// removed in `finally` whatever happens. Total time (probe + extraction) is bounded by `timeoutMs`.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FfmpegError } from './ffmpeg-error.js';
import { runFfmpeg } from './ffmpeg.js';

/**
 * How extractVideo runs ffmpeg: the binary, how many frames and how wide, how much audio, the time
 * limit, where the temporary directory goes.
 */
export interface VideoExtractOptions {
  /** ffmpeg binary. */
  ffmpegPath: string;
  /** Frames sampled evenly over the video. */
  frames: number;
  /** Frames wider than this are scaled down, pixels. */
  maxWidth: number;
  /** Audio beyond this is dropped, seconds. */
  maxAudioSeconds: number;
  /** Time limit for all ffmpeg work, milliseconds. */
  timeoutMs: number;
  /** Parent of the temporary directory. */
  tmpDir: string;
  signal?: AbortSignal;
}

/**
 * What extractVideo took out of a video: frames, audio track, duration in seconds (absent when ffmpeg
 * did not print it).
 */
export interface ExtractedVideo {
  /** JPEG images in time order. */
  frames: Buffer[];
  /** Mono AAC audio in an M4A container (`audio/mp4`), absent when the video has no audio track. */
  audio?: Buffer;
  durationSeconds?: number;
}

interface Probe {
  durationSeconds?: number;
  hasVideo: boolean;
  hasAudio: boolean;
}

/** Reads what `ffmpeg -i FILE` prints (it exits 1: no output given). */
function parseProbe(stderr: string): Probe {
  const d = /Duration: (\d+):(\d+):(\d+(?:\.\d+)?)/.exec(stderr);
  const durationSeconds = d ? Number(d[1]) * 3600 + Number(d[2]) * 60 + Number(d[3]) : undefined;
  return {
    ...(durationSeconds && durationSeconds > 0 ? { durationSeconds } : {}),
    hasVideo: /Stream #\d+:\d+.*?: Video:/.test(stderr),
    hasAudio: /Stream #\d+:\d+.*?: Audio:/.test(stderr),
  };
}

/**
 * Extracts `options.frames` JPEG frames, evenly spaced, and the audio track (mono AAC, at most
 * `maxAudioSeconds`) from a video, within `timeoutMs` in all. Throws FfmpegError (missing, failed,
 * timeout; `failed` too for a file with neither video nor audio) and the signal's reason on abort;
 * the temporary directory is always removed.
 */
export async function extractVideo(bytes: Uint8Array, options: VideoExtractOptions): Promise<ExtractedVideo> {
  const started = Date.now();
  const left = () => Math.max(1, options.timeoutMs - (Date.now() - started));
  const dir = await mkdtemp(join(options.tmpDir, 'leadflow-video-'));
  try {
    const input = join(dir, 'input');
    await writeFile(input, bytes, { mode: 0o600 });
    const base = ['-hide_banner', '-nostdin'];
    const probe = parseProbe(
      (await runFfmpeg(options.ffmpegPath, [...base, '-i', input], { timeoutMs: left(), signal: options.signal })).stderr,
    );
    if (!probe.hasVideo && !probe.hasAudio) throw new FfmpegError('failed', 'ffmpeg found no video or audio stream in the file');

    const args = [...base, '-loglevel', 'error', '-y', '-i', input];
    if (probe.hasVideo) {
      const fps = probe.durationSeconds ? options.frames / probe.durationSeconds : 1;
      args.push(
        '-map',
        '0:v:0',
        '-vf',
        `fps=${fps.toFixed(6)},scale='min(${options.maxWidth},iw)':-2`,
        '-frames:v',
        String(options.frames),
        '-q:v',
        '5',
        join(dir, 'frame_%03d.jpg'),
      );
    }
    if (probe.hasAudio)
      args.push(
        '-map',
        '0:a:0',
        '-vn',
        '-ac',
        '1',
        '-ar',
        '16000',
        '-c:a',
        'aac',
        '-b:a',
        '48k',
        '-t',
        String(options.maxAudioSeconds),
        join(dir, 'audio.m4a'),
      );
    const run = await runFfmpeg(options.ffmpegPath, args, { timeoutMs: left(), signal: options.signal });
    if (run.code !== 0) throw new FfmpegError('failed', `ffmpeg exited with code ${run.code}`, run.stderr);

    const names = (await readdir(dir)).filter((n) => /^frame_\d+\.jpg$/.test(n)).sort();
    const frames = await Promise.all(names.slice(0, options.frames).map((n) => readFile(join(dir, n))));
    const audio = probe.hasAudio ? await readFile(join(dir, 'audio.m4a')).catch(() => undefined) : undefined;
    return { frames, ...(audio?.length ? { audio } : {}), ...(probe.durationSeconds ? { durationSeconds: probe.durationSeconds } : {}) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
