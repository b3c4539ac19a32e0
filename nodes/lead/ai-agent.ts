import { Type } from '../../engine/typebox.js';
import type { TableOperations } from '../../adapters/db/table-ops.js';
import type { JsonValue } from '../../engine/types.js';
import { modelChainParams } from '../ai/lib/model-params.js';
import type { Row } from './lib/agent-prompt.js';
import { agentTools, BOOKING_TIMEOUT_MS, type ToolEffects } from './lib/agent-tools.js';
import type { BookingEffects, BookingEvent } from './lib/booking-tools.js';
import type { AgentTool } from '../../adapters/ai/agent-runner.js';
import type { NodeContext } from '../../engine/types.js';
import type { BookingService } from '../../adapters/calendar/booking-service.js';
import { defineServiceNode } from '../services.js';
import { lazyModule } from '../lazy-module.js';

/** The booking tools (the calendar's date library), loaded on the first run of a clinic with an agenda. */
const bookingToolsModule = lazyModule(() => import('./lib/booking-tools.js'));
/** The prompt builder (with the business hours' time-zone library), loaded on the first run. */
const agentPrompt = lazyModule(() => import('./lib/agent-prompt.js'));
/** The model-chain runner, loaded on the first run: describing or validating flows never needs it. */
const agentRunner = lazyModule(() => import('../../adapters/ai/agent-runner.js'));

/**
 * The lead's memory: its rows of wf_chat_histories (clinic and phone) with id below `beforeId` (0:
 * every one), the last `limit` of them (0: none, no query), oldest first.
 */
async function memoryRows(
  db: TableOperations,
  lead: { clinica_id: number; remotejid: string },
  beforeId: number,
  limit: number,
): Promise<Row[]> {
  if (limit === 0) return [];
  const where: Record<string, unknown> = { clinica_id: lead.clinica_id, session_id: lead.remotejid };
  if (beforeId > 0) where.id = { lt: beforeId };
  const rows = await db.find('wf_chat_histories', { where, order_by: [{ column: 'id', direction: 'desc' }], limit });
  return rows.reverse();
}

/**
 * The booking part of one run (lib/booking-tools.ts), or null when there is no booking prompt, the
 * clinic has no agenda, or the store cannot be read (logged: the agent then runs without booking).
 */
async function bookingSetup(
  booking: () => BookingService,
  lead: { id: number; clinica_id: number },
  clinic: Row | null,
  params: { booking_prompt: string; booking_timeout_ms: number },
  ctx: NodeContext,
  effects: BookingEffects,
): Promise<{ prompt: string; tools: AgentTool[] } | null> {
  if (params.booking_prompt.trim() === '') return null;
  try {
    const service = booking();
    const store = service.open(AbortSignal.any([ctx.signal, AbortSignal.timeout(params.booking_timeout_ms)]));
    if (!(await store.clinic(lead.clinica_id))) return null;
    const { bookingTools, upcomingShown } = await bookingToolsModule();
    const upcoming = await upcomingShown(store, lead.clinica_id, lead.id);
    const { buildBookingPrompt } = await agentPrompt();
    const binding = {
      leadId: lead.id,
      clinicId: lead.clinica_id,
      open: (s: AbortSignal) => service.open(s),
      timeoutMs: params.booking_timeout_ms,
    };
    return { prompt: buildBookingPrompt(clinic, params.booking_prompt, upcoming), tools: bookingTools(binding, ctx, effects) };
  } catch (err) {
    ctx.log('warn', 'booking unavailable for this turn: the agent runs without its tools', {
      clinica_id: lead.clinica_id,
      error: (err as Error)?.name ?? 'Error',
      message: String((err as Error)?.message ?? err).slice(0, 300),
    });
    return null;
  }
}

/**
 * `ai.agent`: one turn of the WhatsApp agent for the current lead (original spec §4.1 "Agent").
 * Contract:
 *   - The current lead, its clinic and the clinic's protocol are the rows the flow read (`lead`,
 *     `clinic`, `protocol`); the node reads none of them again. Every tool is bound to that lead
 *     (lib/agent-tools.ts): identities the model passes are ignored.
 *   - System prompt: the `prompt` template (a file the flow declares under `files:`) with `{{placeholders}}` of the clinic and protocol (operator data
 *     only; nothing the lead wrote goes into the system prompt).
 *   - Memory: rows of wf_chat_histories of (clinic, lead phone) with id < `memory_before_id` (0: all),
 *     the last `memory_limit`, oldest first. The lead's words (memory and `input`) are quoted data;
 *     `operator` rows (typed by hand by the clinic's team) are what the clinic said, marked as such
 *     (lib/agent-prompt.ts memoryToHistory).
 *   - Booking (CONTRACT §12, lib/booking-tools.ts): with a non-empty `booking_prompt` and a clinic
 *     the booking store finds an `agenda` for, the booking prompt (with the lead's upcoming
 *     appointment) is appended to the system prompt and ver_horarios / agendar /
 *     cancelar_agendamento are given, bound to this lead; `transferir` then no longer lists
 *     scheduling as a reason. A store that cannot be read runs the turn without booking (logged).
 *     Output `agendamento`: what the tools changed, for the flow's Hunter notice and reminders.
 *   - Models: runAgent's chain (primary, fallbacks, 429 → wait → contingency). An empty answer is a
 *     failure: the step fails and nothing is output to send.
 */
export default defineServiceNode({
  type: 'ai.agent',
  services: ['ai', 'db', 'booking'],
  description:
    "Answers the current lead as the clinic's WhatsApp agent: system prompt from a template (a file the flow reads) filled with the clinic's and protocol's rows (as the flow read them), the conversation memory of wf_chat_histories, the lead's combined input as quoted data, and the tools buscar_lead, buscar_clinica, buscar_protocolo and transferir(motivo) bound to this lead and answered from those rows (transferir POSTs to the handoff endpoint); for a clinic with an agenda (CONTRACT §12) and a `booking_prompt`, also ver_horarios, agendar and cancelar_agendamento on this lead's appointment, the booking prompt appended with the lead's upcoming appointment. Model chain with fallback and 429 -> wait -> contingency; an empty answer fails the step.",
  params: Type.Object(
    {
      lead: Type.Object(
        { id: Type.Integer({ minimum: 1 }), clinica_id: Type.Integer({ minimum: 1 }), remotejid: Type.String({ minLength: 1 }) },
        {
          additionalProperties: true,
          description:
            'The current lead: its `leads` row as the flow read it (best read just before, inside the lock). Every tool acts on this lead only; buscar_lead answers its nome, telefone, orcamento, respostas and created_at.',
          examples: ['{{ steps.current }}', { id: 11, clinica_id: 3, remotejid: '5511987654321', nome: 'Ana', telefone: '11987654321' }],
        },
      ),
      clinic: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
        description:
          "The lead's clinic: its `clinicas_com_atendentes` row (nome, endereco, posicionamento, hunter_nome fill the prompt and buscar_clinica), or null.",
        examples: [
          '{{ steps.clinic }}',
          { id: 3, nome: 'Clínica Sorriso', endereco: 'Rua A, 10', posicionamento: 'Lentes', hunter_nome: 'Rafa' },
        ],
      }),
      protocol: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], {
        description:
          "The clinic's protocol: its first `protocolos` row by id (nome, descricao, preco fill the prompt and buscar_protocolo), or null.",
        examples: ['{{ steps.protocol }}', { id: 1, clinica_id: 3, nome: 'Lentes', descricao: 'Lentes de resina', preco: 'R$ 900' }],
      }),
      instancia_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
        default: null,
        description: 'The WhatsApp instance the lead wrote to; sent to the handoff so it picks the right clinic.',
        examples: ['{{ steps.instance.id }}'],
      }),
      input: Type.String({
        minLength: 1,
        maxLength: 100_000,
        description: "The lead's combined input of this burst (texts in order, media as converted text).",
        examples: ['{{ steps.combined.text }}'],
      }),
      prompt: Type.String({
        minLength: 1,
        description:
          "System prompt template (Markdown) with {{placeholders}}: clinica_nome, clinica_endereco, clinica_posicionamento, hunter_nome, protocolo_nome, protocolo_descricao, protocolo_preco, data_hoje. Usually a file the flow declares under `files:`, so it is part of the flow's version.",
        examples: ['{{ files.agent_system }}'],
      }),
      memory_before_id: Type.Integer({
        minimum: 0,
        default: 0,
        description: "Only memory rows with a smaller id (e.g. the row of this turn's input); 0: every row.",
        examples: ['{{ steps.remember_input.row.id }}'],
      }),
      memory_limit: Type.Integer({
        minimum: 0,
        maximum: 500,
        default: 50,
        description: 'Most memory rows given to the model (the latest).',
        examples: [50],
      }),
      ...modelChainParams,
      deadline_ms: Type.Integer({
        minimum: 1000,
        maximum: 900_000,
        default: 120_000,
        description: 'Total time for every attempt, tool call and wait, ms.',
        examples: [120_000],
      }),
      max_tokens: Type.Integer({
        minimum: 1,
        maximum: 32_000,
        default: 2048,
        description: 'Most output tokens per call.',
        examples: [2048],
      }),
      booking_prompt: Type.String({
        default: '',
        description:
          "Booking part of the system prompt (CONTRACT §12), with {{placeholders}} hunter_nome and agendamento_atual (the lead's upcoming appointment): appended, and the tools ver_horarios, agendar and cancelar_agendamento given, only when the clinic has an `agenda` (read by the booking store). Empty: no booking, whatever the clinic.",
        examples: ['{{ files.agent_booking }}'],
      }),
      booking_timeout_ms: Type.Integer({
        minimum: 500,
        maximum: 60_000,
        default: BOOKING_TIMEOUT_MS,
        description:
          'Longest a booking tool call waits for the calendar, ms: past it (or on any failure) the tool answers {"erro": "não consegui ver a agenda agora"}.',
        examples: [BOOKING_TIMEOUT_MS],
      }),
      handoff_url: Type.String({
        pattern: '^https?://',
        description: 'Where transferir POSTs `{telefone, motivo, instancia_id}`: `{PUBLIC_BASE_URL}/handoff-agenteia`.',
        examples: ["{{ env.PUBLIC_BASE_URL ? env.PUBLIC_BASE_URL : 'http://127.0.0.1:' & env.PORT }}/handoff-agenteia"],
      }),
      secret: Type.String({
        default: '',
        description: 'Sent as X-Webhook-Secret to the handoff endpoint when not empty (LEADFLOW_WEBHOOK_SECRET); masked in records.',
        examples: ['{{ env.LEADFLOW_WEBHOOK_SECRET }}'],
      }),
      handoff_timeout_ms: Type.Integer({
        minimum: 100,
        maximum: 120_000,
        default: 15_000,
        description: 'Longest wait for the handoff endpoint, ms.',
        examples: [15_000],
      }),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{text, model_used, transferred, motivo, agendamento, attempts, tool_calls}`: the non-empty reply, the `provider:model` that wrote it, whether transferir handed the lead over in this run (and its reason), what the booking tools changed (`{evento: marcado|remarcado|cancelado, agendamento_id, texto, inicio}`, a booking then a move in one run still `marcado`, a booking then its cancellation nothing; null: no change, an unchanged booking or a dry run), every model attempt and every tool call `{model, name, arguments, ok, error?, ms}`.',
  },
  examples: [
    {
      title: 'Answer the lead',
      step: {
        id: 'agent',
        type: 'ai.agent',
        params: {
          lead: '{{ vars.lead }}',
          clinic: '{{ vars.clinic }}',
          protocol: '{{ vars.protocol }}',
          instancia_id: '{{ vars.instance_id }}',
          input: '{{ vars.input }}',
          prompt: '{{ files.agent_system }}',
          model: '{{ env.LEADFLOW_MODEL_PRIMARY }}',
          fallback_models: ['{{ env.LEADFLOW_MODEL_FALLBACK }}'],
          contingency_model: '{{ env.LEADFLOW_MODEL_CONTINGENCY }}',
          rate_limit_wait_ms: '{{ env.LEADFLOW_RATE_LIMIT_WAIT_MS }}',
          handoff_url: 'http://127.0.0.1:3000/handoff-agenteia',
        },
      },
    },
  ],
  async run(params, ctx) {
    const { ai, db } = ctx.services;
    const lead = params.lead;
    const clinic = params.clinic as Row | null;
    const protocol = params.protocol as Row | null;
    const { buildSystemPrompt, memoryToHistory, quoteLeadText } = await agentPrompt();
    // An earlier attempt's booking (its checkpoint, lib/booking-tools.ts) is still this run's event.
    const saved = ctx.state?.agendamento;
    const bookingEffects: BookingEffects = { agendamento: saved && typeof saved === 'object' ? (saved as unknown as BookingEvent) : null };
    const booking = await bookingSetup(() => ctx.services.booking, lead, clinic, params, ctx, bookingEffects);
    const base = buildSystemPrompt(clinic, protocol, params.prompt, ctx.services.clock?.now() ?? Date.now());
    const system = booking ? `${base}\n\n${booking.prompt}` : base;

    const history = memoryToHistory(await memoryRows(db, lead, params.memory_before_id, params.memory_limit));

    const effects: ToolEffects = { transferred: false, motivo: null };
    const tools = agentTools(
      {
        lead: lead as Row & typeof lead,
        clinic,
        protocol,
        instancia_id: params.instancia_id,
        handoff: { url: params.handoff_url, secret: params.secret, timeout_ms: params.handoff_timeout_ms },
        booking: booking !== null,
      },
      ctx,
      effects,
    );
    if (booking) tools.push(...booking.tools);

    const { runAgent } = await agentRunner();
    const result = await runAgent({
      ai,
      models: {
        primary: params.model,
        fallbacks: params.fallback_models,
        ...(params.contingency_model ? { contingency: params.contingency_model } : {}),
      },
      system,
      history,
      input: quoteLeadText(params.input),
      tools,
      maxTokens: params.max_tokens,
      rateLimitWaitMs: params.rate_limit_wait_ms,
      deadlineMs: params.deadline_ms,
      signal: ctx.signal,
      onAttempt: (a) => ctx.log(a.outcome === 'ok' ? 'debug' : 'warn', 'agent attempt', { ...a }),
    });
    return {
      text: result.text,
      model_used: result.model_used,
      transferred: effects.transferred,
      motivo: effects.motivo,
      agendamento: bookingEffects.agendamento as unknown as JsonValue,
      attempts: result.attempts as unknown as JsonValue,
      tool_calls: result.tool_calls as unknown as JsonValue,
    };
  },
});
