// The real video path: needs an ffmpeg binary (with the lavfi source and the native mpeg4/aac
// encoders). Where ffmpeg is absent these tests are skipped with a printed reason, or the file fails
// when LEADFLOW_TEST_REQUIRE lists `ffmpeg` (CI).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAiService, type AiService } from '../../adapters/ai/ai-service.js';
import { createMediaConverter } from '../../adapters/media/media-to-text.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import { partProblem } from '../helpers/required-parts.js';

/** Why ffmpeg cannot be used, or null when `ffmpeg -version` runs. */
function ffmpegProblem(): string | null {
  try {
    execFileSync('ffmpeg', ['-hide_banner', '-version'], { stdio: 'ignore', timeout: 5000 });
    return null;
  } catch (err) {
    return `ffmpeg does not run (${(err as Error).message.split('\n')[0]}; apt-get install -y ffmpeg to run the real video path)`;
  }
}

const problem = partProblem('ffmpeg', ffmpegProblem());
if (problem) console.warn(`SKIPPED test/media/video-ffmpeg.test.ts: ${problem}`);
const itWithFfmpeg = problem ? it.skip : it;

let openai: FakeOpenAi;
let ai: AiService;
let scratch: string;
beforeAll(async () => {
  openai = await startFakeOpenAi();
  ai = createAiService({
    OPENAI_API_KEY: 'sk-o',
    OPENAI_BASE_URL: openai.baseURL,
    ANTHROPIC_API_KEY: 'sk-a',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
  });
  scratch = await mkdtemp(join(tmpdir(), 'leadflow-video-test-'));
});
afterAll(async () => {
  await Promise.all([openai.close(), rm(scratch, { recursive: true, force: true })]);
});
beforeEach(() => openai.reset());

/** A 1-second 160x120 MP4 with a 440 Hz tone (or without audio), made by ffmpeg's lavfi sources. */
function makeVideo(name: string, withAudio: boolean): Buffer {
  const out = join(scratch, name);
  const audio = withAudio ? ['-f', 'lavfi', '-i', 'sine=frequency=440:duration=1'] : [];
  execFileSync(
    'ffmpeg',
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=160x120:rate=10',
      ...audio,
      '-c:v',
      'mpeg4',
      ...(withAudio ? ['-c:a', 'aac', '-shortest'] : []),
      out,
    ],
    { timeout: 30_000 },
  );
  return readFileSync(out);
}

const models = { transcribe: 'openai:whisper-1', vision: 'openai:gpt-4.1-mini', document: 'openai:gpt-4.1-mini' };

describe('video with ffmpeg', () => {
  itWithFfmpeg('sends sampled JPEG frames to the vision model and the audio track to transcription', async () => {
    const video = makeVideo('with-audio.mp4', true);
    const dir = await mkdtemp(join(scratch, 'work-'));
    openai.queueChat({ text: 'Um padrão de barras coloridas com um contador.' });
    openai.queueTranscription({ transcript: 'bip' });
    const result = await createMediaConverter({ ai, models, tmpDir: dir, videoFrames: 3 }).toText({ bytes: video, mimetype: 'video/mp4' });

    expect(result.ok).toBe(true);
    expect(result.kind).toBe('video');
    expect(result.text).toBe('[vídeo de 1 s]\nDescrição do vídeo: Um padrão de barras coloridas com um contador.\nÁudio do vídeo: bip');

    const [chat] = openai.chatRequests();
    const images = chat.messages[0].content.filter((p: any) => p.type === 'image_url');
    expect(images).toHaveLength(3);
    for (const image of images) {
      expect(image.image_url.url).toMatch(/^data:image\/jpeg;base64,/);
      const bytes = Buffer.from(image.image_url.url.split(',')[1], 'base64');
      expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    }
    const [transcription] = openai.transcriptionRequests();
    const file = transcription!.form!.file as { name: string; type: string; size: number; bytes: Buffer };
    expect(file).toMatchObject({ name: 'audio.m4a', type: 'audio/mp4' });
    expect(file.size).toBeGreaterThan(100);
    expect(file.bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(await readdir(dir)).toEqual([]);
  });

  itWithFfmpeg('a video without an audio track is only described', async () => {
    const video = makeVideo('silent.mp4', false);
    openai.queueChat({ text: 'Barras coloridas.' });
    const result = await createMediaConverter({ ai, models, tmpDir: scratch }).toText({ bytes: video, mimetype: 'video/mp4' });
    expect(result).toMatchObject({ ok: true, text: '[vídeo de 1 s]\nDescrição do vídeo: Barras coloridas.' });
    expect(openai.transcriptionRequests()).toHaveLength(0);
  });

  itWithFfmpeg('bytes that are not a video → the video marker, no request', async () => {
    const result = await createMediaConverter({ ai, models, tmpDir: scratch }).toText({
      bytes: Buffer.from('definitely not an mp4'),
      mimetype: 'video/mp4',
    });
    expect(result).toMatchObject({ ok: false, text: '[vídeo recebido: não foi possível analisar o conteúdo]' });
    expect(openai.requests).toHaveLength(0);
  });
});
