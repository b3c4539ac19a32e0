// The ai.agent node on its own: it takes the lead, clinic and protocol rows the flow read as
// parameters, reads only the conversation memory from the database, and its tools answer from
// those rows, for the current lead only.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAiService, type AiService } from '../../adapters/ai/ai-service.js';
import { settableClock } from '../../adapters/clock.js';
import type { TableOperations } from '../../adapters/db/table-ops.js';
import { NodeRegistry } from '../../engine/registry.js';
import { coreNodes } from '../../nodes/index.js';
import aiAgent from '../../nodes/lead/ai-agent.js';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai.js';
import { runFlow, shutdownEngines, stepOutput } from '../helpers/run-flow.js';

const registry = new NodeRegistry([...coreNodes, aiAgent]);
let openai: FakeOpenAi;
let ai: AiService;
let promptFile: string;
beforeAll(async () => {
  openai = await startFakeOpenAi();
  ai = createAiService({ OPENAI_API_KEY: 'sk-o', OPENAI_BASE_URL: openai.baseURL });
  promptFile = join(mkdtempSync(join(tmpdir(), 'agent-prompt-')), 'system.md');
  writeFileSync(promptFile, 'Clínica {{clinica_nome}} ({{hunter_nome}}); protocolo {{protocolo_nome}} por {{protocolo_preco}}.');
});
afterAll(() => openai.close());
afterEach(() => shutdownEngines());

/** A database that answers the memory and records every table read. */
function memoryDb(tables: string[]): TableOperations {
  return {
    get: async (table: string) => {
      tables.push(table);
      return null;
    },
    find: async (table: string) => {
      tables.push(table);
      return table === 'wf_chat_histories' ? [{ id: 5, type: 'agent', content: 'Olá! Como posso ajudar?' }] : [];
    },
  } as unknown as TableOperations;
}

const flow = () => `
name: answer
steps:
  - id: agent
    type: ai.agent
    params:
      lead: { id: 11, clinica_id: 3, remotejid: "5511987654321", nome: Maria Atual, telefone: "11987654321", transferido: false }
      clinic: { id: 3, nome: Clínica Sorriso, endereco: Rua A, posicionamento: Lentes, hunter_nome: Rafa, admin_telefones: "5511000000000" }
      protocol: { id: 1, clinica_id: 3, nome: Lentes de resina, descricao: Dez lentes, preco: R$ 900 }
      input: quanto custa?
      prompt: "{{ trigger.body.prompt }}"
      model: openai:gpt-4.1-mini
      handoff_url: http://127.0.0.1:9/handoff-agenteia
`;

describe('ai.agent', () => {
  it('fills the prompt from the clinic and protocol params and reads only the memory from the database', async () => {
    const tables: string[] = [];
    openai.queueChat(
      {
        tool_calls: [
          { name: 'buscar_lead', arguments: { id: 999 } },
          { name: 'buscar_clinica', arguments: { clinica_id: 99 } },
          { name: 'buscar_protocolo', arguments: {} },
        ],
      },
      { text: 'Custa R$ 900.' },
    );
    const { record } = await runFlow(flow(), {
      body: { prompt: readFileSync(promptFile, 'utf8') },
      engine: { registry, services: { ai, db: memoryDb(tables) } },
    });
    expect(record.status).toBe('success');
    expect(stepOutput(record, 'agent')).toMatchObject({ text: 'Custa R$ 900.', transferred: false });
    expect(tables).toEqual(['wf_chat_histories']);

    const [first, second] = openai.chatRequests();
    expect(first.messages[0]).toEqual({
      role: 'system',
      content: 'Clínica Clínica Sorriso (Rafa); protocolo Lentes de resina por R$ 900.',
    });
    expect(first.messages[1]).toEqual({ role: 'assistant', content: 'Olá! Como posso ajudar?' });
    const results = second.messages.filter((m: any) => m.role === 'tool').map((m: any) => JSON.parse(m.content));
    expect(results).toEqual([
      { nome: 'Maria Atual', telefone: '11987654321', orcamento: null, respostas: null, created_at: null },
      { nome: 'Clínica Sorriso', endereco: 'Rua A', posicionamento: 'Lentes', hunter_nome: 'Rafa' },
      { nome: 'Lentes de resina', descricao: 'Dez lentes', preco: 'R$ 900' },
    ]);
  });

  it("states the clinic's business hours in the prompt as of the host clock's now", async () => {
    openai.reset();
    openai.queueChat({ text: 'Amanhã às 8h alguém da equipe te responde.' });
    const hours = JSON.stringify({ timezone: 'America/Sao_Paulo', sex: '08:00-18:00', sab: '08:00-12:00' });
    const clock = settableClock(Date.parse('2025-03-14T19:00:00-03:00'));
    const { record } = await runFlow(flow().replace('admin_telefones: "5511000000000"', `horario_atendimento: '${hours}'`), {
      body: { prompt: 'Clínica {{clinica_nome}}. {{horario_atendimento}}' },
      engine: { registry, services: { ai, db: memoryDb([]), clock } },
    });
    expect(record.status).toBe('success');
    expect(openai.chatRequests()[0].messages[0]).toEqual({
      role: 'system',
      content: 'Clínica Clínica Sorriso. A clínica está fechada agora; abre amanhã, sábado, às 08:00 (horário de America/Sao_Paulo).',
    });
  });
});
