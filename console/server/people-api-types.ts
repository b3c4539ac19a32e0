// The console's bodies for the clinic's people (CONTRACT.md §13): accounts and roles, the audit
// trail, the transcript, replying to a lead and what "waiting for a person" means. Shared by the
// server (console/server/) and the browser app (console/src/, `import type`); the conventions of
// api-types.ts hold (ISO 8601 timestamps, ApiError on every error).

/** An account's role: `admin` (everything, as the token), `equipe` (its clinics' leads), `hunter` (its clinics' transferred or booked leads). */
export type Papel = 'admin' | 'equipe' | 'hunter';

/** Who is signed in: an account, or the admin token (`usuario` null). */
export interface SessionUser {
  /** `usuarios.id`. */
  id: number;
  email: string;
  nome: string;
  papel: Papel;
  /** The clinics the account works for (empty for `admin`: every clinic). */
  clinica_ids: number[];
}

/** `POST /admin/session` body by account (beside `{token}`): email (any case) and password. */
export interface AccountSessionRequest {
  email: string;
  password: string;
}

/** `POST /admin/session/password` body: the signed-in account changes its own password (204). */
export interface PasswordChangeRequest {
  /** The current password (401 when wrong). */
  current: string;
  /** The new one: 10 to 200 characters (422 otherwise). */
  password: string;
}

/** An account as the Pessoas page lists it (`GET /admin/users`, admin only); never its hash. */
export interface UserSummary extends SessionUser {
  /** When it was disabled, or null while active. */
  desativado_at: string | null;
  created_at: string;
}

/** `GET /admin/users`. */
export interface UsersResponse {
  users: UserSummary[];
}

/** `POST /admin/users` body (admin only): a new account; 409 when the email is taken. */
export interface UserCreateRequest {
  email: string;
  nome: string;
  papel: Papel;
  /** Required (at least one) for `equipe` and `hunter`; ignored for `admin`. */
  clinica_ids?: number[];
}

/**
 * `POST /admin/users` (201) and `POST /admin/users/:id/reset-password` (200): the account and its
 * generated password, shown this once (only its hash is stored).
 */
export interface UserPasswordResponse {
  user: UserSummary;
  password: string;
}

/** One row of `auditoria`: who did what, to which lead and clinic, when; never a message text or phone. */
export interface AuditEntry {
  id: number;
  /** `usuarios.id`, or null for the admin token. */
  usuario_id: number | null;
  /** The account's name then ("Token de administração" for the token). */
  usuario_nome: string;
  /** What was done: see AUDIT_ACTIONS in console/server/audit.ts. */
  acao: string;
  clinica_id: number | null;
  lead_id: number | null;
  /** Facts of the action (ids, statuses, counts), never a message text or a phone. */
  detalhes: Record<string, unknown>;
  created_at: string;
}

/** `GET /admin/audit?usuario_id&acao&clinica_id&lead_id&before&limit` (admin only), newest first; `GET /admin/leads/:id/audit` (the lead's own). */
export interface AuditResponse {
  entries: AuditEntry[];
}

/** Who wrote a transcript message. */
export type MessageAuthor = 'lead' | 'agente' | 'equipe' | 'sistema';
/** What a transcript message is. */
export type MessageKind = 'texto' | 'audio' | 'imagem' | 'video' | 'documento' | 'modelo' | 'evento';
/** A delivery status the provider reported. */
export type DeliveryStatus = 'enviada' | 'entregue' | 'lida' | 'falhou';

/** One row of `mensagens` (§13): what was said, one WhatsApp message each, or an event. Plain text: never inserted as HTML. */
export interface TranscriptMessage {
  /** `mensagens.id`; ascending ids are the order rows were written. */
  id: number;
  direcao: 'entrada' | 'saida';
  autor: MessageAuthor;
  /** The person's name for `equipe`, or null. */
  autor_nome: string | null;
  tipo: MessageKind;
  /** The text; a medium's converted text; a template as rendered; an event's label. */
  conteudo: string;
  status: DeliveryStatus | null;
  /** When it was sent or received. */
  created_at: string;
  /**
   * Present (true) on a received audio, image, video or document the console can fetch again from
   * the provider: `GET /admin/leads/:id/messages/:mid/media`. The provider's reference never comes.
   */
  midia?: true;
}

/**
 * `GET /admin/leads/:id/messages?after=<id>`: the lead's transcript in time order (all of it, or
 * only rows with a greater id than `after`: the live view polls with its last id).
 */
export interface TranscriptResponse {
  messages: TranscriptMessage[];
  /** True while the lead waits for a person (see LeadWaiting). */
  aguardando: boolean;
}

/**
 * `POST /admin/leads/:id/messages` body: a person's reply (1..4096 characters of text), or the
 * `follow_up` template when the Cloud API's 24-hour window is closed. An opted-out lead needs
 * `confirm_optout: true` (409 otherwise, nothing sent).
 */
export type ReplyRequest = { text: string; confirm_optout?: boolean } | { template: 'follow_up'; confirm_optout?: boolean };

/** `POST /admin/leads/:id/messages` answer (201): the recorded message and until when the agent is paused. */
export interface ReplyResponse {
  message: TranscriptMessage;
  pausado_ate: string | null;
}

/**
 * `POST /admin/leads/:id/messages` 409 body: `reason` says which: `window` (Cloud API, the lead has
 * not written in 24 hours: only the `follow_up` template can go) or `optout` (confirm first).
 */
export interface ReplyConflict {
  error: string;
  details: Array<{ path: string; message: string }>;
  reason: 'window' | 'optout';
}
