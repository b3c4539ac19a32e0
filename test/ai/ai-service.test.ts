import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAiService, type AiCallEvent } from '../../adapters/ai/ai-service.js';
import { ModelRefError } from '../../adapters/ai/model-ref-error.js';
import { ProviderError } from '../../adapters/ai/provider-error.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/fake-anthropic.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';

let openai: FakeOpenAi;
let anthropic: FakeAnthropic;
beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startFakeOpenAi(), startFakeAnthropic()]);
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close()]);
});
beforeEach(() => {
  openai.reset();
  anthropic.reset();
});

const env = () => ({
  OPENAI_API_KEY: 'sk-o',
  OPENAI_BASE_URL: openai.baseURL,
  ANTHROPIC_API_KEY: 'sk-a',
  ANTHROPIC_BASE_URL: anthropic.baseURL,
});

describe('createAiService', () => {
  it('routes each provider:model to its provider with the bare model id, and reports calls', async () => {
    const events: AiCallEvent[] = [];
    const ai = createAiService(env(), { onCall: (e) => events.push(e) });
    openai.queueChat({ text: 'from openai' });
    anthropic.queue({ text: 'from anthropic' });
    expect((await ai.chat('openai:gpt-4.1-mini', { messages: [{ role: 'user', content: 'a' }] })).text).toBe('from openai');
    expect((await ai.chat('anthropic:claude-sonnet-4-6', { messages: [{ role: 'user', content: 'b' }] })).text).toBe('from anthropic');
    expect(openai.chatRequests().map((b) => b.model)).toEqual(['gpt-4.1-mini']);
    expect(anthropic.messageRequests().map((b) => b.model)).toEqual(['claude-sonnet-4-6']);
    expect(events.map((e) => [e.model, e.kind, e.outcome])).toEqual([
      ['openai:gpt-4.1-mini', 'chat', 'ok'],
      ['anthropic:claude-sonnet-4-6', 'chat', 'ok'],
    ]);
    expect(events[0]).toMatchObject({ input_tokens: 11, output_tokens: 7 });
  });

  it('exposes the model roles read from the environment', () => {
    const ai = createAiService({ ...env(), LEADFLOW_MODEL_PRIMARY: 'openai:my-model', LEADFLOW_RATE_LIMIT_WAIT_MS: '10' });
    expect(ai.models.primary).toBe('openai:my-model');
    expect(ai.models.rateLimitWaitMs).toBe(10);
  });

  it('fails only the provider whose key is missing, naming the variable but no key', async () => {
    const ai = createAiService({
      OPENAI_API_KEY: 'sk-secret-value',
      OPENAI_BASE_URL: openai.baseURL,
      ANTHROPIC_BASE_URL: anthropic.baseURL,
    });
    const err = (await ai
      .chat('anthropic:claude-sonnet-4-6', { messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.code).toBe('config');
    expect(err.message).toContain('ANTHROPIC_API_KEY is not set');
    expect(anthropic.requests).toHaveLength(0);
    await expect(ai.chat('openai:gpt-4.1-mini', { messages: [{ role: 'user', content: 'x' }] })).resolves.toMatchObject({
      text: expect.any(String),
    });
  });

  it('rejects a bad model reference and transcription with a non-openai model before any request', async () => {
    const ai = createAiService(env());
    await expect(ai.chat('gpt-4.1-mini', { messages: [] })).rejects.toBeInstanceOf(ModelRefError);
    await expect(ai.transcribe('anthropic:claude-sonnet-4-6', { bytes: Buffer.from('x'), mimetype: 'audio/ogg' })).rejects.toBeInstanceOf(
      ModelRefError,
    );
    expect(openai.requests.length + anthropic.requests.length).toBe(0);
  });

  it('transcribes through the openai client', async () => {
    const ai = createAiService(env());
    openai.queueTranscription({ transcript: 'bom dia' });
    await expect(ai.transcribe('openai:whisper-1', { bytes: Buffer.from('abc'), mimetype: 'audio/ogg' })).resolves.toBe('bom dia');
    expect(openai.transcriptionRequests()[0]!.form!.model).toBe('whisper-1');
  });
});
