// The test path of the original (spec §4.1): a conversation with one clinic's agent without a lead,
// a gateway or the database's memory. Same system prompt as the leads' agent (buildSystemPrompt),
// clinic-bound tools, memory kept only in this process, one model (the contingency by default).
//
// Contract:
//   - Input: one message per line. Blank lines are skipped; `/reset` forgets the memory; `/sair`,
//     `/exit` or the end of the input ends the session.
//   - Output: each message of a reply (formatted and split as the lead would receive it) on its own
//     line on `out`, prefixed `agente> ` (line breaks inside a message kept). Notes, tool effects
//     and errors go to `err`, so `out` holds only the conversation. At the start `err` gets the
//     clinic's business-hours line the prompt carries (`horário: …`, as of the session's start).
//   - transferir sends nothing: it prints the reason on `err` and tells the model it worked.
//     buscar_lead answers that there is no lead (this is a test conversation).
//   - Every tool call is shown on `err` as `[tool] <name> <arguments JSON> → <result JSON>` (results
//     longer than 600 characters cut).
//   - A clinic with an `agenda` (CONTRACT §12) also gets the booking prompt (`bookingPromptFile`,
//     its `{{agendamento_atual}}`: none) and the booking tools: ver_horarios reads the clinic's real
//     free slots (its calendar provider included); agendar answers as the agent's would for a free
//     slot (`marcado`, with `teste: true` and agendamento_id 0) or `indisponivel` with alternatives,
//     and cancelar_agendamento `sem_agendamento`: nothing is booked or cancelled. A calendar that
//     cannot be read answers the agent's error JSON.
//   - A turn the model fails is reported on `err` and left out of the memory; the session goes on.
import { readFile } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import { runAgent, type AgentTool } from '../adapters/ai/agent-runner.js';
import type { AiService } from '../adapters/ai/ai-service.js';
import type { ChatMessage } from '../adapters/ai/chat-model.js';
import { systemClock, type Clock } from '../adapters/clock.js';
import type { TableOperations } from '../adapters/db/table-ops.js';
import type { JsonObject } from '../engine/types.js';
import type { BookingService } from '../adapters/calendar/booking-service.js';
import { buildBookingPrompt, buildSystemPrompt, hoursLine, quoteLeadText, type Row } from '../nodes/lead/lib/agent-prompt.js';
import { clinicTools } from '../nodes/lead/lib/agent-tools.js';
import { chatBookingTools, shownTools } from './chat-booking.js';
import { formatReply } from '../nodes/lead/text-split.js';
import { UsageError } from './host.js';

/** What runChatSession talks with (a clinic, one model, the prompt template) and through (lines in, `out` and `err`). */
export interface ChatSessionOptions {
  db: TableOperations;
  ai: Pick<AiService, 'chat'>;
  clinicaId: number;
  /** `provider:model` answering every turn. */
  model: string;
  /** System prompt template (flows/prompts/agent-system.md). */
  promptFile: string;
  /** The tester's messages, one per item. */
  lines: AsyncIterable<string>;
  out: Writable;
  err: Writable;
  /** Wait after a 429 before trying the model again, ms (LEADFLOW_RATE_LIMIT_WAIT_MS). */
  rateLimitWaitMs: number;
  /** Aborts the turn in flight (Ctrl-C). */
  signal?: AbortSignal;
  /** "Now" for the prompt's date and business hours, read once at the start; default the system clock. */
  clock?: Clock;
  /** The booking store; absent: no booking tools, whatever the clinic. */
  booking?: BookingService;
  /** Booking part of the prompt (flows/prompts/agent-booking.md), appended for a clinic with an agenda; absent: none. */
  bookingPromptFile?: string;
}

/** How a chat session went, counted over its turns (`chat` exits 1 when every turn failed). */
export interface ChatSessionSummary {
  /** Turns the agent answered. */
  answered: number;
  /** Turns that failed. */
  failed: number;
}

const EXIT_COMMANDS = new Set(['/sair', '/exit']);

function testTools(db: TableOperations, clinicaId: number, err: Writable): AgentTool[] {
  return [
    {
      name: 'buscar_lead',
      description: 'Dados do lead desta conversa. Nesta conversa de teste não há lead cadastrado. Sem argumentos.',
      parameters: { type: 'object', properties: {} },
      handler: async () => ({ teste: true, nota: 'Conversa de teste: não há lead cadastrado nem respostas de formulário.' }),
    },
    ...clinicTools({ clinic: () => db.get('clinicas_com_atendentes', { id: clinicaId }), protocol: () => clinicProtocol(db, clinicaId) }),
    {
      name: 'transferir',
      description: 'Transfere a conversa para o especialista humano da clínica. Nesta conversa de teste nada é enviado.',
      parameters: {
        type: 'object',
        properties: { motivo: { type: 'string', maxLength: 2000, description: 'Motivo da transferência, em uma frase.' } },
      },
      handler: async (args: JsonObject) => {
        const motivo = typeof args.motivo === 'string' ? args.motivo.trim() : '';
        err.write(`[transferir] the agent handed this conversation to the Hunter; reason: ${motivo || '(none)'}\n`);
        return { transferido: true, teste: true };
      },
    },
  ];
}

/** The booking prompt and tools of a clinic with an agenda (the contract above); null otherwise. */
async function chatAgenda(options: ChatSessionOptions, clinic: Row): Promise<{ prompt: string; tools: AgentTool[] } | null> {
  if (!options.booking || !options.bookingPromptFile) return null;
  const service = options.booking;
  let bookingClinic: Awaited<ReturnType<ReturnType<BookingService['open']>['clinic']>>;
  try {
    bookingClinic = await service.open().clinic(options.clinicaId);
  } catch (e) {
    options.err.write(`agenda: unreadable, no booking tools: ${(e as Error).message}\n`);
    return null;
  }
  if (!bookingClinic) return null;
  options.err.write(`agenda: ${bookingClinic.agenda.provider} (booking tools on; nothing is booked in a test conversation)\n`);
  let template: string;
  try {
    template = await readFile(options.bookingPromptFile, 'utf8');
  } catch (e) {
    options.err.write(`agenda: no booking prompt (${(e as Error).message}), no booking tools\n`);
    return null;
  }
  return { prompt: buildBookingPrompt(clinic, template, null), tools: chatBookingTools(service, options.clinicaId) };
}

/** The clinic's protocol, as the agent flow reads it: its first by id (extra rows are ignored), or null. */
function clinicProtocol(db: TableOperations, clinicaId: number): Promise<Row | null> {
  return db.get('protocolos', { clinica_id: clinicaId });
}

/**
 * Runs one test conversation with the clinic's agent until the input ends or `/sair` (the contract
 * above). An unknown clinic id is a UsageError listing the first known ones. Resolves with how many
 * turns were answered and how many failed.
 */
export async function runChatSession(options: ChatSessionOptions): Promise<ChatSessionSummary> {
  const { db, clinicaId, out, err } = options;
  const clinic = await db.get('clinicas_com_atendentes', { id: clinicaId });
  if (!clinic) {
    const known = await db.find('clinicas_com_atendentes', { order_by: [{ column: 'id', direction: 'asc' }], limit: 20 });
    const list = known.map((c) => `${c.id} ${JSON.stringify(c.nome)}`).join(', ');
    throw new UsageError(
      `clinic ${clinicaId} does not exist; ${list ? `clinics: ${list}` : 'there are no clinics yet (run `leadflow seed FILE`)'}`,
    );
  }
  const nowMs = (options.clock ?? systemClock).now();
  let system = buildSystemPrompt(clinic, await clinicProtocol(db, clinicaId), await readFile(options.promptFile, 'utf8'), nowMs);
  const tools = testTools(db, clinicaId, err);
  const agenda = await chatAgenda(options, clinic);
  if (agenda) {
    system = `${system}\n\n${agenda.prompt}`;
    tools.push(...agenda.tools);
  }
  let history: ChatMessage[] = [];
  const summary: ChatSessionSummary = { answered: 0, failed: 0 };
  err.write(
    `chatting with the agent of clinic ${clinicaId} ${JSON.stringify(clinic.nome)} on ${options.model}; memory lives in this process only. /reset forgets, /sair or Ctrl-D ends.\n`,
  );
  err.write(`horário: ${hoursLine(clinic.horario_atendimento, nowMs)}\n`);

  for await (const raw of options.lines) {
    const line = raw.trim();
    if (!line) continue;
    if (EXIT_COMMANDS.has(line.toLowerCase())) break;
    if (line.toLowerCase() === '/reset') {
      history = [];
      err.write('(memory cleared)\n');
      continue;
    }
    const input = quoteLeadText(line);
    try {
      const result = await runAgent({
        ai: options.ai,
        // The test path answers with one model; a 429 waits and tries it again.
        models: { primary: options.model, contingency: options.model },
        system,
        history,
        input,
        tools: shownTools(tools, err),
        rateLimitWaitMs: options.rateLimitWaitMs,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const reply = formatReply(result.text);
      for (const message of reply.messages) out.write(`agente> ${message}\n`);
      history = [...history, { role: 'user', content: input }, { role: 'assistant', content: reply.text }];
      summary.answered++;
    } catch (e) {
      if (options.signal?.aborted) break;
      summary.failed++;
      const cause = (e as Error).cause instanceof Error ? ` (last error: ${((e as Error).cause as Error).message})` : '';
      err.write(`leadflow chat: the agent did not answer: ${(e as Error).message}${cause}\n`);
    }
  }
  return summary;
}
