// The agent's system prompt from the shipped template (flows/prompts/agent-system.md): the clinic's
// and protocol's rows, today's date and the clinic's business hours at the given instant.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSystemPrompt, HOURS_UNKNOWN_LINE, hoursLine } from '../../nodes/lead/lib/agent-prompt.js';

const TEMPLATE = readFileSync(join(import.meta.dirname, '../../flows/prompts/agent-system.md'), 'utf8');
const HOURS = JSON.stringify({ timezone: 'America/Sao_Paulo', seg: '08:00-12:00,13:00-18:00', sex: '08:00-18:00', sab: '08:00-12:00' });
const clinic = (horario_atendimento: string | null) => ({
  id: 1,
  nome: 'Clínica Sorriso',
  endereco: 'Rua A, 1',
  posicionamento: 'Implantes',
  hunter_nome: 'Mariana',
  horario_atendimento,
});
const protocol = { id: 1, nome: 'Lentes', descricao: 'Lentes de porcelana', preco: 'R$ 1.200' };
const FRIDAY_EVENING = Date.parse('2025-03-14T19:00:00-03:00');

/** The lines of the prompt's business-hours section (its heading to the next heading). */
function hoursSection(prompt: string): string[] {
  const lines = prompt.split('\n');
  const start = lines.indexOf('## Horário de atendimento');
  expect(start, 'the prompt has a "## Horário de atendimento" section').toBeGreaterThan(-1);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  return lines.slice(start + 1, end);
}

describe('buildSystemPrompt', () => {
  it('states whether the clinic is open at the given instant and when it opens next, in its own section', () => {
    const prompt = buildSystemPrompt(clinic(HOURS), protocol, TEMPLATE, FRIDAY_EVENING);
    const section = hoursSection(prompt);
    expect(section[0]).toBe('A clínica está fechada agora; abre amanhã, sábado, às 08:00 (horário de America/Sao_Paulo).');
    expect(section.join(' ')).toMatch(/nunca prometa resposta imediata/);
    expect(prompt).toContain('Hoje é sexta-feira, 14 de março de 2025.');
    expect(prompt).not.toContain('{{');

    const mondayMorning = Date.parse('2025-03-17T09:00:00-03:00');
    expect(hoursSection(buildSystemPrompt(clinic(HOURS), protocol, TEMPLATE, mondayMorning))[0]).toBe(
      'A clínica está aberta agora, até o meio-dia (horário de America/Sao_Paulo).',
    );
  });

  it('a clinic without hours answers at any hour; malformed hours give a neutral line instead of failing', () => {
    expect(hoursSection(buildSystemPrompt(clinic(null), protocol, TEMPLATE, FRIDAY_EVENING))[0]).toBe('A clínica atende a qualquer hora.');
    expect(hoursSection(buildSystemPrompt(clinic('{"seg": "25:00-26:00"}'), protocol, TEMPLATE, FRIDAY_EVENING))[0]).toBe(
      HOURS_UNKNOWN_LINE,
    );
    expect(hoursLine('não é json', FRIDAY_EVENING)).toBe('Horário de atendimento não informado.');
    expect(hoursSection(buildSystemPrompt(null, null, TEMPLATE, FRIDAY_EVENING))[0]).toBe('A clínica atende a qualquer hora.');
  });
});
