// What the console makes of the server's English and of an execution's length: the API's `error`
// texts in Portuguese (known ones mapped, Portuguese ones kept, others by status), the flows' stop
// reasons (known, with a variable part, unknown quoted), and one duration for a waiting execution on
// the list, its facts and its waterfall.
import { describe, expect, it } from 'vitest';
import { waterfallLayout } from '../../console/src/components/waterfall-layout.js';
import { executionDurationText, executionMs } from '../../console/src/execution-time.js';
import { apiErrorText, stopReasonText } from '../../console/src/i18n/server-texts.js';

describe('console texts', () => {
  it("puts the API's errors in Portuguese", () => {
    expect(apiErrorText(404, 'no such lead')).toBe('Lead não encontrado (talvez tenha sido excluído).');
    expect(apiErrorText(409, 'a clínica não tem agenda configurada')).toBe('a clínica não tem agenda configurada');
    expect(apiErrorText(409, 'window closed for free text')).toBe('Não foi possível agora: a situação mudou. Recarregue e tente de novo.');
    expect(apiErrorText(502, 'bad gateway')).toBe('O servidor teve um problema. Tente de novo.');
  });

  it('puts the stop reasons in Portuguese, quoting an unknown one', () => {
    expect(stopReasonText('lead opted out')).toBe('o lead pediu para não receber mensagens');
    expect(stopReasonText('appointment 42 confirmed')).toBe('agendamento 42 confirmado');
    expect(stopReasonText('something new')).toBe('motivo registrado pelo fluxo: “something new”');
  });

  it("reads a waiting execution's duration the same everywhere", () => {
    const now = Date.UTC(2026, 0, 5, 12, 10, 0);
    const record = {
      status: 'waiting' as const,
      created_at: new Date(now - 125_000).toISOString(),
      updated_at: new Date(now - 120_000).toISOString(),
      finished_at: null,
      wake_at: now + 60_000,
      steps: [],
    };
    expect(executionMs(record, now)).toBe(125_000);
    expect(waterfallLayout({ ...record, finished_at: undefined }, now).total).toBe(125_000);
    expect(executionDurationText(record, now)).toBe('2 min 5 s até agora');
    expect(executionDurationText({ ...record, status: 'success', finished_at: new Date(now - 120_000).toISOString() }, now)).toBe('5 s');
  });
});
