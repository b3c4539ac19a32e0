// GET /admin/leads/:id -> LeadResponse: the lead, its conversation (wf_chat_histories of its clinic
// and phone, oldest first, at most 1000 rows), its executions (newest first, at most 50) and its
// upcoming appointment (marcado or confirmado, still ahead; null without one).
// 422 {error, details: [{path: "id", message}]} on an id that is not a positive integer, 404 {error} when there is no such lead.
//
// A lead's executions are found by its phone: the records whose trigger, vars or key contain the
// remotejid or one of its Brazilian forms with the country code (store.list({containing})). That is
// what every flow about a lead carries — the agent's chatid, handoff's telefone, the follow-up's key,
// the lead row in vars (intake, lead-action) — and needs no extra column. A phone that is a lead of
// two clinics shows both clinics' executions on each.
import type { RequestHandler } from 'express';
import type { BookingService } from '../../adapters/calendar/booking-service.js';
import type { Database } from '../../adapters/db/database.js';
import { DEFAULT_TIMEZONE } from '../../adapters/hours/business-hours.js';
import { toAgendaAppointment } from './agenda-rows.js';
import { brazilianVariants } from '../../adapters/phones/brazilian-variants.js';
import type { ExecutionStore } from '../../engine/store/execution-store.js';
import type { ExecutionRecord } from '../../engine/types.js';
import type { AgendaAppointment, ChatMessageRow, ExecutionSummary, LeadHandoff, LeadResponse } from './api-types.js';
import { lastMessageOf } from './last-message.js';
import { visibleLead } from './lead-scope.js';
import { leadIdOrProblem, sendApiError, sendInvalid, toLeadDetail } from './lead-rows.js';
import { isAdmin, principalOf } from './principal.js';

/** Most executions on a lead's page. */
export const LEAD_EXECUTIONS_LIMIT = 50;
/** Most conversation rows on a lead's page (the table-ops limit). */
const MESSAGES_LIMIT = 1000;

/** Texts marking an execution as the lead's: its remotejid and its forms with the country code. */
export function leadPhoneNeedles(remotejid: string): string[] {
  return [...new Set([remotejid, ...brazilianVariants(remotejid).filter((v) => v.startsWith('55'))])];
}

/** An execution as a lead's page lists it: id, flow, status, start, end, stop reason and flow version (null when unset). */
export function toExecutionSummary(r: ExecutionRecord): ExecutionSummary {
  return {
    id: r.id,
    flow: r.flow,
    status: r.status,
    started_at: r.created_at,
    finished_at: r.finished_at ?? null,
    stop_reason: r.stop_reason ?? null,
    flow_version: r.flow_version ?? null,
  };
}

/**
 * The lead's latest handoff by the handoff endpoint: from the newest successful `handoff` execution of
 * `executions` (newest first), its trigger's `motivo` and its `summary` step's `summary` (flows/handoff.yaml).
 */
export function latestHandoff(executions: ExecutionRecord[]): LeadHandoff | null {
  const record = executions.find((r) => r.flow === 'handoff' && r.status === 'success');
  if (!record) return null;
  const body = record.trigger.body;
  const motivo = body && typeof body === 'object' && !Array.isArray(body) && typeof body.motivo === 'string' ? body.motivo.trim() : '';
  const output = record.steps.find((step) => step.id === 'summary' && step.status === 'success')?.output;
  const summary =
    output && typeof output === 'object' && !Array.isArray(output) && typeof output.summary === 'string' ? output.summary.trim() : '';
  return { motivo: motivo || null, resumo: summary || null, at: record.created_at, execution_id: record.id };
}

/** The lead's executions, newest first, at most LEAD_EXECUTIONS_LIMIT: those holding its phone (leadPhoneNeedles). */
export function leadExecutions(store: ExecutionStore, remotejid: string): Promise<ExecutionRecord[]> {
  return store.list({ containing: leadPhoneNeedles(remotejid), limit: LEAD_EXECUTIONS_LIMIT });
}

/** The lead's upcoming appointment at its clinic, times in the clinic's zone; null without one (or without agenda). */
async function upcomingAppointment(
  booking: BookingService,
  lead: { id: number; clinica_id: number; nome: string | null; remotejid: string },
): Promise<AgendaAppointment | null> {
  const store = booking.open();
  const upcoming = await store.upcomingFor(lead.clinica_id, lead.id);
  if (!upcoming) return null;
  const clinic = await store.clinic(lead.clinica_id).catch(() => null);
  return toAgendaAppointment(upcoming, lead, clinic?.timezone ?? DEFAULT_TIMEZONE);
}

/** `GET /admin/leads/:id`: the lead, its conversation, its executions, its latest handoff and upcoming appointment (see the header). */
export function getLead(db: Database, store: ExecutionStore, booking: BookingService): RequestHandler {
  return async (req, res) => {
    const id = leadIdOrProblem(req.params.id);
    if (typeof id === 'object') return sendInvalid(res, 'invalid input', [id]);
    const row = await visibleLead(db, principalOf(res), id);
    if (!row) return sendApiError(res, 404, 'no such lead');
    const remotejid = String(row.remotejid);
    const who = { id, clinica_id: Number(row.clinica_id), nome: row.nome ? String(row.nome) : null, remotejid };
    const [history, executions, agendamento, last] = await Promise.all([
      db.find('wf_chat_histories', {
        where: { clinica_id: row.clinica_id, session_id: remotejid },
        order_by: [{ column: 'id', direction: 'asc' }],
        limit: MESSAGES_LIMIT,
      }),
      leadExecutions(store, remotejid),
      upcomingAppointment(booking, who),
      lastMessageOf(db.knex, id),
    ]);
    const messages: ChatMessageRow[] = history.map((m) => ({
      id: Number(m.id),
      type: m.type as ChatMessageRow['type'],
      content: String(m.content),
      created_at: String(m.created_at),
    }));
    res.json({
      lead: toLeadDetail(row, Date.now(), last),
      messages,
      // Executions are the admins' (CONTRACT.md §13): the clinic's people see none here either.
      executions: isAdmin(principalOf(res)) ? executions.map(toExecutionSummary) : [],
      handoff: latestHandoff(executions),
      agendamento,
    } satisfies LeadResponse);
  };
}
