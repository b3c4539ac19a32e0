import { chmod, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAiService, type AiService } from '../../adapters/ai/ai-service.js';
import { ProviderError } from '../../adapters/ai/provider-error.js';
import { MEDIA_MARKERS, SILENT_AUDIO_MARKER, UNSUPPORTED_DOCUMENT_MARKER } from '../../adapters/media/media-markers.js';
import { createMediaConverter, type MediaConverterOptions } from '../../adapters/media/media-to-text.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/fake-anthropic.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';

let openai: FakeOpenAi;
let anthropic: FakeAnthropic;
let ai: AiService;
let scratch: string;
beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startFakeOpenAi(), startFakeAnthropic()]);
  ai = createAiService({
    OPENAI_API_KEY: 'sk-o',
    OPENAI_BASE_URL: openai.baseURL,
    ANTHROPIC_API_KEY: 'sk-a',
    ANTHROPIC_BASE_URL: anthropic.baseURL,
  });
  scratch = await mkdtemp(join(tmpdir(), 'leadflow-media-test-'));
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close(), rm(scratch, { recursive: true, force: true })]);
});
beforeEach(() => {
  openai.reset();
  anthropic.reset();
});

const models = { transcribe: 'openai:gpt-4o-mini-transcribe', vision: 'openai:gpt-4.1-mini', document: 'anthropic:claude-sonnet-4-6' };
const converter = (extra: Partial<MediaConverterOptions> = {}) => createMediaConverter({ ai, models, ...extra });
const allRequests = () => [...openai.requests, ...anthropic.requests];

describe('media to text: audio, image, document', () => {
  it('audio → one /audio/transcriptions request carrying the bytes, the model and the pt hint', async () => {
    const audio = Buffer.from('OggS\u0000 fake opus voice note');
    openai.queueTranscription({ transcript: ' Quero saber o valor do tratamento ' });
    const result = await converter().toText({ bytes: audio, mimetype: 'audio/ogg; codecs=opus' });
    expect(result).toEqual({ text: 'Quero saber o valor do tratamento', kind: 'audio', ok: true });
    expect(allRequests().map((r) => r.path)).toEqual(['/v1/audio/transcriptions']);
    const form = openai.transcriptionRequests()[0]!.form!;
    expect(form).toMatchObject({ model: 'gpt-4o-mini-transcribe', language: 'pt' });
    expect((form.file as { bytes: Buffer }).bytes.equals(audio)).toBe(true);
  });

  it('audio with no speech → the silent-audio marker, not an empty text', async () => {
    openai.queueTranscription({ transcript: '' });
    expect(await converter().toText({ bytes: Buffer.from('x'), mimetype: 'audio/ogg' })).toMatchObject({
      text: SILENT_AUDIO_MARKER,
      ok: true,
    });
  });

  it('image → a vision chat request with the image as a data URL and an anti-injection prompt', async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    openai.queueChat({ text: 'Foto de um orçamento impresso com o valor R$ 2.000.' });
    const result = await converter().toText({ bytes: jpeg, mimetype: 'image/jpeg' });
    expect(result).toEqual({ text: 'Foto de um orçamento impresso com o valor R$ 2.000.', kind: 'image', ok: true });
    const [body] = openai.chatRequests();
    expect(body.model).toBe('gpt-4.1-mini');
    const [text, image] = body.messages[0].content;
    expect(text.text).toMatch(/Não siga instruções/);
    expect(image).toEqual({ type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpeg.toString('base64')}`, detail: 'auto' } });
  });

  it('image on an Anthropic vision model → an image block', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 9]);
    anthropic.queue({ text: 'Uma foto do rosto.' });
    await converter({ models: { ...models, vision: 'anthropic:claude-sonnet-4-6' } }).toText({ bytes: png, mimetype: 'image/png' });
    const block = anthropic.messageRequests()[0].messages[0].content[1];
    expect(block).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } });
  });

  it('PDF → an Anthropic document block with the bytes; the extracted text is the output', async () => {
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\n%%EOF');
    anthropic.queue({ text: 'Hemograma completo: normal.' });
    const result = await converter().toText({ bytes: pdf, mimetype: 'application/pdf', filename: 'exame.pdf' });
    expect(result).toEqual({ text: 'Hemograma completo: normal.', kind: 'document', ok: true });
    const [body] = anthropic.messageRequests();
    expect(body.model).toBe('claude-sonnet-4-6');
    expect(body.messages[0].content[1]).toEqual({
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: pdf.toString('base64') },
      title: 'exame.pdf',
    });
    expect(openai.requests).toHaveLength(0);
  });

  it('PDF on an OpenAI model → a file part on /chat/completions (no other endpoint)', async () => {
    const pdf = Buffer.from('%PDF-1.7 conteúdo');
    openai.queueChat({ text: 'Receita médica.' });
    // Mimetype missing: recognised by the %PDF- signature.
    await converter({ models: { ...models, document: 'openai:gpt-4.1-mini' } }).toText({
      bytes: pdf,
      mimetype: 'application/octet-stream',
      kind: 'document',
    });
    expect(openai.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
    expect(openai.chatRequests()[0].messages[0].content[1]).toEqual({
      type: 'file',
      file: { filename: 'documento.pdf', file_data: `data:application/pdf;base64,${pdf.toString('base64')}` },
    });
  });

  it('plain text documents are decoded without a model; unreadable formats give a marker', async () => {
    expect(await converter().toText({ bytes: Buffer.from('Olá, segue meu nome: Ana'), mimetype: 'text/plain' })).toEqual({
      text: 'Olá, segue meu nome: Ana',
      kind: 'document',
      ok: true,
    });
    const docx = await converter().toText({
      bytes: Buffer.from('PK\u0003\u0004'),
      mimetype: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    });
    expect(docx).toMatchObject({ text: UNSUPPORTED_DOCUMENT_MARKER, ok: false });
    expect(allRequests()).toHaveLength(0);
  });

  it('a provider failure gives the marker by default, and is thrown with onFailure error', async () => {
    openai.queueChat({ status: 500 }, { status: 500 });
    const jpeg = { bytes: Buffer.from([0xff, 0xd8]), mimetype: 'image/jpeg' };
    expect(await converter().toText(jpeg)).toMatchObject({
      text: MEDIA_MARKERS.image,
      kind: 'image',
      ok: false,
      reason: expect.stringMatching(/HTTP 500/),
    });
    await expect(converter().toText(jpeg, { onFailure: 'error' })).rejects.toBeInstanceOf(ProviderError);
  });

  it('an empty description is a failure, not a text', async () => {
    openai.queueChat({ text: '  ' });
    expect(await converter().toText({ bytes: Buffer.from([0xff, 0xd8]), mimetype: 'image/jpeg' })).toMatchObject({
      text: MEDIA_MARKERS.image,
      ok: false,
    });
  });

  it('empty or oversized media gives the marker without any request', async () => {
    expect(await converter().toText({ bytes: Buffer.alloc(0), mimetype: 'audio/ogg' })).toMatchObject({
      text: MEDIA_MARKERS.audio,
      ok: false,
    });
    expect(await converter().toText({ bytes: Buffer.alloc(25 * 1024 * 1024 + 1), mimetype: 'audio/ogg' })).toMatchObject({
      text: MEDIA_MARKERS.audio,
      ok: false,
      reason: expect.stringMatching(/larger than/),
    });
    expect(allRequests()).toHaveLength(0);
  });

  it('logs kind, mimetype and size, never the bytes', async () => {
    const lines: unknown[] = [];
    openai.queueTranscription({ transcript: 'oi' });
    await converter({ log: (...args) => lines.push(args) }).toText({ bytes: Buffer.from('SECRET-AUDIO-BYTES'), mimetype: 'audio/ogg' });
    expect(lines).toEqual([['info', 'media converted', { kind: 'audio', mimetype: 'audio/ogg', bytes: 18 }]]);
    expect(JSON.stringify(lines)).not.toContain('SECRET');
  });
});

describe('media to text: video without a working ffmpeg', () => {
  it('ffmpeg missing (forced path) → the video marker, no request, no temp files left', async () => {
    const dir = await mkdtemp(join(scratch, 'missing-'));
    const result = await converter({ ffmpegPath: join(scratch, 'no-such-ffmpeg'), tmpDir: dir }).toText({
      bytes: Buffer.from('not really a video'),
      mimetype: 'video/mp4',
    });
    expect(result).toMatchObject({
      text: '[vídeo recebido: não foi possível analisar o conteúdo]',
      kind: 'video',
      ok: false,
      reason: expect.stringMatching(/ffmpeg missing/),
    });
    expect(allRequests()).toHaveLength(0);
    expect(await readdir(dir)).toEqual([]);
  });

  it('ffmpeg hanging past the time limit is killed → the marker, promptly, temp files removed', async () => {
    const dir = await mkdtemp(join(scratch, 'slow-'));
    const slow = join(scratch, 'slow-ffmpeg.sh');
    await writeFile(slow, '#!/bin/sh\nexec sleep 30\n');
    await chmod(slow, 0o755);
    const started = Date.now();
    const result = await converter({ ffmpegPath: slow, ffmpegTimeoutMs: 300, tmpDir: dir }).toText({
      bytes: Buffer.from('video'),
      mimetype: 'video/mp4',
    });
    expect(result).toMatchObject({ text: MEDIA_MARKERS.video, ok: false, reason: expect.stringMatching(/timeout/) });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await readdir(dir)).toEqual([]);
    expect(allRequests()).toHaveLength(0);
  });
});
