import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiChat } from '../../adapters/ai/openai-chat.js';
import { ProviderError } from '../../adapters/ai/provider-error.js';
import { RateLimitError } from '../../adapters/ai/rate-limit-error.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const KEY = 'sk-test-openai-key-123';
const chat = () => createOpenAiChat({ apiKey: KEY, baseURL: fake.baseURL, timeoutMs: 5000 });
const tool = {
  name: 'buscar_lead',
  description: 'Dados do lead atual',
  parameters: { type: 'object', properties: {}, additionalProperties: false },
};

describe('openai chat adapter (real SDK against the fake)', () => {
  it('sends model, system, messages, function tools and max_completion_tokens; returns text and usage', async () => {
    fake.queueChat({ text: 'Olá, tudo bem?', usage: { prompt_tokens: 20, completion_tokens: 4 } });
    const result = await chat().chat({
      model: 'gpt-4.1-mini',
      system: 'Você é a assistente da clínica.',
      messages: [
        { role: 'user', content: 'oi' },
        { role: 'assistant', content: 'Olá!' },
        { role: 'user', content: 'quanto custa?' },
      ],
      tools: [tool],
      max_tokens: 300,
    });
    expect(result).toEqual({
      text: 'Olá, tudo bem?',
      tool_calls: [],
      usage: { input_tokens: 20, output_tokens: 4 },
      model: 'gpt-4.1-mini',
      stop_reason: 'stop',
    });
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
    const [body] = fake.chatRequests();
    expect(body.model).toBe('gpt-4.1-mini');
    expect(body.max_completion_tokens).toBe(300);
    expect(body.max_tokens).toBeUndefined();
    expect(body.messages).toEqual([
      { role: 'system', content: 'Você é a assistente da clínica.' },
      { role: 'user', content: 'oi' },
      { role: 'assistant', content: 'Olá!' },
      { role: 'user', content: 'quanto custa?' },
    ]);
    expect(body.tools).toEqual([{ type: 'function', function: tool }]);
    expect(body.tool_choice).toBe('auto');
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('returns tool calls and threads an assistant tool turn plus tool results back', async () => {
    fake.queueChat({ tool_calls: [{ id: 'call_a', name: 'buscar_lead', arguments: { x: 1 } }] });
    const first = await chat().chat({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'oi' }], tools: [tool] });
    expect(first.text).toBe('');
    expect(first.stop_reason).toBe('tool_calls');
    expect(first.tool_calls).toEqual([{ id: 'call_a', name: 'buscar_lead', arguments: '{"x":1}' }]);

    await chat().chat({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'user', content: 'oi' },
        { role: 'assistant', content: '', tool_calls: first.tool_calls },
        { role: 'tool', tool_call_id: 'call_a', name: 'buscar_lead', content: '{"nome":"Ana"}' },
      ],
      tools: [tool],
      tool_choice: 'none',
    });
    const second = fake.chatRequests()[1];
    expect(second.tool_choice).toBe('none');
    expect(second.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'buscar_lead', arguments: '{"x":1}' } }],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '{"nome":"Ana"}' },
    ]);
  });

  it('the fake answers 400 like the API to tool results that answer no tool call', async () => {
    const err = await chat()
      .chat({
        model: 'gpt-4.1-mini',
        messages: [
          { role: 'user', content: 'oi' },
          { role: 'tool', tool_call_id: 'nope', name: 'x', content: '{}' },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).status).toBe(400);
    expect((err as ProviderError).message).toMatch(/must be a response to a preceeding message with 'tool_calls'/);
  });

  it('sends images as data URLs and PDFs as file parts', async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0x01, 0x02]);
    const pdf = Buffer.from('%PDF-1.4 fake');
    await chat().chat({
      model: 'gpt-4.1-mini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Descreva' },
            { type: 'image', mimetype: 'image/jpeg', data: jpeg },
            { type: 'pdf', data: pdf, filename: 'exame.pdf' },
          ],
        },
      ],
    });
    const [body] = fake.chatRequests();
    expect(body.tools).toBeUndefined();
    expect(body.messages[0].content).toEqual([
      { type: 'text', text: 'Descreva' },
      { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpeg.toString('base64')}`, detail: 'auto' } },
      { type: 'file', file: { filename: 'exame.pdf', file_data: `data:application/pdf;base64,${pdf.toString('base64')}` } },
    ]);
  });

  it('maps 429 to RateLimitError after exactly one request (no SDK retry), with the retry-after hint', async () => {
    fake.queueChat({ status: 429, retry_after_s: 1 }, { text: 'would be a retry' });
    const err = await chat()
      .chat({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'oi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, model: 'openai:gpt-4.1-mini', retryAfterMs: 1000 });
    expect(fake.chatRequests()).toHaveLength(1);
    expect(fake.requests[0]!.headers['x-stainless-retry-count']).toBe('0');
  });

  it('maps 500 to ProviderError with status, without retrying, and never puts the key in the message', async () => {
    fake.queueChat({ status: 500 });
    const err = (await chat()
      .chat({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'oi' }] })
      .catch((e: unknown) => e)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.status).toBe(500);
    expect(err.cause).toBeDefined();
    expect(err.message).not.toContain(KEY);
    expect(fake.chatRequests()).toHaveLength(1);
  });

  it('maps a slow answer past the timeout to ProviderError code timeout', async () => {
    fake.queueChat({ delay_ms: 1000, text: 'tarde demais' });
    const err = await chat()
      .chat({ model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'oi' }], timeout_ms: 100 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ code: 'timeout', status: undefined });
  });

  it('transcribes: multipart with the audio bytes as audio.ogg, model and language', async () => {
    fake.queueTranscription({ transcript: 'Oi, queria saber o preço' });
    const audio = Buffer.from('OggS fake opus bytes');
    const text = await chat().transcribe({
      model: 'gpt-4o-mini-transcribe',
      bytes: audio,
      mimetype: 'audio/ogg; codecs=opus',
      language: 'pt',
    });
    expect(text).toBe('Oi, queria saber o preço');
    const [req] = fake.transcriptionRequests();
    expect(req!.headers['content-type']).toMatch(/^multipart\/form-data/);
    expect(req!.form!.model).toBe('gpt-4o-mini-transcribe');
    expect(req!.form!.language).toBe('pt');
    expect(req!.form!.response_format).toBe('json');
    const file = req!.form!.file as { name: string; type: string; bytes: Buffer };
    expect(file.name).toBe('audio.ogg');
    expect(file.type).toBe('audio/ogg');
    expect(file.bytes.equals(audio)).toBe(true);
  });

  it('maps a transcription 429 to RateLimitError with one request', async () => {
    fake.queueTranscription({ status: 429 });
    const err = await chat()
      .transcribe({ model: 'whisper-1', bytes: Buffer.from('x'), mimetype: 'audio/mpeg' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(fake.transcriptionRequests()).toHaveLength(1);
    expect((fake.transcriptionRequests()[0]!.form!.file as { name: string }).name).toBe('audio.mp3');
  });
});
