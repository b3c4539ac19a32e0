// The audit trail on the admin router (CONTRACT.md §13). Bodies: people-api-types.ts AuditResponse.
//   GET /leads/:id/audit   the lead's own rows, newest first (at most 500); whoever sees the lead
//                          (lead-scope.ts: 404 for a lead outside the principal's scope or unknown)
//   GET /audit?usuario_id&acao&clinica_id&lead_id&after&before&limit
//                          every row, newest first; admins only (the token or an `admin` account:
//                          403 for anyone else). Filters: usuario_id a positive integer or `token`
//                          (the admin token's rows); acao one of AUDIT_ACTIONS; clinica_id, lead_id
//                          positive integers; after / before ISO 8601 instants or days (YYYY-MM-DD, as
//                          UTC midnight): created_at >= after, < before; limit 1..500 (default 100).
//                          A bad or repeated filter: 422 {error, details}, nothing read.
// `usuario_nome` is the account's name now, or "Token de administração" for the token's rows.
// Rows of an erased lead stay (lead_id kept): the lead's own route then answers 404, the admin's
// list still shows them.
import type { Request, Response, Router } from 'express';
import type { Database } from '../../adapters/db/database.js';
import { AUDIT_ACTIONS } from './audit.js';
import { type InputProblem, leadIdOrProblem, sendApiError, sendInvalid } from './lead-rows.js';
import { visibleLead } from './lead-scope.js';
import type { AuditEntry, AuditResponse } from './people-api-types.js';
import { isAdmin, principalOf } from './principal.js';

/** Most rows one answer holds. */
export const MAX_AUDIT_LIMIT = 500;
const DEFAULT_LIMIT = 100;
const TOKEN_NAME = 'Token de administração';
const POSITIVE = /^[1-9][0-9]{0,14}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** The filters of GET /audit, checked. */
interface AuditFilters {
  usuario_id?: number | 'token';
  acao?: string;
  clinica_id?: number;
  lead_id?: number;
  after?: Date;
  before?: Date;
  limit: number;
}

/** A timestamp column's value as ISO 8601 (PostgreSQL: a Date; SQLite: ISO text or `YYYY-MM-DD HH:MM:SS` UTC). */
export function isoOf(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  const text = String(value ?? '');
  if (/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(text)) return `${text.replace(' ', 'T')}.000Z`;
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? text : new Date(parsed).toISOString();
}

/** One query parameter as a single string, or a problem when repeated. */
function single(query: Record<string, unknown>, key: string, problems: InputProblem[]): string | undefined {
  const value = query[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    problems.push({ path: key, message: 'informe uma vez só' });
    return undefined;
  }
  return value;
}

function instantFilter(value: string | undefined, key: string, problems: InputProblem[]): Date | undefined {
  if (value === undefined) return undefined;
  const at = INSTANT.test(value) ? new Date(value.length === 10 ? `${value}T00:00:00Z` : value) : undefined;
  if (!at || Number.isNaN(at.getTime())) problems.push({ path: key, message: 'deve ser uma data AAAA-MM-DD ou um instante ISO 8601' });
  else return at;
  return undefined;
}

function idFilter(value: string | undefined, key: string, problems: InputProblem[]): number | undefined {
  if (value === undefined) return undefined;
  if (POSITIVE.test(value)) return Number(value);
  problems.push({ path: key, message: 'deve ser um número inteiro positivo' });
  return undefined;
}

/** The filters of a GET /audit query, or their problems (unknown parameters included). */
export function auditFilters(query: Record<string, unknown>): AuditFilters | InputProblem[] {
  const problems: InputProblem[] = [];
  const known = ['usuario_id', 'acao', 'clinica_id', 'lead_id', 'after', 'before', 'limit'];
  for (const key of Object.keys(query)) if (!known.includes(key)) problems.push({ path: key, message: 'filtro desconhecido' });
  const get = (key: string) => single(query, key, problems);
  const usuario = get('usuario_id');
  const acao = get('acao');
  const limit = get('limit');
  const filters: AuditFilters = { limit: DEFAULT_LIMIT };
  if (usuario === 'token') filters.usuario_id = 'token';
  else if (usuario !== undefined) filters.usuario_id = idFilter(usuario, 'usuario_id', problems);
  if (acao !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(acao))
    problems.push({ path: 'acao', message: `deve ser uma de: ${AUDIT_ACTIONS.join(', ')}` });
  else if (acao !== undefined) filters.acao = acao;
  const clinica = idFilter(get('clinica_id'), 'clinica_id', problems);
  const lead = idFilter(get('lead_id'), 'lead_id', problems);
  if (clinica !== undefined) filters.clinica_id = clinica;
  if (lead !== undefined) filters.lead_id = lead;
  const after = instantFilter(get('after'), 'after', problems);
  const before = instantFilter(get('before'), 'before', problems);
  if (after) filters.after = after;
  if (before) filters.before = before;
  if (limit !== undefined) {
    const n = POSITIVE.test(limit) ? Number(limit) : 0;
    if (n < 1 || n > MAX_AUDIT_LIMIT) problems.push({ path: 'limit', message: `deve ser de 1 a ${MAX_AUDIT_LIMIT}` });
    else filters.limit = n;
  }
  return problems.length > 0 ? problems : filters;
}

/** Rows of `auditoria` (with the account's name) matching `filters`, newest first. */
async function readAudit(db: Database, filters: AuditFilters): Promise<AuditEntry[]> {
  const at = (d: Date) => (db.dialect === 'postgres' ? d : d.toISOString());
  const query = db
    .knex('auditoria as a')
    .leftJoin('usuarios as u', 'u.id', 'a.usuario_id')
    .select('a.*', 'u.nome as usuario_nome')
    .orderBy([
      { column: 'a.created_at', order: 'desc' },
      { column: 'a.id', order: 'desc' },
    ])
    .limit(filters.limit);
  if (filters.usuario_id === 'token') query.whereNull('a.usuario_id');
  else if (filters.usuario_id !== undefined) query.where('a.usuario_id', filters.usuario_id);
  if (filters.acao) query.where('a.acao', filters.acao);
  if (filters.clinica_id !== undefined) query.where('a.clinica_id', filters.clinica_id);
  if (filters.lead_id !== undefined) query.where('a.lead_id', filters.lead_id);
  if (filters.after) query.where('a.created_at', '>=', at(filters.after));
  if (filters.before) query.where('a.created_at', '<', at(filters.before));
  const rows = (await query) as Array<Record<string, unknown>>;
  return rows.map(toAuditEntry);
}

/** One joined row as the console shows it. */
function toAuditEntry(row: Record<string, unknown>): AuditEntry {
  let detalhes: Record<string, unknown> = {};
  try {
    const parsed = typeof row.detalhes === 'string' ? JSON.parse(row.detalhes) : row.detalhes;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) detalhes = parsed as Record<string, unknown>;
  } catch {
    detalhes = {};
  }
  const nullableId = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    id: Number(row.id),
    usuario_id: nullableId(row.usuario_id),
    usuario_nome: row.usuario_id === null || row.usuario_id === undefined ? TOKEN_NAME : String(row.usuario_nome ?? 'Conta removida'),
    acao: String(row.acao),
    clinica_id: nullableId(row.clinica_id),
    lead_id: nullableId(row.lead_id),
    detalhes,
    created_at: isoOf(row.created_at),
  };
}

function leadAudit(db: Database) {
  return async (req: Request, res: Response) => {
    const id = leadIdOrProblem(req.params.id);
    if (typeof id === 'object') return sendInvalid(res, 'dados inválidos', [id]);
    if (!(await visibleLead(db, principalOf(res), id))) return sendApiError(res, 404, 'lead não encontrado');
    res.set('Cache-Control', 'no-store');
    res.json({ entries: await readAudit(db, { lead_id: id, limit: MAX_AUDIT_LIMIT }) } satisfies AuditResponse);
  };
}

function allAudit(db: Database) {
  return async (req: Request, res: Response) => {
    if (!isAdmin(principalOf(res))) return sendApiError(res, 403, 'só administradores veem a auditoria completa');
    const filters = auditFilters(req.query as Record<string, unknown>);
    if (Array.isArray(filters)) return sendInvalid(res, 'consulta inválida', filters);
    res.set('Cache-Control', 'no-store');
    res.json({ entries: await readAudit(db, filters) } satisfies AuditResponse);
  };
}

/** Adds the audit routes (see the header) to the admin router. */
export function mountAuditRoutes(router: Router, db: Database): void {
  router.get('/leads/:id/audit', leadAudit(db));
  router.get('/audit', allAudit(db));
}
