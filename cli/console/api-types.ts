// The console's admin JSON API (issue 14, first slice): request and response bodies shared by the
// server (cli/console/, engine/triggers/admin-routes.ts) and the browser app (console/, `import type`).
// Every endpoint lives under /admin/ and exists only when LEADFLOW_ADMIN_TOKEN is set (404 otherwise);
// it accepts `Authorization: Bearer <token>` or the session cookie `lf_session` (non-GET requests with
// the cookie also need `X-CSRF-Token`). Timestamps are ISO 8601 strings (UTC), or null when unset.
// Errors are ApiError with 400 (bad input), 401 (not signed in), 403 (CSRF / Origin), 404 (unknown id).
// The executions endpoints' bodies are engine/triggers/admin-api-types.ts.
import type { ExecutionStatus } from '../../engine/types.js';

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
  /** True once the lead was handed to the clinic's Hunter. */
  transferido: boolean;
  /** The last message of the conversation (lead or agent), or null. */
  ultima_mensagem: string | null;
  /** When the last message was written, or null. */
  ultima_mensagem_at: string | null;
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
}

/** `GET /admin/leads/:id`: the lead, its conversation (oldest first), its executions (newest first, ≤ 50). */
export interface LeadResponse {
  lead: LeadDetail;
  messages: ChatMessageRow[];
  executions: ExecutionSummary[];
}

/** What `POST /admin/leads/:id/actions` can do; each is one execution of the flow `lead-action`. */
export type LeadAction = 'pause' | 'resume' | 'transfer' | 'untransfer' | 'reset' | 'erase';

/** `POST /admin/leads/:id/actions` body. */
export interface LeadActionRequest {
  action: LeadAction;
  /** Required for `erase`: exactly the lead's `remotejid` (400 otherwise, nothing changed). */
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
}

/** Every error answer. */
export interface ApiError {
  error: string;
}
