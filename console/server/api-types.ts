// The console's admin JSON API (issue 14, first slice): request and response bodies shared by the
// server (console/server/, engine/triggers/admin-routes.ts) and the browser app (console/src/, `import type`).
// Every endpoint lives under /admin/ and exists only when LEADFLOW_ADMIN_TOKEN is set (404 otherwise);
// it accepts `Authorization: Bearer <token>` or the session cookie `lf_session` (non-GET requests with
// the cookie also need `X-CSRF-Token`). Timestamps are ISO 8601 strings (UTC), or null when unset.
// Errors are ApiError `{error, details}`: 422 (bad input: a query or path parameter, or a body field; `details` names
// each, as the executions endpoints do), 400 (a body that is not JSON), 401 (not signed in), 403
// (CSRF / Origin), 404 (unknown id).
// The executions endpoints' bodies are engine/triggers/admin-api-types.ts.
import type { FlowGraph as FlowGraphView } from '../../engine/graph/flow-graph.js';
import type { ExecutionStatus, LoadProblem } from '../../engine/types.js';
import type { SessionUser } from './people-api-types.js';

/** A clinic as the console lists it (`clinicas_com_atendentes`). */
export interface ClinicSummary {
  /** The clinic's id (`clinicas_com_atendentes.id`). */
  id: number;
  /** The clinic's name. */
  nome: string;
}

/** `GET /admin/clinics`: every clinic, by id. */
export interface ClinicsResponse {
  clinics: ClinicSummary[];
}

/**
 * Where a lead stands, the first that holds in this order: `transferred` (`transferido`),
 * `opted_out` (`optout_at` set), `paused` (`pausado_ate` in the future), `conversing`.
 */
export type LeadState = 'conversing' | 'paused' | 'transferred' | 'opted_out';

/** A lead in the listing (`GET /admin/leads`); columns of `leads` plus its state. */
export interface LeadSummary {
  /** `leads.id`. */
  id: number;
  /** The clinic the lead belongs to. */
  clinica_id: number;
  /** The name the lead typed in the form, or null. */
  nome: string | null;
  /** The lead's phone, digits only, country code first (`5511987654321`). */
  remotejid: string;
  /** Derived from the columns below, see LeadState. */
  state: LeadState;
  /** Until when the agent stays silent for this lead (a person took over), or null. */
  pausado_ate: string | null;
  /** When the lead asked not to be written to, or null. */
  optout_at: string | null;
  /**
   * When the lead got the fixed holding message because no AI provider could answer her (the agent
   * flow's `unanswered` branch), or null: someone has answered since (the agent's next reply, a
   * person on the clinic's phone, `destrans`). Shown as "Sem resposta" beside the state.
   */
  sem_resposta_at: string | null;
  /** True once the lead was handed to the clinic's Hunter. */
  transferido: boolean;
  /**
   * The last message of the conversation in either direction (lead, agent or a person): the newest
   * non-`evento` row of the transcript (`mensagens`) when it has one, else the `leads` column; or null.
   */
  ultima_mensagem: string | null;
  /** When the last message was written (same source as `ultima_mensagem`), or null. */
  ultima_mensagem_at: string | null;
  /**
   * True when the lead waits for a person (CONTRACT §13): the newest non-`evento` transcript row is
   * the lead's (`direcao` `entrada`) while the agent is paused (`pausado_ate` ahead) or the lead was
   * transferred. Shown as "Aguardando atendimento".
   */
  aguardando: boolean;
  /** When the lead arrived. */
  created_at: string;
}

/** A lead on its own page: the summary plus the form answers and the handoff. */
export interface LeadDetail extends LeadSummary {
  /** The phone as typed in the form, or null. */
  telefone: string | null;
  /** The budget band text the lead chose, or null. */
  orcamento: string | null;
  /** The form's other answers (question -> answer), or null. */
  respostas: Record<string, unknown> | null;
  /** True once the handoff notification was sent to the Hunter. */
  handoff_enviado: boolean;
  /** When the handoff happened, or null. */
  handoff_at: string | null;
  /** The WhatsApp instance the lead talks to, or null. */
  instancia_id: number | null;
}

/** One message of a lead's conversation (`wf_chat_histories`), as a chat bubble. */
export interface ChatMessageRow {
  /** `wf_chat_histories.id`; ascending ids are the conversation's order. */
  id: number;
  /** Who wrote it: the lead, the agent, or a person of the clinic by hand (operator). */
  type: 'lead' | 'agent' | 'operator';
  /** The text (media appear as the text they became). Plain text: never to be inserted as HTML. */
  content: string;
  /** When it was stored. */
  created_at: string;
}

/** An execution in a lead's page (the lead's executions, by its phone). */
export interface ExecutionSummary {
  /** The execution's id (for `GET /admin/executions/:id`). */
  id: string;
  /** The flow's name, e.g. `agent`. */
  flow: string;
  /** running, waiting, success, failed, stopped or cancelled. */
  status: ExecutionStatus;
  /** When it was created. */
  started_at: string;
  /** When it finished, or null while unfinished. */
  finished_at: string | null;
  /** Why it was stopped or cancelled, or null. */
  stop_reason: string | null;
  /** The flow version (hex source hash) it ran on, or null for records older than versions. */
  flow_version: string | null;
}

/** `GET /admin/leads?clinica_id&q&limit&offset`: a page of leads, newest last message first. */
export interface LeadsResponse {
  /** At most `limit` (1..200, default 50) leads from `offset` (default 0). */
  leads: LeadSummary[];
  /** How many leads match the filters in all. */
  total: number;
  /** How many leads of the clinic filter (and search) wait for a person (`aguardando`), whether or not `aguardando=1` was asked. */
  aguardando_total: number;
}

/** `GET /admin/leads/:id`: the lead, its conversation (oldest first), its executions (newest first, ≤ 50). */
export interface LeadResponse {
  lead: LeadDetail;
  messages: ChatMessageRow[];
  executions: ExecutionSummary[];
  /** The latest handoff of the lead by the handoff endpoint (its newest successful `handoff` execution among `executions`), or null. */
  handoff: LeadHandoff | null;
  /** The lead's upcoming appointment (marcado or confirmado, still ahead) at its clinic, or null. */
  agendamento: AgendaAppointment | null;
}

/** Why and how the lead was handed to the Hunter, as its `handoff` execution recorded it. */
export interface LeadHandoff {
  /** The handoff's `motivo`, or null when none was given. */
  motivo: string | null;
  /** The summary sent to the Hunter (`Resumo:`), or null when there was none (no conversation, or it failed). */
  resumo: string | null;
  /** When the handoff execution started (ISO 8601). */
  at: string;
  execution_id: string;
}

/** What `POST /admin/leads/:id/actions` can do; each is one execution of the flow `lead-action`. */
export type LeadAction = 'pause' | 'resume' | 'transfer' | 'untransfer' | 'reset' | 'erase';

/** `POST /admin/leads/:id/actions` body. */
export interface LeadActionRequest {
  action: LeadAction;
  /** Required for `erase`: exactly the lead's `remotejid` (422 otherwise, nothing changed). */
  confirm?: string;
}

/** `POST /admin/leads/:id/actions` answer. */
export interface LeadActionResponse {
  /** The `lead-action` execution that did it. */
  execution_id: string;
  /** That execution's status (`success` when the action took effect). */
  status: ExecutionStatus;
  /** The lead after the action, or null after `erase`. */
  lead: LeadSummary | null;
}

/** `POST /admin/session` body: the admin token (LEADFLOW_ADMIN_TOKEN). */
export interface SessionRequest {
  token: string;
}

/**
 * `POST /admin/session` (200, with the `lf_session` cookie) and `GET /admin/session` (200 when the
 * cookie names a live session). `csrf` goes into `X-CSRF-Token` on every non-GET request.
 */
export interface SessionResponse {
  /** Present (true) on `GET /admin/session`. */
  signed_in?: true;
  /** The CSRF token of this session. */
  csrf: string;
  /** Who signed in: the account, or null for the admin token (CONTRACT.md §13). */
  user: SessionUser | null;
}

/** Every error answer, in the admin API's shape; `details` lists each problem on 422 (bad input, `path` naming the parameter or field), else it is empty. */
export interface ApiError {
  error: string;
  details: Array<{ path: string; message: string }>;
}

/** How a flow starts: its webhook, its schedule, or neither (started by another flow or the console). */
export type FlowTriggerSummary =
  | { kind: 'webhook'; method: string; path: string }
  | { kind: 'schedule'; cron: string; timezone: string }
  | { kind: 'none' };

/** A loaded flow in the Flows page's list (`GET /admin/flows`). */
export interface FlowSummary {
  /** The flow's name (`^[a-z][a-z0-9-]*$`), for `GET /admin/flows/:name`. */
  name: string;
  /** Its file, as the server names it (relative to the server's working directory). */
  file: string;
  /** The flow version: hex SHA-256 of its source (what executions record as `flow_version`). */
  version: string;
  /** The flow's `description`, or null. */
  description: string | null;
  trigger: FlowTriggerSummary;
  /** How many steps it has, nested ones included. */
  steps: number;
}

/**
 * A problem of the latest load of the flows directory, as `leadflow validate` prints it
 * (`file:line:col message [code]`): the engine's LoadProblem (engine/types.ts) without its JSON path.
 * Lines and columns start at 1; `code` e.g. `yaml-syntax`, `unknown-node-type`, `unknown-step`.
 */
export type FlowLoadProblem = Pick<LoadProblem, 'file' | 'line' | 'col' | 'code' | 'message'>;

/**
 * `GET /admin/flows`: the flows this process serves (by name) and the problems of its latest load of
 * the flows directory: at start (none, or it would not have started) or the latest `serve --watch`
 * reload (a refused reload keeps the previous flows serving; its problems are listed here).
 */
export interface FlowsResponse {
  flows: FlowSummary[];
  /** By file, line and column; empty when the latest load had none. */
  problems: FlowLoadProblem[];
  /** When that load ran. */
  loaded_at: string;
}

/**
 * A flow's graph as `GET /admin/flows/:name` sends it: engine/graph/flow-graph.ts's types, the same
 * graph `leadflow graph` prints (a type-only re-export: the browser bundle holds no engine code).
 * Nodes and edges in reading order, foreach bodies as groups, outer before inner.
 */
export type {
  FlowEdgeKind,
  FlowGraph as FlowGraphView,
  FlowGraphEdge as FlowGraphEdgeView,
  FlowGraphGroup as FlowGraphGroupView,
  FlowGraphNode as FlowGraphNodeView,
  FlowNodeKind,
} from '../../engine/graph/flow-graph.js';

/** A step as written in its flow file. */
export interface FlowStepView {
  /** Its node in the graph. */
  node: string;
  id: string;
  type: string;
  /** Its `name`, or null. */
  name: string | null;
  /** Its `params` as written in the YAML (expressions as text, not evaluated); `{}` when it has none. Plain data: show as text. */
  params: unknown;
  /** The flow's file. */
  file: string;
  /** 1-based line of the step in that file. */
  line: number;
  /** Its retry policy with the defaults filled in, or null when it declares none. */
  retry: Record<string, unknown> | null;
  /** `continue` or `{goto}`, or null for the default (the failure fails the execution). */
  on_error: 'continue' | { goto: string } | null;
}

/** `GET /admin/flows/:name`: the flow, its graph and its steps (in reading order). 404 unknown name, 422 malformed name. */
export interface FlowDetailResponse {
  flow: FlowSummary;
  graph: FlowGraphView;
  steps: FlowStepView[];
}

/** The AI calls of one model (`provider:model`) in a day or a period. */
export interface OverviewAiModel {
  model: string;
  /** Provider calls made (chat and transcription), failed ones included. */
  calls: number;
  /** Calls that failed (an error or a rate limit). */
  failures: number;
  input_tokens: number;
  output_tokens: number;
}

/** Time from the form reaching LeadFlow to the first message sent (rule 1: within two minutes). */
export interface OverviewFirstContact {
  /** First messages sent (one per intake that sent its message). */
  count: number;
  /** Median, ms (nearest rank), or null without any. */
  p50_ms: number | null;
  /** 95th percentile, ms (nearest rank), or null without any. */
  p95_ms: number | null;
  /** How many took longer than two minutes (120000 ms). */
  over_2min: number;
}

/** The figures of one clinic (or of all) over one local day or a period. */
export interface OverviewFigures {
  /** Leads created (`leads.created_at`). */
  leads_in: number;
  first_contact: OverviewFirstContact;
  /** Messages of leads kept in memory (`wf_chat_histories` type `lead`: one per answered burst). */
  lead_messages: number;
  /** Messages LeadFlow wrote to leads (`wf_chat_histories` type `agent`: first, return, replies, follow-ups). */
  agent_replies: number;
  /** Leads handed to the Hunter (`leads.handoff_at`). */
  handoffs: number;
  /** Follow-ups sent. */
  followups: number;
  /** Leads who opted out (`leads.optout_at`; a lead who filled the form again is no longer counted). */
  optouts: number;
  /** By model, most calls first. */
  ai: OverviewAiModel[];
  /** Executions that ended `failed`, by flow, most first. */
  failed_executions: Array<{ flow: string; count: number }>;
  /** Appointments (`agendamentos`) whose start falls in the day or period, by their status now. */
  appointments: OverviewAppointments;
}

/** Appointments of a day or period, counted by `inicio` and current status. */
export interface OverviewAppointments {
  /** Every appointment but the cancelled ones (marcado, confirmado, compareceu, faltou). */
  booked: number;
  /** Status `confirmado` (the lead confirmed and the visit is not yet marked). */
  confirmed: number;
  /** Status `compareceu`. */
  attended: number;
  /** Status `faltou`. */
  no_show: number;
  /** Status `cancelado`. */
  cancelled: number;
  /** attended / (attended + no_show), 0..1; null when neither. */
  show_rate: number | null;
}

/** One local day's figures. */
export interface OverviewDay extends OverviewFigures {
  /** The local date, `YYYY-MM-DD` in the answer's `tz`. */
  date: string;
}

/** One clinic's figures (or all clinics' together, `clinica_id` null in `all`). */
export interface OverviewSeries {
  /** The clinic; null for `all`, and for figures of executions that named no clinic. */
  clinica_id: number | null;
  /** The clinic's name; null for `all`, for no clinic, and for a clinic deleted since. */
  nome: string | null;
  /** One per date of `dates`, oldest first, today last. */
  days: OverviewDay[];
  /** Today (the last of `days`). */
  today: OverviewFigures;
  /** The whole period (every day of `days`). */
  period: OverviewFigures;
}

/**
 * `GET /admin/overview?days=<1..31, default 7>&tz=<IANA zone, default America/Sao_Paulo>`: per
 * clinic, per local day of the last `days` days (today included) and in total. 422 {error, details} on a bad
 * parameter.
 */
export interface OverviewResponse {
  days: number;
  tz: string;
  /** The local dates of the period, `YYYY-MM-DD`, oldest first, today last. */
  dates: string[];
  /** When the figures were read (ISO 8601). */
  generated_at: string;
  /** The limit first contacts are measured against (rule 1), ms: 120000. */
  first_contact_limit_ms: number;
  /** Every clinic together. */
  all: OverviewSeries;
  /** Every clinic by id (those without any figure too), then figures of no clinic (`clinica_id` null) when there are any. */
  clinics: OverviewSeries[];
}

/** How much of the agenda `GET /admin/clinics/:id/agenda` shows: one local day, or the week (Monday to Sunday) holding it. */
export type AgendaView = 'dia' | 'semana';

/** An appointment's status (CONTRACT.md §12). */
export type AgendaStatus = 'marcado' | 'confirmado' | 'cancelado' | 'compareceu' | 'faltou';

/** One appointment as the agenda shows it (`agendamentos` with its lead's name and number). */
export interface AgendaAppointment {
  id: number;
  lead_id: number;
  /** The lead's name, or null. */
  lead_nome: string | null;
  /** The lead's phone, digits only. */
  lead_remotejid: string;
  /** Start and end, ISO 8601 UTC. */
  inicio: string;
  fim: string;
  /** The start in the clinic's zone, `YYYY-MM-DDTHH:MM`. */
  local_inicio: string;
  /** The start as the Hunter's notices say it (`terça, 02/12 às 14:30`). */
  texto: string;
  status: AgendaStatus;
  /** Who booked: the agent (`agente`) or a person on the console (`console`). */
  origem: 'agente' | 'console';
  /** The clinic's calendar provider when it was booked (`interno`, `google`, `calcom`). */
  provider: string;
}

/** The clinic as its agenda page needs it; never its `agenda` column (credentials). */
export interface AgendaClinic {
  id: number;
  nome: string;
  /** Whether the clinic has a calendar configured (`agenda` set): without one nothing can be booked. */
  agenda: boolean;
  /** The IANA zone of its hours; times are shown in it. */
  timezone: string;
  /** Its provider, null without agenda. */
  provider: string | null;
  /** Minutes per appointment, null without agenda. */
  duracao_min: number | null;
}

/** `GET /admin/clinics/:id/agenda?dia=YYYY-MM-DD&vista=dia|semana`: the appointments of that day or week, by start, any status. */
export interface AgendaResponse {
  clinica: AgendaClinic;
  vista: AgendaView;
  /** The local dates shown, `YYYY-MM-DD` (one, or seven from Monday). */
  dias: string[];
  agendamentos: AgendaAppointment[];
}

/** One free slot of a day. */
export interface AgendaSlot {
  /** ISO 8601 UTC: what `POST /admin/clinics/:id/agenda` takes as `inicio`. */
  inicio: string;
  /** Local `HH:MM`. */
  hora: string;
}

/** `GET /admin/clinics/:id/agenda/horarios?dia=YYYY-MM-DD&lead_id=`: the day's free slots (the lead's own appointment not counting). */
export interface AgendaSlotsResponse {
  dia: string;
  timezone: string;
  horarios: AgendaSlot[];
}

/** `POST /admin/clinics/:id/agenda` (book) and `POST /admin/agendamentos/:id/mover` (move): `inicio` one of the free slots (ISO 8601). */
export interface AgendaBookRequest {
  /** The lead to book (book only). */
  lead_id?: number;
  inicio: string;
}

/** The answer of every agenda action: what happened and the appointment afterwards. */
export interface AgendaActionResponse {
  status: 'marcado' | 'remarcado' | 'cancelado' | 'compareceu' | 'faltou';
  agendamento: AgendaAppointment;
  /** The execution of flows/agenda-action.yaml that made the change. */
  execution_id: string;
}
