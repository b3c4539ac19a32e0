import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAiService, type AiService } from '../../adapters/ai/ai-service.js';
import { loadFlowText } from '../../engine/load/loader.js';
import { NodeRegistry } from '../../engine/registry.js';
import type { JsonObject } from '../../engine/types.js';
import { aiNodes } from '../../nodes/ai/index.js';
import { coreNodes } from '../../nodes/index.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/fake-anthropic.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import { runFlow, shutdownEngines, stepOutput, stepRecord } from '../helpers/run-flow.js';

const registry = new NodeRegistry([...coreNodes, ...aiNodes]);
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
afterEach(() => shutdownEngines());

const run = (yaml: string, services: Record<string, unknown> = { ai }, body: JsonObject = {}) =>
  runFlow(yaml, { body, engine: { registry, services } });
const words = (n: number) => Array.from({ length: n }, (_, i) => `palavra${i + 1}`).join(' ');

const generateFlow = `
name: gen
steps:
  - id: gen
    type: ai.generate
    params:
      model: openai:gpt-4.1-mini
      fallback_models: [anthropic:claude-sonnet-4-6]
      contingency_model: openai:gpt-5.4-mini
      system: Você é a assistente da clínica.
      prompt: "Escreva uma saudação para {{ trigger.body.nome }}."
      max_tokens: 200
      rate_limit_wait_ms: 10
`;

describe('ai.generate', () => {
  it('sends system and prompt and outputs {text, model_used}', async () => {
    openai.queueChat({ text: ' Olá, Ana! ' });
    const { record } = await run(generateFlow, { ai }, { nome: 'Ana' });
    expect(record.status).toBe('success');
    expect(stepOutput(record, 'gen')).toMatchObject({ text: 'Olá, Ana!', model_used: 'openai:gpt-4.1-mini' });
    const [body] = openai.chatRequests();
    expect(body.messages).toEqual([
      { role: 'system', content: 'Você é a assistente da clínica.' },
      { role: 'user', content: 'Escreva uma saudação para Ana.' },
    ]);
    expect(body.max_completion_tokens).toBe(200);
  });

  it('falls back on a 500 and goes to the contingency after a 429', async () => {
    openai.queueChat({ status: 500 }, { text: 'da contingência' });
    anthropic.queue({ status: 429 });
    const { record } = await run(generateFlow, { ai }, { nome: 'Ana' });
    expect(stepOutput(record, 'gen')).toMatchObject({ text: 'da contingência', model_used: 'openai:gpt-5.4-mini' });
    expect(stepOutput(record, 'gen').attempts.map((a: any) => a.outcome)).toEqual(['error', 'rate_limited', 'ok']);
  });

  it('fails the step when every option answers empty (no empty reply)', async () => {
    openai.queueChat({ text: '' }, { text: ' ' });
    anthropic.queue({ text: '' });
    const { record } = await run(generateFlow, { ai }, { nome: 'Ana' });
    expect(record.status).toBe('failed');
    expect(stepRecord(record, 'gen').error).toMatchObject({ name: 'AgentFailedError', code: 'exhausted' });
    expect(stepRecord(record, 'gen').output).toBeUndefined();
  });

  it('outputs fallback_text, written_by template, when every model fails; the text is a template', async () => {
    openai.queueChat({ status: 500 }, { status: 500 });
    anthropic.queue({ status: 500 });
    const withFallback = `${generateFlow}      fallback_text: "Olá, {{ trigger.body.nome }}! Já falamos com você."\n`;
    const { record } = await run(withFallback, { ai }, { nome: 'Ana' });
    expect(record.status).toBe('success');
    expect(stepRecord(record, 'gen').status).toBe('success');
    const output = stepOutput(record, 'gen');
    expect(output).toMatchObject({ text: 'Olá, Ana! Já falamos com você.', model_used: null, written_by: 'template' });
    expect(output.error).toMatch(/every model failed/);
    expect(output.attempts.map((a: any) => a.outcome)).toEqual(['error', 'error', 'error']);
  });

  it('with fallback_text, a model that answers is used and named in written_by', async () => {
    openai.queueChat({ text: 'Oi, Ana!' });
    const { record } = await run(`${generateFlow}      fallback_text: Modelo fora do ar.\n`, { ai }, { nome: 'Ana' });
    expect(stepOutput(record, 'gen')).toMatchObject({
      text: 'Oi, Ana!',
      model_used: 'openai:gpt-4.1-mini',
      written_by: 'openai:gpt-4.1-mini',
    });
  });

  it('with fallback_text, a missing AI service outputs the text too (as a failed step going to a template did)', async () => {
    const { record } = await run(`${generateFlow}      fallback_text: Modelo fora do ar.\n`, {}, { nome: 'Ana' });
    expect(record.status).toBe('success');
    expect(stepOutput(record, 'gen')).toMatchObject({ text: 'Modelo fora do ar.', written_by: 'template', attempts: [] });
  });

  // The template texts come as data (a flow reads them from its files), so the engine leaves their placeholders alone.
  const templatedFlow = `${generateFlow
    .replace('system: Você é a assistente da clínica.', 'system: "{{ trigger.body.system }}"')
    .replace('prompt: "Escreva uma saudação para {{ trigger.body.nome }}."', 'prompt: "{{ trigger.body.prompt }}"')}      values:
        clinica: "{{ trigger.body.clinica }}"
        protocolo: "{{ trigger.body.protocolo }}"
        nome: "{{ trigger.body.nome }}"
        respostas: "{{ trigger.body.respostas }}"
      fallback_text: Texto fixo.
`;
  const templates = {
    system: "<!-- for the file's editors -->\nVocê é da {{clinica.nome}} ({{ clinica.endereco }}). Protocolo: {{protocolo.nome}}.",
    prompt: 'Escreva para {{nome}}; respostas {{respostas}}.',
  };

  it('with values, fills the {{name}} / {{name.member}} placeholders of system and prompt (null and missing members empty, values as text once)', async () => {
    openai.queueChat({ text: 'Oi!' });
    const body = { ...templates, nome: '{{nome}}', clinica: { nome: 'Clínica Sol', endereco: null }, protocolo: null, respostas: { a: 1 } };
    const { record } = await run(templatedFlow, { ai }, body);
    expect(stepRecord(record, 'gen').error).toBeUndefined();
    expect(record.status).toBe('success');
    const [request] = openai.chatRequests();
    expect(request.messages).toEqual([
      { role: 'system', content: 'Você é da Clínica Sol (). Protocolo: .' },
      { role: 'user', content: 'Escreva para {{nome}}; respostas {"a":1}.' },
    ]);
  });

  it('with values, a placeholder whose name has none fails the step, fallback_text or not, and calls no model', async () => {
    const system = templates.system.replace('{{protocolo.nome}}', '{{protocol.nome}}');
    const { record } = await run(
      templatedFlow,
      { ai },
      { ...templates, system, nome: 'Ana', clinica: null, protocolo: null, respostas: {} },
    );
    expect(record.status).toBe('failed');
    expect(stepRecord(record, 'gen').error!.message).toBe(
      'prompt template: unknown placeholder {{protocol.nome}}; known: clinica, protocolo, nome, respostas',
    );
    expect(openai.chatRequests()).toEqual([]);
  });

  it('fails with a clear error when the host gave no AI service', async () => {
    const { record } = await run(generateFlow, {}, { nome: 'Ana' });
    expect(record.status).toBe('failed');
    expect(stepRecord(record, 'gen').error!.message).toBe(
      'step "gen" needs the AI service, but none is configured (services.ai is missing)',
    );
  });

  it('rejects a model without provider: at load when literal, at run time when an expression', async () => {
    const literal = loadFlowText('bad.yaml', generateFlow.replace('model: openai:gpt-4.1-mini', 'model: gpt-4.1-mini'), registry);
    expect(literal.problems.map((p) => `${p.line} ${p.message}`)).toEqual([
      expect.stringMatching(/^7 steps\.0\.params\.model must match pattern/),
    ]);
    const { record } = await run(
      generateFlow.replace('model: openai:gpt-4.1-mini', 'model: "{{ trigger.body.model }}"'),
      { ai },
      { nome: 'Ana', model: 'gpt-4.1-mini' },
    );
    expect(record.status).toBe('failed');
    expect(stepRecord(record, 'gen').error!.message).toMatch(/params\.model/);
    expect(openai.requests).toHaveLength(0);
  });
});

const summarizeFlow = `
name: sum
steps:
  - id: sum
    type: ai.summarize
    params:
      model: openai:gpt-4.1-mini
      text: "{{ trigger.body.text }}"
`;

describe('ai.summarize', () => {
  it('enforces 50 words: asks once to shorten, then cuts at whole words when the model keeps writing 120', async () => {
    openai.queueChat({ text: words(120) }, { text: words(120) });
    const { record } = await run(summarizeFlow, { ai }, { text: 'Lead: quero saber o preço\nAgente: custa R$ 2.500' });
    const out = stepOutput(record, 'sum');
    expect(out.words).toBe(50);
    expect(out.summary).toBe(words(50));
    expect(out).toMatchObject({ retried: true, truncated: true, model_used: 'openai:gpt-4.1-mini' });
    const bodies = openai.chatRequests();
    expect(bodies).toHaveLength(2);
    expect(bodies[0].messages[0].content).toMatch(/no máximo 50 palavras/);
    expect(bodies[0].messages[1].content).toContain('<conversa>\nLead: quero saber o preço\nAgente: custa R$ 2.500\n</conversa>');
    expect(bodies[1].messages.at(-2)).toEqual({ role: 'assistant', content: words(120) });
    expect(bodies[1].messages.at(-1).content).toMatch(/tem 120 palavras.*no máximo 50 palavras/);
  });

  it('uses the shortened answer when the retry fits, and does not retry a summary within the limit', async () => {
    openai.queueChat({ text: words(120) }, { text: `Lead  quer\nagendar ${words(28)}` });
    const { record } = await run(summarizeFlow, { ai }, { text: 'conversa' });
    expect(stepOutput(record, 'sum')).toMatchObject({
      summary: `Lead quer agendar ${words(28)}`,
      words: 31,
      retried: true,
      truncated: false,
    });

    openai.reset();
    openai.queueChat({ text: words(50) });
    const second = await run(summarizeFlow, { ai }, { text: 'conversa' });
    expect(stepOutput(second.record, 'sum')).toMatchObject({ words: 50, retried: false, truncated: false });
    expect(openai.chatRequests()).toHaveLength(1);
  });

  it('honours max_words and cuts even when the shortening call fails', async () => {
    openai.queueChat({ text: words(30) }, { status: 500 });
    const { record } = await run(
      summarizeFlow.replace('text: "{{ trigger.body.text }}"', 'text: "{{ trigger.body.text }}"\n      max_words: 10'),
      { ai },
      { text: 'conversa' },
    );
    expect(record.status).toBe('success');
    expect(stepOutput(record, 'sum')).toMatchObject({ summary: words(10), words: 10, retried: true, truncated: true });
  });

  it('gives an empty summary for blank text without calling a model', async () => {
    const { record } = await run(summarizeFlow, { ai }, { text: '  ' });
    expect(stepOutput(record, 'sum')).toEqual({ summary: '', words: 0, model_used: null, retried: false, truncated: false });
    expect(openai.requests).toHaveLength(0);
  });
});

const mediaFlow = `
name: media
steps:
  - id: conv
    type: media.to-text
    params:
      media_ref: "{{ trigger.body.ref }}"
      transcribe_model: openai:whisper-1
`;

describe('media.to-text', () => {
  it('takes the bytes from services.media and transcribes them', async () => {
    const audio = Buffer.from('OggS voice note bytes');
    const taken: string[] = [];
    const media = {
      take: (ref: string) => {
        taken.push(ref);
        return ref === 'm1' ? { bytes: audio, mimetype: 'audio/ogg; codecs=opus' } : undefined;
      },
    };
    openai.queueTranscription({ transcript: 'Oi, tudo bem?' });
    const { record } = await run(mediaFlow, { ai, media }, { ref: 'm1' });
    expect(stepOutput(record, 'conv')).toEqual({ text: 'Oi, tudo bem?', kind: 'audio', ok: true });
    expect(taken).toEqual(['m1']);
    const [req] = openai.transcriptionRequests();
    expect(req!.form!.model).toBe('whisper-1');
    expect((req!.form!.file as { bytes: Buffer }).bytes.equals(audio)).toBe(true);
  });

  it('with a cache that has get: a failed attempt leaves the bytes for the retry, success removes them', async () => {
    const entries = new Map([['m_retry', { bytes: Buffer.from('OggS retry'), mimetype: 'audio/ogg' }]]);
    const media = {
      get: (r: string) => entries.get(r),
      take: (r: string) => {
        const e = entries.get(r);
        entries.delete(r);
        return e;
      },
    };
    const ref = 'm_retry';
    openai.queueTranscription({ status: 500 }, { transcript: 'na segunda' });
    const flow = mediaFlow.replace('transcribe_model: openai:whisper-1', 'on_failure: error\n    retry: { attempts: 2, delay_ms: 1 }');
    const { record } = await run(flow, { ai, media }, { ref });
    expect(record.status).toBe('success');
    expect(stepOutput(record, 'conv')).toEqual({ text: 'na segunda', kind: 'audio', ok: true });
    expect(openai.transcriptionRequests()).toHaveLength(2);
    expect(entries.has(ref)).toBe(false);
  });

  it('uses the configured vision model when none is given, and services.mediaOptions for ffmpeg', async () => {
    const media = { take: async () => ({ bytes: Buffer.from('video bytes'), mimetype: 'video/mp4' }) };
    const { record } = await run(mediaFlow, { ai, media, mediaOptions: { ffmpegPath: '/nonexistent/ffmpeg' } }, { ref: 'v1' });
    expect(stepOutput(record, 'conv')).toMatchObject({
      text: '[vídeo recebido: não foi possível analisar o conteúdo]',
      kind: 'video',
      ok: false,
    });
    expect(openai.requests).toHaveLength(0);
  });

  it('fails clearly when the reference is not in the cache, or there is no cache', async () => {
    const { record } = await run(mediaFlow, { ai, media: { take: () => undefined } }, { ref: 'gone' });
    expect(stepRecord(record, 'conv').error).toMatchObject({ name: 'MediaNotFoundError', code: 'media_not_found' });
    const second = await run(mediaFlow, { ai }, { ref: 'gone' });
    expect(stepRecord(second.record, 'conv').error!.message).toBe(
      'step "conv" needs a media cache, but none is configured (services.media is missing)',
    );
  });

  it('on_failure error fails the step on a provider error; marker (default) answers the marker', async () => {
    const media = { take: () => ({ bytes: Buffer.from('x'), mimetype: 'audio/ogg' }) };
    openai.queueTranscription({ status: 500 }, { status: 500 });
    const failing = await run(mediaFlow.replace('transcribe_model: openai:whisper-1', 'on_failure: error'), { ai, media }, { ref: 'a' });
    expect(stepRecord(failing.record, 'conv').error).toMatchObject({ name: 'ProviderError', status: 500 });
    const marked = await run(mediaFlow, { ai, media }, { ref: 'a' });
    expect(stepOutput(marked.record, 'conv')).toMatchObject({ text: '[áudio recebido: não foi possível transcrever]', ok: false });
  });
});
