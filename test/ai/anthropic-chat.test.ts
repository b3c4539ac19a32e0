import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CONVERSATION_START, createAnthropicChat } from '../../adapters/ai/anthropic-chat.js';
import { ProviderError } from '../../adapters/ai/provider-error.js';
import { RateLimitError } from '../../adapters/ai/rate-limit-error.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/fake-anthropic.js';

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const KEY = 'sk-ant-test-key-456';
const chat = () => createAnthropicChat({ apiKey: KEY, baseURL: fake.baseURL, timeoutMs: 5000 });
const tool = {
  name: 'transferir',
  description: 'Transfere para humano',
  parameters: { type: 'object', properties: { motivo: { type: 'string' } }, additionalProperties: false },
};

describe('anthropic chat adapter (real SDK against the fake)', () => {
  it('sends model, system, max_tokens and tools as input_schema; returns text and usage', async () => {
    fake.queue({ text: 'Olá! Sou da clínica.' });
    const result = await chat().chat({
      model: 'claude-sonnet-4-6',
      system: 'Você é a assistente.',
      messages: [{ role: 'user', content: 'oi' }],
      tools: [tool],
      max_tokens: 512,
    });
    expect(result).toEqual({
      text: 'Olá! Sou da clínica.',
      tool_calls: [],
      usage: { input_tokens: 13, output_tokens: 5 },
      model: 'claude-sonnet-4-6',
      stop_reason: 'end_turn',
    });
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/messages']);
    const [body] = fake.messageRequests();
    expect(body).toMatchObject({
      model: 'claude-sonnet-4-6',
      system: 'Você é a assistente.',
      max_tokens: 512,
      messages: [{ role: 'user', content: 'oi' }],
    });
    expect(body.tools).toEqual([{ name: 'transferir', description: 'Transfere para humano', input_schema: tool.parameters }]);
    expect(body.tool_choice).toEqual({ type: 'auto' });
    const headers = fake.requests[0]!.headers;
    expect(headers['anthropic-version']).toBeTruthy();
    expect(headers.authorization ?? headers['x-api-key']).toContain(KEY);
  });

  it('returns tool_use blocks as tool calls; threads tool_use and grouped tool_result blocks back', async () => {
    fake.queue({
      text: 'Vou verificar.',
      tool_use: [
        { id: 'toolu_1', name: 'transferir', input: { motivo: 'quer agendar' } },
        { id: 'toolu_2', name: 'transferir', input: {} },
      ],
    });
    const first = await chat().chat({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'quero agendar' }], tools: [tool] });
    expect(first.stop_reason).toBe('tool_use');
    expect(first.text).toBe('Vou verificar.');
    expect(first.tool_calls).toEqual([
      { id: 'toolu_1', name: 'transferir', arguments: '{"motivo":"quer agendar"}' },
      { id: 'toolu_2', name: 'transferir', arguments: '{}' },
    ]);

    await chat().chat({
      model: 'claude-sonnet-4-6',
      messages: [
        { role: 'user', content: 'quero agendar' },
        { role: 'assistant', content: first.text, tool_calls: first.tool_calls },
        { role: 'tool', tool_call_id: 'toolu_1', name: 'transferir', content: '{"ok":true}' },
        { role: 'tool', tool_call_id: 'toolu_2', name: 'transferir', content: '{"error":"x"}', is_error: true },
      ],
      tools: [tool],
      tool_choice: 'none',
    });
    const second = fake.messageRequests()[1];
    expect(second.tool_choice).toEqual({ type: 'none' });
    expect(second.messages).toEqual([
      { role: 'user', content: 'quero agendar' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Vou verificar.' },
          { type: 'tool_use', id: 'toolu_1', name: 'transferir', input: { motivo: 'quer agendar' } },
          { type: 'tool_use', id: 'toolu_2', name: 'transferir', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"ok":true}' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '{"error":"x"}', is_error: true },
        ],
      },
    ]);
  });

  it('sends image blocks and PDF document blocks as base64', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const pdf = Buffer.from('%PDF-1.7 exame');
    await chat().chat({
      model: 'claude-sonnet-4-6',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', mimetype: 'image/png', data: png },
            { type: 'pdf', data: pdf, filename: 'exame.pdf' },
            { type: 'text', text: 'Extraia o texto' },
          ],
        },
      ],
    });
    const [body] = fake.messageRequests();
    expect(body.messages[0].content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf.toString('base64') }, title: 'exame.pdf' },
      { type: 'text', text: 'Extraia o texto' },
    ]);
  });

  it('maps 429 to RateLimitError after exactly one request (no SDK retry despite retry-after)', async () => {
    fake.queue({ status: 429, retry_after_s: 2 }, { text: 'would be a retry' });
    const started = Date.now();
    const err = await chat()
      .chat({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'oi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err).toMatchObject({ status: 429, retryAfterMs: 2000, model: 'anthropic:claude-sonnet-4-6' });
    expect(fake.messageRequests()).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('maps 529 overloaded to ProviderError 529 with one request', async () => {
    fake.queue({ status: 529 });
    const err = (await chat()
      .chat({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'oi' }] })
      .catch((e: unknown) => e)) as ProviderError;
    expect(err).toBeInstanceOf(ProviderError);
    expect(err.status).toBe(529);
    expect(err.message).not.toContain(KEY);
    expect(fake.messageRequests()).toHaveLength(1);
  });

  it('starts with a user turn when the history starts with our own message, and drops blank turns', async () => {
    await chat().chat({
      model: 'claude-sonnet-4-6',
      messages: [
        { role: 'assistant', content: 'Olá Ana! Sou a assistente da clínica.' },
        { role: 'user', content: '  ' },
        { role: 'user', content: 'oi' },
      ],
    });
    expect(fake.messageRequests()[0].messages).toEqual([
      { role: 'user', content: CONVERSATION_START },
      { role: 'assistant', content: 'Olá Ana! Sou a assistente da clínica.' },
      { role: 'user', content: 'oi' },
    ]);
  });

  it('the fake answers 400 like the API to a conversation starting with the assistant', async () => {
    const raw = await fetch(`${fake.baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
      body: JSON.stringify({ model: 'm', max_tokens: 10, messages: [{ role: 'assistant', content: 'oi' }] }),
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as any).error.message).toMatch(/first message must use the "user" role/);
  });

  it('merges consecutive turns of one role so roles alternate: texts joined by a blank line, blocks kept in order', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    await chat().chat({
      model: 'claude-sonnet-4-6',
      messages: [
        { role: 'assistant', content: '[Mensagem escrita por uma pessoa da equipe da clínica]\nOi Ana, aqui é a Júlia.' },
        { role: 'assistant', content: 'Posso ajudar em algo mais?' },
        { role: 'user', content: 'ok' },
        { role: 'user', content: '   ' },
        { role: 'user', content: 'e o preço?' },
        { role: 'user', content: [{ type: 'image', mimetype: 'image/png', data: png }] },
      ],
    });
    expect(fake.messageRequests()[0].messages).toEqual([
      { role: 'user', content: CONVERSATION_START },
      {
        role: 'assistant',
        content: '[Mensagem escrita por uma pessoa da equipe da clínica]\nOi Ana, aqui é a Júlia.\n\nPosso ajudar em algo mais?',
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'ok\n\ne o preço?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png.toString('base64') } },
        ],
      },
    ]);
  });

  it('a user message after tool results joins their turn, after them', async () => {
    await chat().chat({
      model: 'claude-sonnet-4-6',
      messages: [
        { role: 'user', content: 'quero agendar' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_1', name: 'transferir', arguments: '{}' }] },
        { role: 'tool', tool_call_id: 'toolu_1', name: 'transferir', content: '{"ok":true}' },
        { role: 'user', content: 'obrigada' },
      ],
      tools: [tool],
    });
    expect(fake.messageRequests()[0].messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: '{"ok":true}' },
        { type: 'text', text: 'obrigada' },
      ],
    });
  });

  it('the fake answers 400 like older API versions to two turns of the same role in a row', async () => {
    const raw = await fetch(`${fake.baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
      body: JSON.stringify({
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'oi' },
          { role: 'user', content: 'tudo bem?' },
        ],
      }),
    });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as any).error.message).toMatch(/roles must alternate between "user" and "assistant"/);
  });

  it('returns empty text for an empty content array (the caller decides it is a failure)', async () => {
    fake.queue({});
    const result = await chat().chat({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'oi' }] });
    expect(result.text).toBe('');
    expect(result.tool_calls).toEqual([]);
  });
});
