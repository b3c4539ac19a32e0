import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AgentFailedError } from '../../adapters/ai/agent-failed-error.js';
import { MAX_CONTINGENCY_ATTEMPTS, runAgent, type AgentTool } from '../../adapters/ai/agent-runner.js';
import { createAiService, type AiService } from '../../adapters/ai/ai-service.js';
import type { JsonObject } from '../../engine/types.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/fake-anthropic.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import { fakeClock } from './fake-clock.js';

let openai: FakeOpenAi;
let anthropic: FakeAnthropic;
let ai: AiService;
beforeAll(async () => {
  [openai, anthropic] = await Promise.all([startFakeOpenAi(), startFakeAnthropic()]);
  ai = createAiService({
    OPENAI_API_KEY: 'sk-o',
    OPENAI_BASE_URL: openai.baseURL,
    ANTHROPIC_API_KEY: 'sk-a',
    ANTHROPIC_BASE_URL: anthropic.baseURL,
  });
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close()]);
});
beforeEach(() => {
  openai.reset();
  anthropic.reset();
});

const PRIMARY = 'openai:gpt-4.1-mini';
const FALLBACK = 'anthropic:claude-sonnet-4-6';
const CONTINGENCY = 'openai:gpt-5.4-mini';
const models = { primary: PRIMARY, fallbacks: [FALLBACK], contingency: CONTINGENCY };
const openaiModels = () => openai.chatRequests().map((b) => b.model);

/** Tools bound to one lead by closure, recording what their handlers received. */
function leadTools() {
  const calls: Array<{ name: string; args: JsonObject }> = [];
  const tools: AgentTool[] = [
    {
      name: 'buscar_lead',
      description: 'Dados do lead atual',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      handler: async (args) => {
        calls.push({ name: 'buscar_lead', args });
        return { nome: 'Ana', orcamento: 'Até R$ 3.000' };
      },
    },
    {
      name: 'transferir',
      description: 'Transfere o lead atual para um atendente humano',
      parameters: { type: 'object', properties: { motivo: { type: 'string', maxLength: 500 } }, additionalProperties: false },
      handler: async (args) => {
        calls.push({ name: 'transferir', args });
        return { transferido: true };
      },
    },
    {
      name: 'buscar_protocolo',
      description: 'Protocolo da clínica',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      handler: async () => {
        throw new Error('database unavailable');
      },
    },
  ];
  return { tools, calls };
}

describe('runAgent: memory and tool loop', () => {
  it('sends system and prior turns, runs a tool call, threads its result back and returns the final text', async () => {
    const { tools, calls } = leadTools();
    openai.queueChat(
      { tool_calls: [{ id: 'call_1', name: 'buscar_lead', arguments: {} }] },
      { text: '  Oi Ana! Posso ajudar com o agendamento.  ' },
    );
    const result = await runAgent({
      ai,
      models,
      system: 'Você é a assistente da Clínica Sorriso.',
      history: [
        { role: 'user', content: 'oi' },
        { role: 'assistant', content: 'Olá! Tudo bem?' },
      ],
      input: 'quero marcar',
      tools,
      clock: fakeClock(),
    });
    expect(result.text).toBe('Oi Ana! Posso ajudar com o agendamento.');
    expect(result.model_used).toBe(PRIMARY);
    expect(result.attempts).toEqual([{ model: PRIMARY, outcome: 'ok', ms: expect.any(Number) }]);
    expect(calls).toEqual([{ name: 'buscar_lead', args: {} }]);
    expect(result.tool_calls).toEqual([{ model: PRIMARY, name: 'buscar_lead', arguments: {}, ok: true, ms: expect.any(Number) }]);

    const [first, second] = openai.chatRequests();
    expect(first.messages).toEqual([
      { role: 'system', content: 'Você é a assistente da Clínica Sorriso.' },
      { role: 'user', content: 'oi' },
      { role: 'assistant', content: 'Olá! Tudo bem?' },
      { role: 'user', content: 'quero marcar' },
    ]);
    expect(first.tools.map((t: any) => t.function.name)).toEqual(['buscar_lead', 'transferir', 'buscar_protocolo']);
    expect(second.messages.slice(4)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'buscar_lead', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: JSON.stringify({ nome: 'Ana', orcamento: 'Até R$ 3.000' }) },
    ]);
    expect(anthropic.requests).toHaveLength(0);
  });

  it('rejects bad tool arguments without calling the handler and reports the problem to the model', async () => {
    const { tools, calls } = leadTools();
    openai.queueChat(
      {
        tool_calls: [
          { id: 'c1', name: 'transferir', arguments: { motivo: 'quer agendar', telefone: '5511999999999' } },
          { id: 'c2', name: 'transferir', arguments: '{not json' },
          { id: 'c3', name: 'transferir', arguments: { motivo: 42 } },
          { id: 'c4', name: 'listar_leads', arguments: {} },
        ],
      },
      { text: 'Certo!' },
    );
    const result = await runAgent({ ai, models, input: 'me transfere', tools, clock: fakeClock() });
    expect(result.text).toBe('Certo!');
    expect(calls).toEqual([]);
    expect(result.tool_calls.map((c) => [c.name, c.ok, c.error])).toEqual([
      ['transferir', false, expect.stringContaining('telefone')],
      ['transferir', false, 'invalid JSON'],
      ['transferir', false, expect.stringContaining('/motivo must be string')],
      ['listar_leads', false, 'unknown tool'],
    ]);
    const toolMessages = openai.chatRequests()[1].messages.filter((m: any) => m.role === 'tool');
    expect(toolMessages.map((m: any) => m.tool_call_id)).toEqual(['c1', 'c2', 'c3', 'c4']);
    expect(JSON.parse(toolMessages[0].content).error).toMatch(/invalid arguments: .*must NOT have additional properties: telefone/);
    expect(JSON.parse(toolMessages[1].content).error).toBe('arguments are not valid JSON');
    expect(JSON.parse(toolMessages[3].content).error).toMatch(/unknown tool "listar_leads"/);
  });

  it('turns a handler error into an error tool result (is_error on Anthropic) and goes on', async () => {
    const { tools } = leadTools();
    anthropic.queue(
      { tool_use: [{ id: 'toolu_9', name: 'buscar_protocolo', input: {} }] },
      { text: 'Vou confirmar o valor e te retorno.' },
    );
    const result = await runAgent({ ai, models: { primary: FALLBACK }, input: 'quanto custa?', tools, clock: fakeClock() });
    expect(result.text).toBe('Vou confirmar o valor e te retorno.');
    expect(result.tool_calls[0]).toMatchObject({ name: 'buscar_protocolo', ok: false, error: 'database unavailable' });
    const last = anthropic.messageRequests()[1].messages.at(-1);
    expect(last).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: '{"error":"tool failed: database unavailable"}', is_error: true }],
    });
  });

  it('bounds tool rounds: after maxToolRounds the model is asked for text with tool_choice none; tools past the bound never run', async () => {
    const { tools, calls } = leadTools();
    const toolTurn = { tool_calls: [{ name: 'buscar_lead', arguments: {} }] };
    openai.queueChat(toolTurn, toolTurn, toolTurn, toolTurn);
    anthropic.queue({ text: 'Resposta do fallback.' });
    const result = await runAgent({
      ai,
      models: { primary: PRIMARY, fallbacks: [FALLBACK] },
      input: 'oi',
      tools,
      maxToolRounds: 2,
      clock: fakeClock(),
    });
    const bodies = openai.chatRequests();
    expect(bodies).toHaveLength(3);
    expect(bodies.map((b) => b.tool_choice)).toEqual(['auto', 'auto', 'none']);
    expect(calls).toHaveLength(2);
    // The third answer was only a tool call: empty text is a failure, the fallback answers.
    expect(result.attempts.map((a) => [a.model, a.outcome])).toEqual([
      [PRIMARY, 'empty'],
      [FALLBACK, 'ok'],
    ]);
    expect(result.text).toBe('Resposta do fallback.');
  });

  it('abandons a tool handler that outlives toolTimeoutMs: its signal aborts and the model sees a timeout', async () => {
    let handlerSignal: AbortSignal | undefined;
    const hanging: AgentTool = {
      name: 'buscar_clinica',
      description: 'Dados da clínica',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      handler: (_args, { signal }) => {
        handlerSignal = signal;
        return new Promise(() => {});
      },
    };
    openai.queueChat({ tool_calls: [{ id: 'c1', name: 'buscar_clinica', arguments: {} }] }, { text: 'Já te passo o endereço.' });
    const result = await runAgent({ ai, models, input: 'onde fica?', tools: [hanging], toolTimeoutMs: 50, clock: fakeClock() });
    expect(result.text).toBe('Já te passo o endereço.');
    expect(handlerSignal?.aborted).toBe(true);
    expect(result.tool_calls[0]).toMatchObject({ ok: false, error: 'timed out after 50 ms' });
    const tool = openai.chatRequests()[1].messages.find((m: any) => m.role === 'tool');
    expect(JSON.parse(tool.content)).toEqual({ error: 'tool failed: timed out after 50 ms' });
  });

  it('uses the default of 5 tool rounds', async () => {
    const { tools, calls } = leadTools();
    const toolTurn = { tool_calls: [{ name: 'buscar_lead', arguments: {} }] };
    openai.queueChat(toolTurn, toolTurn, toolTurn, toolTurn, toolTurn, { text: 'Pronto.' });
    const result = await runAgent({ ai, models: { primary: PRIMARY }, input: 'oi', tools, clock: fakeClock() });
    expect(result.text).toBe('Pronto.');
    expect(calls).toHaveLength(5);
    expect(openai.chatRequests().at(-1).tool_choice).toBe('none');
  });
});

describe('runAgent: model chain', () => {
  it('primary 500 → fallback, without waiting', async () => {
    const clock = fakeClock();
    openai.queueChat({ status: 500 });
    anthropic.queue({ text: 'Olá do fallback' });
    const result = await runAgent({ ai, models, input: 'oi', clock });
    expect(result).toMatchObject({ text: 'Olá do fallback', model_used: FALLBACK });
    expect(result.attempts.map((a) => [a.model, a.outcome])).toEqual([
      [PRIMARY, 'error'],
      [FALLBACK, 'ok'],
    ]);
    expect(result.attempts[0]!.error).toMatch(/HTTP 500/);
    expect(clock.sleeps).toEqual([]);
    expect(openaiModels()).toEqual(['gpt-4.1-mini']);
  });

  it('429 → waits rateLimitWaitMs on the injected clock → contingency (one request per attempt, fallback untouched)', async () => {
    const clock = fakeClock();
    openai.queueChat({ status: 429, retry_after_s: 1 }, { text: 'Olá da contingência' });
    const result = await runAgent({ ai, models, input: 'oi', rateLimitWaitMs: 15_000, clock });
    expect(result).toMatchObject({ text: 'Olá da contingência', model_used: CONTINGENCY });
    expect(clock.sleeps).toEqual([15_000]);
    expect(openaiModels()).toEqual(['gpt-4.1-mini', 'gpt-5.4-mini']);
    expect(anthropic.requests).toHaveLength(0);
    expect(result.attempts.map((a) => a.outcome)).toEqual(['rate_limited', 'ok']);
  });

  it('a 429 from the fallback also leads to the wait and the contingency', async () => {
    const clock = fakeClock();
    openai.queueChat({ status: 500 }, { text: 'contingência ok' });
    anthropic.queue({ status: 429 });
    const result = await runAgent({ ai, models, input: 'oi', rateLimitWaitMs: 500, clock });
    expect(result.model_used).toBe(CONTINGENCY);
    expect(result.attempts.map((a) => [a.model, a.outcome])).toEqual([
      [PRIMARY, 'error'],
      [FALLBACK, 'rate_limited'],
      [CONTINGENCY, 'ok'],
    ]);
    expect(clock.sleeps).toEqual([500]);
  });

  it('repeats wait → contingency while it keeps failing, then succeeds', async () => {
    const clock = fakeClock();
    openai.queueChat({ status: 429 }, { status: 429 }, { status: 503 }, { text: 'finalmente' });
    const result = await runAgent({ ai, models, input: 'oi', rateLimitWaitMs: 1000, clock });
    expect(result.text).toBe('finalmente');
    expect(clock.sleeps).toEqual([1000, 1000, 1000]);
    expect(openaiModels()).toEqual(['gpt-4.1-mini', 'gpt-5.4-mini', 'gpt-5.4-mini', 'gpt-5.4-mini']);
  });

  it('repeated 429 stops at the deadline with a clear error', async () => {
    const clock = fakeClock();
    openai.queueChat(...Array.from({ length: 20 }, () => ({ status: 429 })));
    const err = (await runAgent({ ai, models, input: 'oi', rateLimitWaitMs: 15_000, deadlineMs: 60_000, clock }).catch(
      (e: unknown) => e,
    )) as AgentFailedError;
    expect(err).toBeInstanceOf(AgentFailedError);
    expect(err.code).toBe('deadline');
    expect(err.status).toBe(429);
    expect(err.message).toMatch(/deadline of 60000 ms reached after 4 attempt/);
    // t=0 primary, then contingency at 15 s, 30 s, 45 s; at 45 s only 15 s remain: no room for another wait.
    expect(clock.sleeps).toEqual([15_000, 15_000, 15_000]);
    expect(clock.elapsed()).toBeLessThanOrEqual(60_000);
    expect(openai.chatRequests()).toHaveLength(4);
    expect(err.attempts.map((a) => a.outcome)).toEqual(['rate_limited', 'rate_limited', 'rate_limited', 'rate_limited']);
  });

  it('with a zero wait the cycle still stops after MAX_CONTINGENCY_ATTEMPTS', async () => {
    openai.queueChat(...Array.from({ length: MAX_CONTINGENCY_ATTEMPTS + 5 }, () => ({ status: 429 })));
    const err = (await runAgent({ ai, models, input: 'oi', rateLimitWaitMs: 0, clock: fakeClock() }).catch(
      (e: unknown) => e,
    )) as AgentFailedError;
    expect(err).toBeInstanceOf(AgentFailedError);
    expect(openai.chatRequests()).toHaveLength(1 + MAX_CONTINGENCY_ATTEMPTS);
  });

  it('a permanent error from the contingency ends the cycle at once', async () => {
    const clock = fakeClock();
    openai.queueChat({ status: 429 }, { status: 404, error_message: 'model not found' });
    const err = (await runAgent({ ai, models, input: 'oi', rateLimitWaitMs: 10, clock }).catch((e: unknown) => e)) as AgentFailedError;
    expect(err).toBeInstanceOf(AgentFailedError);
    expect(err.code).toBe('exhausted');
    expect(clock.sleeps).toEqual([10]);
    expect(openai.chatRequests()).toHaveLength(2);
  });

  it('an empty answer is never the reply: the next option answers', async () => {
    openai.queueChat({ text: '   ' });
    anthropic.queue({});
    openai.queueChat({ text: 'Resposta real' });
    const result = await runAgent({ ai, models, input: 'oi', clock: fakeClock() });
    expect(result.attempts.map((a) => [a.model, a.outcome])).toEqual([
      [PRIMARY, 'empty'],
      [FALLBACK, 'empty'],
      [CONTINGENCY, 'ok'],
    ]);
    expect(result.text).toBe('Resposta real');
  });

  it('when every option answers empty, the run fails instead of replying', async () => {
    openai.queueChat({ text: '' }, { text: '' });
    anthropic.queue({ text: '' });
    const err = (await runAgent({ ai, models, input: 'oi', clock: fakeClock() }).catch((e: unknown) => e)) as AgentFailedError;
    expect(err).toBeInstanceOf(AgentFailedError);
    expect(err.code).toBe('exhausted');
    expect(err.attempts.map((a) => a.outcome)).toEqual(['empty', 'empty', 'empty']);
  });

  it('without a contingency a 429 is an ordinary failure: next model, no wait', async () => {
    const clock = fakeClock();
    openai.queueChat({ status: 429 });
    anthropic.queue({ text: 'ok' });
    const result = await runAgent({ ai, models: { primary: PRIMARY, fallbacks: [FALLBACK] }, input: 'oi', clock });
    expect(result.model_used).toBe(FALLBACK);
    expect(clock.sleeps).toEqual([]);
  });

  it('stops at once when the caller aborts', async () => {
    const controller = new AbortController();
    openai.queueChat({ delay_ms: 2000, text: 'tarde' });
    setTimeout(() => controller.abort(new Error('shutdown')), 50);
    const started = Date.now();
    await expect(runAgent({ ai, models, input: 'oi', signal: controller.signal })).rejects.toThrow('shutdown');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(anthropic.requests).toHaveLength(0);
  });
});
