// The date and time the agent's system prompt states are the clinic's: in the zone of its business
// hours (default America/Sao_Paulo), at an instant where UTC is already on the next day
// (2026-03-10T01:30Z is Monday 2026-03-09 22:30 in São Paulo). Read from what the ai.agent node sends
// the provider (real SDK against the fake), with the shipped template and the host clock.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAiService, type AiService } from '../../adapters/ai/ai-service.js';
import { settableClock } from '../../adapters/clock.js';
import type { TableOperations } from '../../adapters/db/table-ops.js';
import { NodeRegistry } from '../../engine/registry.js';
import type { JsonValue } from '../../engine/types.js';
import { clinicTimeZone, localDateTime } from '../../nodes/ai/lib/local-time.js';
import { coreNodes } from '../../nodes/index.js';
import aiAgent from '../../nodes/lead/ai-agent.js';
import { startFakeAnthropic, type FakeAnthropic } from '../fakes/fake-anthropic.js';
import { runFlow, shutdownEngines } from '../helpers/run-flow.js';

const TEMPLATE = readFileSync(join(import.meta.dirname, '../../flows/prompts/agent-system.md'), 'utf8');
/** Monday 22:30 in São Paulo, Tuesday 01:30 in UTC, Tuesday 10:30 in Tokyo. */
const NIGHT = Date.parse('2026-03-10T01:30:00Z');

describe('the clinic-local date and time', () => {
  it("takes the zone of the clinic's hours, whatever else in them is malformed; São Paulo when they name none or an unknown one", () => {
    expect(clinicTimeZone('{"timezone": "Asia/Tokyo", "seg": "08:00-18:00"}')).toBe('Asia/Tokyo');
    expect(clinicTimeZone({ timezone: 'america/manaus', seg: '25:00-26:00' })).toBe('America/Manaus');
    for (const none of [null, undefined, '', 'não é json', '{"seg": "08:00-18:00"}', { timezone: 'Lua/Base' }, { timezone: 3 }])
      expect(clinicTimeZone(none as JsonValue | undefined)).toBe('America/Sao_Paulo');
  });

  it('gives the weekday, date and time of that zone, in Portuguese', () => {
    expect(localDateTime(NIGHT, 'America/Sao_Paulo')).toEqual({
      date: 'segunda-feira, 9 de março de 2026',
      time: '22:30',
      zone: 'America/Sao_Paulo',
    });
    expect(localDateTime(NIGHT, 'Asia/Tokyo')).toEqual({ date: 'terça-feira, 10 de março de 2026', time: '10:30', zone: 'Asia/Tokyo' });
  });
});

describe('ai.agent states the clinic-local date and time in its system prompt', () => {
  const registry = new NodeRegistry([...coreNodes, aiAgent]);
  const db = { find: async () => [] } as unknown as TableOperations;
  let anthropic: FakeAnthropic;
  let ai: AiService;
  beforeAll(async () => {
    anthropic = await startFakeAnthropic();
    ai = createAiService({ ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: anthropic.baseURL });
  });
  afterAll(() => anthropic.close());
  afterEach(() => shutdownEngines());

  /** The system prompt ai.agent sends for a clinic with these hours, at NIGHT by the host clock. */
  async function systemPrompt(hours: string | null): Promise<string> {
    anthropic.reset();
    anthropic.queue({ text: 'Boa noite!' });
    const { record } = await runFlow(
      `
name: answer
steps:
  - id: agent
    type: ai.agent
    params:
      lead: { id: 11, clinica_id: 3, remotejid: "5511987654321", nome: Ana }
      clinic: "{{ trigger.body.clinic }}"
      protocol: null
      input: vocês atendem amanhã?
      prompt: "{{ trigger.body.prompt }}"
      model: anthropic:claude-sonnet-4-6
      handoff_url: http://127.0.0.1:9/handoff-agenteia
`,
      {
        body: { prompt: TEMPLATE, clinic: { id: 3, nome: 'Clínica Sorriso', horario_atendimento: hours } },
        engine: { registry, services: { ai, db, clock: settableClock(NIGHT) } },
      },
    );
    expect(record.status).toBe('success');
    const [request] = anthropic.messageRequests();
    return request.system as string;
  }

  it("a São Paulo clinic (named, or by default) reads Monday 22:30, not UTC's Tuesday", async () => {
    const monday = 'Hoje é segunda-feira, 9 de março de 2026. Agora são 22:30 no horário da clínica (America/Sao_Paulo).';
    expect(await systemPrompt(JSON.stringify({ timezone: 'America/Sao_Paulo', seg: '08:00-18:00' }))).toContain(monday);
    const byDefault = await systemPrompt(null);
    expect(byDefault).toContain(monday);
    expect(byDefault).not.toContain('terça-feira');
  });

  it('a clinic in another zone reads its own date and time', async () => {
    expect(await systemPrompt(JSON.stringify({ timezone: 'Asia/Tokyo', ter: '08:00-18:00' }))).toContain(
      'Hoje é terça-feira, 10 de março de 2026. Agora são 10:30 no horário da clínica (Asia/Tokyo).',
    );
  });
});
