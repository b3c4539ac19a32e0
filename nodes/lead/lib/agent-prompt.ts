// Prompt pieces of the `ai.agent` node: the system prompt from a template file filled with the
// clinic's and protocol's rows, and the lead's words wrapped as quoted data (never instructions).
//
// Contract:
//   - the system prompt is filled by renderTemplate (nodes/ai/lib/prompt-template.ts): an unknown
//     placeholder is an error, HTML comments are removed.
//   - quoteLeadText: the text goes between <mensagem_do_lead> tags; any such tag inside the text is
//     neutralised so the lead cannot close the quote and write "outside" it.
//   - memoryToHistory: `lead` rows become user turns (quoted like the current input), `agent` rows
//     assistant turns, `operator` rows (typed by hand by a person of the clinic on its phone)
//     assistant turns too, as what the clinic said, opened by OPERATOR_MARKER on a line of its own;
//     oldest first, in the rows' order; blank rows are skipped. Consecutive turns of one role are
//     left as they are (a provider that needs alternating roles merges them: anthropic-chat.ts).
//   - hoursLine: the clinic's business hours at an instant as one Portuguese line (describeHours);
//     a malformed `horario_atendimento` gives a neutral line instead of failing the agent.
import type { ChatMessage } from '../../../adapters/ai/chat-model.js';
import { describeHours, parseBusinessHours } from '../../../adapters/hours/business-hours.js';
import type { JsonValue } from '../../../engine/types.js';
import { clinicTimeZone, localDateTime } from '../../ai/lib/local-time.js';
import { renderTemplate } from '../../ai/lib/prompt-template.js';

const OPEN = '<mensagem_do_lead>';
const CLOSE = '</mensagem_do_lead>';

/** The lead's words as quoted data for the user turn. */
export function quoteLeadText(text: string): string {
  const neutral = text.replace(/<\s*\/?\s*mensagem_do_lead\s*>/gi, (tag) => tag.replace(/</g, '‹').replace(/>/g, '›'));
  return `${OPEN}\n${neutral.trim()}\n${CLOSE}`;
}

/**
 * First line of an `operator` row's assistant turn: tells the model that a person of the clinic's
 * team wrote the text below by hand (not the model itself), so it neither repeats nor contradicts it
 * unknowingly.
 */
export const OPERATOR_MARKER = '[Mensagem escrita por uma pessoa da equipe da clínica]';

/** An `operator` row's text as the assistant turn the model reads. */
export function operatorTurnText(text: string): string {
  return `${OPERATOR_MARKER}\n${text.trim()}`;
}

/** Rows of wf_chat_histories (oldest first) as chat history. */
export function memoryToHistory(rows: Array<Record<string, JsonValue>>): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (const row of rows) {
    const content = typeof row.content === 'string' ? row.content.trim() : '';
    if (!content) continue;
    if (row.type === 'agent') history.push({ role: 'assistant', content });
    else if (row.type === 'operator') history.push({ role: 'assistant', content: operatorTurnText(content) });
    else history.push({ role: 'user', content: quoteLeadText(content) });
  }
  return history;
}

/** Text of a column for the prompt; null and missing become ''. */
export function text(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A database row as the flow read it (`db.get` output): column name to JSON value. */
export type Row = Record<string, JsonValue>;

/** Said when the clinic's hours cannot be read: the agent then promises no time at all. */
export const HOURS_UNKNOWN_LINE = 'Horário de atendimento não informado.';

/** The clinic's business hours at `nowMs` (ms since the epoch) as one line for the prompt. */
export function hoursLine(horarioAtendimento: JsonValue | undefined, nowMs: number): string {
  try {
    return describeHours(parseBusinessHours(horarioAtendimento), nowMs);
  } catch {
    return HOURS_UNKNOWN_LINE;
  }
}

/**
 * The agent's system prompt for one clinic: the `template` text (flows/prompts/agent-system.md) filled
 * with the clinic's row and its protocol's (a null row fills its placeholders with ''), the date
 * (`{{data_hoje}}`, with its weekday) and time (`{{hora_agora}}`) at `nowMs` (ms since the epoch) in
 * the clinic's time zone (`{{fuso_horario}}`, its hours' zone: see clinicTimeZone), and the clinic's
 * business hours then (`{{horario_atendimento}}`, see hoursLine). Shared by `ai.agent` and `leadflow
 * chat`, so the test path talks with the same prompt as the leads.
 */
export function buildSystemPrompt(clinic: Row | null, protocol: Row | null, template: string, nowMs: number = Date.now()): string {
  const now = localDateTime(nowMs, clinicTimeZone(clinic?.horario_atendimento));
  return renderTemplate(template, {
    clinica_nome: text(clinic?.nome),
    clinica_endereco: text(clinic?.endereco),
    clinica_posicionamento: text(clinic?.posicionamento),
    hunter_nome: text(clinic?.hunter_nome),
    protocolo_nome: text(protocol?.nome),
    protocolo_descricao: text(protocol?.descricao),
    protocolo_preco: text(protocol?.preco),
    horario_atendimento: hoursLine(clinic?.horario_atendimento, nowMs),
    data_hoje: now.date,
    hora_agora: now.time,
    fuso_horario: now.zone,
  });
}

/** The lead's upcoming appointment as the booking prompt states it (lib/booking-tools.ts upcomingShown). */
export interface UpcomingForPrompt {
  texto: string;
  status: string;
}

/** `{{agendamento_atual}}` of the booking prompt: the lead's upcoming appointment, or that there is none. */
export function upcomingLine(upcoming: UpcomingForPrompt | null): string {
  if (!upcoming) return 'a pessoa não tem avaliação marcada.';
  const confirmed = upcoming.status === 'confirmado' ? ' (presença já confirmada pela pessoa)' : '';
  return `a pessoa já tem uma avaliação marcada para ${upcoming.texto}${confirmed}. Para mudar, use agendar com o novo horário (remarca); para desmarcar, cancelar_agendamento.`;
}

/**
 * The booking part of the system prompt (flows/prompts/agent-booking.md), appended for a clinic with
 * an agenda: `template` filled with `{{hunter_nome}}` (the clinic's) and `{{agendamento_atual}}`
 * (upcomingLine). Shared by `ai.agent` and `leadflow chat`.
 */
export function buildBookingPrompt(clinic: Row | null, template: string, upcoming: UpcomingForPrompt | null): string {
  return renderTemplate(template, { hunter_nome: text(clinic?.hunter_nome), agendamento_atual: upcomingLine(upcoming) });
}
