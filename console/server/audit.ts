// The audit trail (CONTRACT.md §13): one `auditoria` row per sign-in (and failed one), reply, lead
// action, appointment change and account change. Rows hold who (the account's id, null for the admin
// token), what (`acao`, one of AUDIT_ACTIONS), which clinic and lead, when, and `detalhes`: facts
// such as ids, statuses and counts, NEVER a message text or a phone (recordAudit refuses string
// values that look like either). A lead's erasure keeps its rows (no foreign key on lead_id).
import type { Database } from '../../adapters/db/database.js';
import { auditUserId, type Principal } from './principal.js';

/** Every action the trail records. */
export const AUDIT_ACTIONS = [
  'login',
  'login_falhou',
  'logout',
  'senha_alterada',
  'resposta',
  'lead_pausar',
  'lead_retomar',
  'lead_transferir',
  'lead_destransferir',
  'lead_limpar_memoria',
  'lead_excluir',
  'agenda_marcar',
  'agenda_mover',
  'agenda_cancelar',
  'agenda_presenca',
  'usuario_criado',
  'usuario_desativado',
  'usuario_senha_redefinida',
] as const;

/** One of AUDIT_ACTIONS. */
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What an audit row says besides who and when. */
export interface AuditFacts {
  acao: AuditAction;
  clinica_id?: number | null;
  lead_id?: number | null;
  /** Ids, statuses, counts; strings of 8+ digits (phones) or over 64 characters (texts) are refused. */
  detalhes?: Record<string, string | number | boolean | null>;
}

/** A string that may be a phone (8 or more digits) or a message text (over 64 characters). */
function looksPersonal(value: string): boolean {
  return value.length > 64 || /\d{8,}/.test(value.replace(/[\s()+-]/g, ''));
}

/** The detalhes as stored: JSON text; throws on a value that looks like a phone or a message text. */
export function auditDetails(detalhes: AuditFacts['detalhes'] = {}): string {
  for (const [key, value] of Object.entries(detalhes)) {
    if (typeof value === 'string' && looksPersonal(value)) throw new Error(`audit detail ${key} looks like a phone or a message text`);
  }
  return JSON.stringify(detalhes);
}

/**
 * Writes one audit row for `principal` (null `usuario_id` for the token; `usuarioId` overrides it,
 * e.g. a failed sign-in of a known account). Resolves once the row is stored.
 */
export async function recordAudit(db: Database, principal: Principal | null, facts: AuditFacts, usuarioId?: number | null): Promise<void> {
  await db.knex('auditoria').insert({
    usuario_id: usuarioId !== undefined ? usuarioId : principal ? auditUserId(principal) : null,
    acao: facts.acao,
    clinica_id: facts.clinica_id ?? null,
    lead_id: facts.lead_id ?? null,
    detalhes: auditDetails(facts.detalhes),
    created_at: db.dialect === 'postgres' ? new Date() : new Date().toISOString(),
  });
}
