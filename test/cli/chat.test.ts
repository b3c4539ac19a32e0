// `leadflow chat --clinic ID`, run as a subprocess against a seeded SQLite database and the fake
// OpenAI server: the test path of the original (contingency model, memory only in the process).
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase } from '../../adapters/db/database.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import { removeScratch, runCli, SCRATCH } from '../helpers/cli.js';

let openai: FakeOpenAi;
let env: Record<string, string>;
let dataDir: string;

beforeAll(async () => {
  openai = await startFakeOpenAi();
  dataDir = mkdtempSync(join(SCRATCH, 'chat-data-'));
  env = {
    LEADFLOW_DATA_DIR: dataDir,
    OPENAI_API_KEY: 'test-key',
    OPENAI_BASE_URL: openai.baseURL,
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/',
    LEADFLOW_MODEL_PRIMARY: 'openai:primary-model',
    LEADFLOW_MODEL_CONTINGENCY: 'openai:contingency-model',
    LEADFLOW_RATE_LIMIT_WAIT_MS: '10',
  };
  const seeded = await runCli(['seed', 'seed/example.yaml'], { env });
  expect(seeded.code, seeded.stderr).toBe(0);
});

afterAll(async () => {
  await openai.close();
  removeScratch();
});

beforeEach(() => openai.reset());

const chat = (input: string, args: string[] = ['--clinic', '1']) => runCli(['chat', ...args], { env, input, timeoutMs: 20_000 });

/** Reply lines of stdout, without the prefix. */
const replies = (stdout: string) =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('agente> '))
    .map((l) => l.slice('agente> '.length));

describe('leadflow chat', () => {
  it('answers with the contingency model and the clinic prompt, splitting paragraphs as the lead would get them', async () => {
    openai.queueChat({ text: 'Olá! Aqui é da Clínica Sorriso Paulista.\\n\\nComo posso ajudar?' });
    const result = await chat('Oi, tudo bem?\n');
    expect(result.code, result.stderr).toBe(0);
    expect(replies(result.stdout)).toEqual(['Olá! Aqui é da Clínica Sorriso Paulista.', 'Como posso ajudar?']);
    const [request] = openai.chatRequests();
    expect(request.model).toBe('contingency-model');
    const system = request.messages.find((m: { role: string }) => m.role === 'system' || m.role === 'developer').content as string;
    expect(system).toContain('Clínica Sorriso Paulista');
    expect(system).toContain('Lentes de contato dental');
    // The example clinic's business hours as of now: noted on stderr, and the same line in the prompt.
    const hours = /^horário: (.*)$/m.exec(result.stderr)?.[1];
    expect(hours, result.stderr).toMatch(/^A clínica está (aberta agora, até|fechada agora; abre) .+ \(horário de America\/Sao_Paulo\)\.$/);
    expect(system).toContain(`## Horário de atendimento\n${hours}\n`);
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: expect.stringContaining('Oi, tudo bem?') });
    expect(request.tools.map((t: { function: { name: string } }) => t.function.name).sort()).toEqual([
      'buscar_clinica',
      'buscar_lead',
      'buscar_protocolo',
      'transferir',
    ]);
  });

  it('keeps the conversation in the process: the second turn sees the first; /reset forgets; nothing is stored', async () => {
    openai.queueChat({ text: 'Primeira resposta.' }, { text: 'Segunda resposta.' }, { text: 'Depois do reset.' });
    const result = await chat('Meu nome é Ana\nVocê lembra meu nome?\n/reset\nE agora?\n');
    expect(result.code, result.stderr).toBe(0);
    expect(replies(result.stdout)).toEqual(['Primeira resposta.', 'Segunda resposta.', 'Depois do reset.']);
    const [first, second, third] = openai.chatRequests();
    const turns = (r: { messages: Array<{ role: string; content: string }> }) =>
      r.messages
        .filter((m) => m.role === 'user' || m.role === 'assistant')
        .map((m) => `${m.role}:${m.content.includes('Ana') ? 'Ana' : m.content.replace(/<\/?mensagem_do_lead>|\n/g, '')}`);
    expect(turns(first)).toEqual(['user:Ana']);
    expect(turns(second)).toEqual(['user:Ana', 'assistant:Primeira resposta.', 'user:Você lembra meu nome?']);
    expect(turns(third)).toEqual(['user:E agora?']);
    expect(result.stderr).toContain('(memory cleared)');

    const db = createDatabase({ dataDir });
    try {
      expect(await db.find('wf_chat_histories', {})).toEqual([]);
      expect(await db.find('leads', {})).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('binds the tools to the clinic; transferir only reports on stderr; /sair ends the session', async () => {
    openai.queueChat(
      {
        tool_calls: [
          { name: 'buscar_protocolo', arguments: { clinica_id: 99 } },
          { name: 'transferir', arguments: { motivo: 'quer agendar', telefone: '5511999999999' } },
        ],
      },
      { text: 'Vou te passar para a especialista.' },
    );
    const result = await chat('Quero agendar\n/sair\nnunca lida\n');
    expect(result.code, result.stderr).toBe(0);
    expect(replies(result.stdout)).toEqual(['Vou te passar para a especialista.']);
    expect(result.stderr).toMatch(/\[transferir\].*quer agendar/);
    const requests = openai.chatRequests();
    expect(requests).toHaveLength(2);
    const toolResults = requests[1].messages
      .filter((m: { role: string }) => m.role === 'tool')
      .map((m: { content: string }) => JSON.parse(m.content));
    expect(toolResults[0]).toMatchObject({ nome: 'Lentes de contato dental' });
    expect(toolResults[0]).not.toHaveProperty('clinica_id');
    expect(toolResults[1]).toEqual({ transferido: true, teste: true });
    expect(JSON.stringify(requests)).not.toContain('nunca lida');
  });

  it('reports a failed turn and goes on with the next message', async () => {
    openai.queueChat({ status: 500 }, { status: 500 }, { text: 'Voltei.' });
    const result = await chat('primeira\nsegunda\n');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('the agent did not answer');
    expect(replies(result.stdout)).toEqual(['Voltei.']);
    const last = openai.chatRequests().at(-1);
    expect(JSON.stringify(last.messages)).not.toContain('primeira');
  });

  it('refuses an unknown clinic, naming the ones there are, and a malformed id', async () => {
    const unknown = await chat('oi\n', ['--clinic', '42']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('clinic 42 does not exist');
    expect(unknown.stderr).toContain('1 "Clínica Sorriso Paulista"');
    const malformed = await chat('oi\n', ['--clinic', 'abc']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain('--clinic expects a clinic id');
    expect(openai.chatRequests()).toHaveLength(0);
  });

  it('takes another model with --model', async () => {
    openai.queueChat({ text: 'ok' });
    const result = await chat('oi\n', ['--clinic', '1', '--model', 'openai:other-model']);
    expect(result.code, result.stderr).toBe(0);
    expect(openai.chatRequests()[0].model).toBe('other-model');
  });

  it('shows every tool call with its result, and gives a clinic with an agenda the booking prompt and tools, booking nothing', async () => {
    const db = createDatabase({ dataDir });
    try {
      await db.update('clinicas_com_atendentes', { id: 1 }, { agenda: JSON.stringify({ provider: 'interno', dias: 30 }) });
    } finally {
      await db.close();
    }
    openai.queueChat(
      {
        tool_calls: [
          { name: 'buscar_protocolo', arguments: {} },
          { name: 'ver_horarios', arguments: {} },
        ],
      },
      { tool_calls: [{ name: 'agendar', arguments: { inicio: '2000-01-03T10:00' } }] },
      { text: 'Esse horário não está livre.' },
    );
    try {
      const result = await chat('quero marcar\n');
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('agenda: interno (booking tools on; nothing is booked in a test conversation)');
      expect(result.stderr).toMatch(/^\[tool\] buscar_protocolo \{\} → \{"nome":"Lentes de contato dental"/m);
      const listed = /^\[tool\] ver_horarios \{\} → (.*)$/m.exec(result.stderr)?.[1];
      const horarios = JSON.parse(listed!).horarios as Array<{ inicio: string; texto: string }>;
      expect(horarios.length).toBeGreaterThan(0);
      expect(result.stderr).toContain(
        `[tool] agendar {"inicio":"2000-01-03T10:00"} → {"status":"indisponivel","alternativas":${JSON.stringify(horarios)}}`,
      );
      const [first] = openai.chatRequests();
      expect(first.tools.map((t: any) => t.function.name)).toEqual([
        'buscar_lead',
        'buscar_clinica',
        'buscar_protocolo',
        'transferir',
        'ver_horarios',
        'agendar',
        'cancelar_agendamento',
      ]);
      expect(first.messages[0].content).toContain('a pessoa não tem avaliação marcada.');
      const after = createDatabase({ dataDir });
      try {
        expect(await after.find('agendamentos', {})).toEqual([]);
      } finally {
        await after.close();
      }
    } finally {
      const reset = createDatabase({ dataDir });
      await reset.update('clinicas_com_atendentes', { id: 1 }, { agenda: null });
      await reset.close();
    }
  });
});
