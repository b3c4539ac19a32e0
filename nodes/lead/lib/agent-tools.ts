// The agent's tools (CONTRACT.md §6), bound to the CURRENT lead.
//
// Contract:
//   - Every tool takes its identity (lead, clinic, phone, instance) from `AgentToolBinding`, built
//     by the node from its own parameters — never from the model. Arguments the model adds (a phone,
//     an id) are accepted by the schema and ignored.
//   - buscar_lead / buscar_clinica / buscar_protocolo answer an allow-listed projection (no tokens,
//     no other lead, no Hunter phone) of the rows the flow read and handed to the node.
//   - transferir(motivo) POSTs `{telefone, motivo, instancia_id}` to the handoff endpoint once per
//     run: a repeated call (the model asking twice, or the next model of the chain repeating it)
//     answers the first result without calling again. In dry-run the call is recorded, not made.
import type { AgentTool } from '../../../adapters/ai/agent-runner.js';
import type { JsonObject, JsonValue, NodeContext } from '../../../engine/types.js';
import type { Row } from './agent-prompt.js';

/**
 * What binds every tool to the current lead: the rows the flow read, the instance and the handoff
 * endpoint, built by the node from its own parameters (never from the model).
 */
export interface AgentToolBinding {
  /** The current lead's row (`leads`): its id, clinic and phone bind every tool. */
  lead: Row & { id: number; clinica_id: number; remotejid: string };
  /** The lead's clinic row (`clinicas_com_atendentes`), or null. */
  clinic: Row | null;
  /** The clinic's protocol row (`protocolos`, its first by id), or null. */
  protocol: Row | null;
  instancia_id: number | null;
  handoff: { url: string; secret: string; timeout_ms: number };
  /** The clinic books through the agent (it has an `agenda`, lib/booking-tools.ts): scheduling is no reason to transfer. */
  booking?: boolean;
}

/** Default bound of one booking tool call, ms (lib/booking-tools.ts): the calendar's calls abort after it. */
export const BOOKING_TIMEOUT_MS = 6000;

/** What the tools did during the run, for the node's output. */
export interface ToolEffects {
  transferred: boolean;
  motivo: string | null;
}

/** Accepts any arguments object; the model's values are ignored. */
/** Arguments of `transferir`: one schema object for every run. */
const TRANSFER_ARGS = {
  type: 'object',
  properties: { motivo: { type: 'string', maxLength: 2000, description: 'Motivo da transferência, em uma frase.' } },
};
/** `transferir`'s description for a clinic without an agenda: scheduling goes to the Hunter. */
const TRANSFER_WITHOUT_AGENDA =
  'Transfere este lead para o especialista humano da clínica (o lead não é avisado por esta ferramenta). Use quando: o lead quer agendar; você não tem a informação para responder; o lead pede um humano; ou o lead já mandou 3 ou mais mensagens engajadas.';
/** `transferir`'s description for a clinic with an agenda: the agent books itself (ver_horarios, agendar). */
const TRANSFER_WITH_AGENDA =
  'Transfere este lead para o especialista humano da clínica (o lead não é avisado por esta ferramenta). Para agendar, use ver_horarios e agendar; transfira quando: o lead quer um horário ou algo que a agenda não oferece (nenhum horário de ver_horarios serve, ou ver_horarios/agendar deram erro); você não tem a informação para responder; ou o lead pede um humano.';
const NO_ARGS = { type: 'object', properties: {}, description: 'No arguments: the tool always works on the current lead.' };

const pick = (row: Row | null, columns: string[]): JsonValue => (row ? Object.fromEntries(columns.map((c) => [c, row[c] ?? null])) : null);

/**
 * The agent's tools for one run, bound to `binding`'s lead (see the contract above). `transferir`
 * records its call on ctx (a dry run records, never calls) and answers a repeated call with the first
 * result; `effects` receives what the tools did, for the node's output.
 */
export function agentTools(binding: AgentToolBinding, ctx: NodeContext, effects: ToolEffects): AgentTool[] {
  let transfer: Promise<JsonValue> | undefined;

  const transferir = async (motivo: string): Promise<JsonValue> => {
    const body = { telefone: binding.lead.remotejid, motivo, ...(binding.instancia_id ? { instancia_id: binding.instancia_id } : {}) };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (binding.handoff.secret) headers['x-webhook-secret'] = binding.handoff.secret;
    const perform = ctx.recordOutbound({
      kind: 'http',
      method: 'POST',
      url: binding.handoff.url,
      headers: { 'content-type': 'application/json', ...(binding.handoff.secret ? { 'x-webhook-secret': '***' } : {}) },
      body,
    });
    if (!perform) {
      effects.transferred = true;
      effects.motivo = motivo;
      return { transferido: true, dry_run: true };
    }
    const response = await fetch(binding.handoff.url, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal: AbortSignal.any([AbortSignal.timeout(binding.handoff.timeout_ms), ctx.signal]),
    });
    const answer = (await response.text()).slice(0, 2000);
    if (!response.ok) throw new Error(`handoff answered ${response.status}: ${answer}`);
    effects.transferred = true;
    effects.motivo = motivo;
    ctx.log('info', 'lead transferred by the agent', { lead_id: binding.lead.id });
    return { transferido: true };
  };

  return [
    {
      name: 'buscar_lead',
      description: 'Dados do lead desta conversa (nome, telefone, faixa de orçamento, respostas do formulário). Sem argumentos.',
      parameters: NO_ARGS,
      handler: async () => pick(binding.lead, ['nome', 'telefone', 'orcamento', 'respostas', 'created_at']),
    },
    ...clinicTools({ clinic: async () => binding.clinic, protocol: async () => binding.protocol }),
    {
      name: 'transferir',
      description: binding.booking ? TRANSFER_WITH_AGENDA : TRANSFER_WITHOUT_AGENDA,
      parameters: TRANSFER_ARGS,
      handler: async (args: JsonObject) => {
        const motivo = typeof args.motivo === 'string' ? args.motivo.trim() : '';
        // Once per run: a failed call may be retried by the model; a successful one is not repeated.
        transfer ??= transferir(motivo).catch((err: unknown) => {
          transfer = undefined;
          throw err;
        });
        return transfer;
      },
    },
  ];
}

/** Where buscar_clinica and buscar_protocolo read their rows from (null: none). */
export interface ClinicRows {
  clinic(): Promise<Row | null>;
  protocol(): Promise<Row | null>;
}

/**
 * buscar_clinica and buscar_protocolo for one clinic: allow-listed columns of its rows (no tokens,
 * no Hunter phone). Shared by the lead's agent (the rows its flow read) and `leadflow chat` (fresh
 * reads of the database).
 */
export function clinicTools(rows: ClinicRows): AgentTool[] {
  return [
    {
      name: 'buscar_clinica',
      description: 'Dados da clínica (nome, endereço, posicionamento, nome do especialista que atende). Sem argumentos.',
      parameters: NO_ARGS,
      handler: async () => pick(await rows.clinic(), ['nome', 'endereco', 'posicionamento', 'hunter_nome']),
    },
    {
      name: 'buscar_protocolo',
      description: 'O protocolo (tratamento) da clínica: nome, descrição e preço. Sem argumentos.',
      parameters: NO_ARGS,
      handler: async () => pick(await rows.protocol(), ['nome', 'descricao', 'preco']),
    },
  ];
}
