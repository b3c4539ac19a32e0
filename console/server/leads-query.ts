// GET /admin/leads?clinica_id=<int>&q=<text>&aguardando=<1|0>&limit=<1..200, default 50>&offset=<int ≥ 0, default 0>
//   -> LeadsResponse {leads, total, aguardando_total}, newest last message first (the transcript's
//   newest non-evento row, else `ultima_mensagem_at`; leads without one last), then newest
//   `created_at`, then highest id. `aguardando=1` keeps only the leads waiting for a person
//   (last-message.ts); `aguardando_total` counts those among the clinic and search filters. 422 {error: "invalid query", details: [{path, message}]}
//   on a malformed, out-of-range or repeated parameter (`path` names it; every problem listed).
// `q` (1..200 characters, trimmed) matches the name, case and accents ignored (contains), or, when it
// holds only digits and phone punctuation (`+ ( ) - . space`), the phone's digits (contains).
// Accents are folded in SQL by one `replace` per accented Latin letter (SQLite and PostgreSQL alike,
// no extension), so the filter, the count and the page all come from the database.
import type { Knex } from 'knex';
import type { RequestHandler } from 'express';
import type { Database } from '../../adapters/db/database.js';
import type { LeadsResponse } from './api-types.js';
import { LAST_MESSAGE_AT_SQL, lastMessageSql, whereWaiting } from './last-message.js';
import { scopeLeadsQuery } from './lead-scope.js';
import { isoOf, type LastMessage, type InputProblem, sendInvalid, toLeadSummary } from './lead-rows.js';
import { type Principal, principalOf, TOKEN_PRINCIPAL } from './principal.js';

/** Leads per page when `limit` is not given. */
export const DEFAULT_LEADS_LIMIT = 50;
/** The largest `limit` accepted. */
export const MAX_LEADS_LIMIT = 200;
const MAX_QUERY_LENGTH = 200;

/** Accented letters and what they fold to (lower-case ASCII): SQLite's lower() knows ASCII only. */
const FOLDS: Array<[string, string]> = [
  ...[...'áàâãäåÁÀÂÃÄÅ'].map((c): [string, string] => [c, 'a']),
  ...[...'éèêëÉÈÊË'].map((c): [string, string] => [c, 'e']),
  ...[...'íìîïÍÌÎÏ'].map((c): [string, string] => [c, 'i']),
  ...[...'óòôõöÓÒÔÕÖ'].map((c): [string, string] => [c, 'o']),
  ...[...'úùûüÚÙÛÜ'].map((c): [string, string] => [c, 'u']),
  ['ç', 'c'],
  ['Ç', 'c'],
  ['ñ', 'n'],
  ['Ñ', 'n'],
];

/** `text` lower-case without accents (what the SQL fold makes of the column). */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** SQL folding the text column `column` like foldText, with its bindings. */
function foldedColumn(column: string): { sql: string; bindings: string[] } {
  let sql = 'coalesce(??, ?)';
  const bindings = [column, ''];
  for (const [from, to] of FOLDS) {
    sql = `replace(${sql}, ?, ?)`;
    bindings.push(from, to);
  }
  return { sql: `lower(${sql})`, bindings };
}

const escapeLike = (text: string): string => text.replace(/[!%_]/g, (c) => `!${c}`);

interface LeadsQuery {
  clinicaId?: number;
  q?: string;
  /** True: only the leads waiting for a person. */
  aguardando?: boolean;
  limit: number;
  offset: number;
}

/** The query parameters, or every problem with them (each naming its parameter). */
export function parseLeadsQuery(query: Record<string, unknown>): LeadsQuery | { problems: InputProblem[] } {
  const problems: InputProblem[] = [];
  const one = (name: string): string | undefined | null => {
    const v = query[name];
    return v === undefined ? undefined : typeof v === 'string' ? v : null;
  };
  const integer = (name: string, min: number, max: number, fallback?: number): number | undefined => {
    const v = one(name);
    if (v === undefined) return fallback;
    const n = v !== null && /^[0-9]{1,15}$/.test(v) ? Number(v) : Number.NaN;
    if (Number.isSafeInteger(n) && n >= min && n <= max) return n;
    problems.push({ path: name, message: `must be given once, an integer from ${min} to ${max}` });
    return fallback;
  };
  const clinicaId = integer('clinica_id', 1, Number.MAX_SAFE_INTEGER);
  const limit = integer('limit', 1, MAX_LEADS_LIMIT, DEFAULT_LEADS_LIMIT);
  const offset = integer('offset', 0, Number.MAX_SAFE_INTEGER, 0);
  const waiting = one('aguardando');
  if (waiting !== undefined && waiting !== '1' && waiting !== '0')
    problems.push({ path: 'aguardando', message: 'must be given once, 1 or 0' });
  const q = one('q');
  if (q === null || (q !== undefined && q.length > MAX_QUERY_LENGTH))
    problems.push({ path: 'q', message: `must be given once, at most ${MAX_QUERY_LENGTH} characters` });
  if (problems.length > 0) return { problems };
  const trimmed = q?.trim();
  return {
    ...(clinicaId !== undefined ? { clinicaId } : {}),
    ...(trimmed ? { q: trimmed } : {}),
    ...(waiting === '1' ? { aguardando: true } : {}),
    limit: limit as number,
    offset: offset as number,
  };
}

function applyFilters(query: Knex.QueryBuilder, { clinicaId, q }: LeadsQuery): void {
  if (clinicaId !== undefined) query.where('leads.clinica_id', clinicaId);
  if (!q) return;
  const folded = foldedColumn('nome');
  const digits = /^[0-9+().\s-]+$/.test(q) ? q.replace(/\D/g, '') : '';
  query.where((w) => {
    w.whereRaw(`${folded.sql} like ? escape '!'`, [...folded.bindings, `%${escapeLike(foldText(q))}%`]);
    if (digits) w.orWhere('remotejid', 'like', `%${digits}%`);
  });
}

interface PageRow {
  id: number | string;
  lm_conteudo: string | null;
  lm_at: unknown;
  lm_direcao: string | null;
}

/** The page's row's transcript message, or undefined when the lead has none. */
function lastOf(row: PageRow | undefined): LastMessage | undefined {
  const at = isoOf(row?.lm_at);
  if (!row || at === null) return undefined;
  return { conteudo: row.lm_conteudo ?? '', created_at: at, direcao: row.lm_direcao === 'entrada' ? 'entrada' : 'saida' };
}

/** The page of leads, the total and the waiting total for `params` among the leads `principal` may see (see the header). */
export async function queryLeads(
  db: Database,
  params: LeadsQuery,
  now: number = Date.now(),
  principal: Principal = TOKEN_PRINCIPAL,
): Promise<LeadsResponse> {
  const filtered = (waitingOnly = params.aguardando === true) => {
    const query = db.knex('leads');
    applyFilters(query, params);
    if (waitingOnly) whereWaiting(query, now);
    return scopeLeadsQuery(query, principal);
  };
  const count = async (query: Knex.QueryBuilder) =>
    Number(((await query.count({ n: '*' }).first()) as { n: number | string } | undefined)?.n ?? 0);
  const [total, waitingTotal] = await Promise.all([count(filtered()), count(filtered(true))]);
  const page = (await filtered()
    .select('leads.id', {
      lm_conteudo: db.knex.raw(lastMessageSql('conteudo')),
      lm_at: db.knex.raw(lastMessageSql('created_at')),
      lm_direcao: db.knex.raw(lastMessageSql('direcao')),
    })
    .orderByRaw(
      `(case when ${LAST_MESSAGE_AT_SQL} is null then 1 else 0 end) asc, ${LAST_MESSAGE_AT_SQL} desc, leads.created_at desc, leads.id desc`,
    )
    .limit(params.limit)
    .offset(params.offset)) as PageRow[];
  const order = page.map((r) => Number(r.id));
  const pageById = new Map(page.map((r) => [Number(r.id), r]));
  const rows = order.length > 0 ? await db.find('leads', { where: { id: { in: order } }, limit: order.length }) : [];
  const byId = new Map(rows.map((r) => [Number(r.id), r]));
  const leads = order.flatMap((id) => {
    const row = byId.get(id);
    return row ? [toLeadSummary(row, now, lastOf(pageById.get(id)))] : [];
  });
  return { leads, total, aguardando_total: waitingTotal };
}

/** `GET /admin/leads`: one page of leads and their total; 422 on a malformed parameter (see the header). */
export function listLeads(db: Database): RequestHandler {
  return async (req, res) => {
    const parsed = parseLeadsQuery(req.query as Record<string, unknown>);
    if ('problems' in parsed) return sendInvalid(res, 'invalid query', parsed.problems);
    res.json(await queryLeads(db, parsed, Date.now(), principalOf(res)));
  };
}
