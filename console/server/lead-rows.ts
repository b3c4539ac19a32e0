// Rows of `leads` (as TableOps returns them: timestamps ISO strings, booleans, respostas parsed) to
// the console's shapes (api-types.ts), and the small helpers every lead endpoint shares.
import type { Response } from 'express';
import type { Row } from '../../adapters/db/table-ops.js';
import type { LeadDetail, LeadState, LeadSummary } from './api-types.js';

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const int = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** transferred > opted_out > paused (pausado_ate after `now`, ms) > conversing. */
export function leadState(row: Row, now: number): LeadState {
  if (row.transferido === true) return 'transferred';
  if (row.optout_at) return 'opted_out';
  const until = text(row.pausado_ate);
  if (until && Date.parse(until) > now) return 'paused';
  return 'conversing';
}

/** The newest non-`evento` row of a lead's transcript (`mensagens`): its text, time (ISO) and direction. */
export interface LastMessage {
  conteudo: string;
  created_at: string;
  direcao: 'entrada' | 'saida';
}

/** A timestamp as a driver returns it (ISO text on SQLite, Date on PostgreSQL) to ISO text; null stays null. */
export function isoOf(value: unknown): string | null {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' ? value : null;
}

/**
 * Whether the lead waits for a person (CONTRACT §13): it wrote last (`last` is `entrada`) while the
 * agent is paused (`pausado_ate` after `now`, ms) or it was transferred.
 */
export function isWaiting(row: Row, last: LastMessage | undefined, now: number): boolean {
  if (last?.direcao !== 'entrada') return false;
  const until = text(row.pausado_ate);
  return row.transferido === true || (until !== null && Date.parse(until) > now);
}

/**
 * A `leads` row as the leads list shows it, its state as of `now` (ms). `last` (the transcript's
 * newest message) gives the last message and `aguardando`; without it the `leads` columns give the
 * last message and `aguardando` is false.
 */
export function toLeadSummary(row: Row, now: number = Date.now(), last?: LastMessage): LeadSummary {
  return {
    id: Number(row.id),
    clinica_id: Number(row.clinica_id),
    nome: text(row.nome),
    remotejid: String(row.remotejid),
    state: leadState(row, now),
    pausado_ate: text(row.pausado_ate),
    optout_at: text(row.optout_at),
    sem_resposta_at: text(row.sem_resposta_at),
    transferido: row.transferido === true,
    ultima_mensagem: last ? last.conteudo : text(row.ultima_mensagem),
    ultima_mensagem_at: last ? last.created_at : text(row.ultima_mensagem_at),
    aguardando: isWaiting(row, last, now),
    created_at: String(row.created_at),
  };
}

/** A `leads` row as the lead's page shows it: the summary plus the form answers, budget, handoff and instance. */
export function toLeadDetail(row: Row, now: number = Date.now(), last?: LastMessage): LeadDetail {
  const respostas = row.respostas;
  return {
    ...toLeadSummary(row, now, last),
    telefone: text(row.telefone),
    orcamento: text(row.orcamento),
    respostas: respostas && typeof respostas === 'object' && !Array.isArray(respostas) ? respostas : null,
    handoff_enviado: row.handoff_enviado === true,
    handoff_at: text(row.handoff_at),
    instancia_id: int(row.instancia_id),
  };
}

/** A lead id from the path: a positive integer, or undefined. */
export function leadIdParam(value: unknown): number | undefined {
  const id = typeof value === 'string' && /^[1-9][0-9]{0,14}$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(id) ? id : undefined;
}

/** Answers `{error, details: []}` with `status` (the admin API's shape; sendInvalid for bad input, with its details). */
export function sendApiError(res: Response, status: number, error: string): void {
  res.status(status).json({ error, details: [] });
}

/** One problem with a request's input: the query or path parameter (or body field) it is about, and what is wrong. */
export interface InputProblem {
  path: string;
  message: string;
}

/**
 * Answers 422 `{error, details}` (the admin API's shape, engine/triggers/webhook-pipeline.ts
 * `sendError`): `error` says what was wrong (`invalid query`, `invalid input`), `details` each problem.
 */
export function sendInvalid(res: Response, error: string, details: InputProblem[]): void {
  res.status(422).json({ error, details });
}

/** The lead id of a path (`:id`) as leadIdParam reads it, or the problem with it. */
export function leadIdOrProblem(value: unknown): number | InputProblem {
  return leadIdParam(value) ?? { path: 'id', message: 'must be a positive integer' };
}
