// The clinic's agenda on the admin router (CONTRACT.md §12, the clinic's side). Bodies: api-types.ts.
//   GET  /clinics/:id/agenda?dia=YYYY-MM-DD&vista=dia|semana   AgendaResponse (any status, by start)
//   GET  /clinics/:id/agenda/horarios?dia=YYYY-MM-DD&lead_id=  AgendaSlotsResponse (that local day's free slots)
//   POST /clinics/:id/agenda {lead_id, inicio}                 201 AgendaActionResponse `marcado` (origem console)
//   POST /agendamentos/:id/mover {inicio}                      200 `remarcado` (an upcoming appointment only)
//   POST /agendamentos/:id/cancelar {motivo?}                  200 `cancelado` (an upcoming appointment only)
//   POST /agendamentos/:id/presenca {status: compareceu|faltou} 200 (any appointment but a cancelled one)
// Answers (messages in Portuguese): 422 {error, details} a malformed id, query or body field; 400 a
// body that is not JSON; 413 over 4 KB; 404 no such clinic, appointment or lead of that clinic; 409
// a clinic without `agenda` (or a malformed one), a slot no longer free (`alternativas` beside), a
// lead that already has an upcoming appointment (move it instead), an appointment that cannot take
// the action, the flow agenda-action not loaded; 503 the change failed (the clinic's calendar could
// not be reached: nothing changed; `execution_id` names the failed execution).
// Roles (CONTRACT.md §13, lead-scope.ts): a clinic, appointment or lead the principal may not see is
// 404 like an unknown one; a hunter's agenda lists the appointments of the leads it may see.
// Times: `inicio` is an ISO 8601 instant (the `inicio` of a free slot); days are the clinic's local days.
// Each change is one execution of flows/agenda-action.yaml (agenda-action.ts: the booking store, the
// Hunter's notice through flows/agenda-notice.yaml, then the reminders), awaited; the answers carry
// its `execution_id`.
import express, { type Request, type Response, type Router } from 'express';
import { NoAgendaError } from '../../adapters/calendar/appointments.js';
import { AgendaConfigError } from '../../adapters/calendar/agenda-config.js';
import { CalendarUnavailableError } from '../../adapters/calendar/calendar.js';
import { appointmentOf } from '../../adapters/calendar/appointment-rows.js';
import type { BookingService } from '../../adapters/calendar/booking-service.js';
import { localSlotText } from '../../adapters/calendar/slot-grid.js';
import type { Database } from '../../adapters/db/database.js';
import { DEFAULT_TIMEZONE } from '../../adapters/hours/business-hours.js';
import type { Engine } from '../../engine/engine.js';
import { enforceJsonLimits } from '../../engine/triggers/json-limits.js';
import { sendError } from '../../engine/triggers/webhook-pipeline.js';
import {
  agendaQuery,
  instantParam,
  listingToAgenda,
  localDay,
  objectBody,
  positiveId,
  toAgendaAppointment,
  toAgendaClinic,
  viewSpan,
} from './agenda-rows.js';
import type { AgendaActionResponse, AgendaResponse, AgendaSlotsResponse } from './api-types.js';
import { AGENDA_ACTION_FLOW, type AgendaActionInput, runAgendaAction } from './agenda-action.js';
import { clinicVisibleTo, scopeLeadsQuery, visibleLead } from './lead-scope.js';
import { type InputProblem, sendApiError, sendInvalid } from './lead-rows.js';
import { recordAudit } from './audit.js';
import { type Principal, principalOf } from './principal.js';

const BODY_LIMIT = '4kb';
const withinJsonLimits = enforceJsonLimits(sendError, (req) => req.body);
const json = [express.json({ limit: BODY_LIMIT }), withinJsonLimits];

/** What the agenda routes use: the database, the booking store, the engine (reminders). */
export interface AgendaDeps {
  db: Database;
  booking: BookingService;
  engine: Engine;
}

/** The audit row of each change (CONTRACT §13). */
const AUDIT_OF = { marcar: 'agenda_marcar', remarcar: 'agenda_mover', cancelar: 'agenda_cancelar', presenca: 'agenda_presenca' } as const;

/** A failure with its answer. */
class AgendaHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Runs `handler`, answering its AgendaHttpError, the store's errors (409 no agenda, 503 provider) as such. */
function handled(handler: (req: Request, res: Response) => Promise<void>) {
  return async (req: Request, res: Response) => {
    try {
      await handler(req, res);
    } catch (err) {
      if (err instanceof AgendaHttpError) return void res.status(err.status).json({ error: err.message, details: [], ...err.extra });
      if (err instanceof NoAgendaError) return sendApiError(res, 409, 'a clínica não tem agenda configurada');
      if (err instanceof AgendaConfigError) return sendApiError(res, 409, 'a agenda da clínica está mal configurada');
      if (err instanceof CalendarUnavailableError)
        return sendApiError(res, 503, 'não consegui acessar a agenda da clínica agora; tente de novo');
      throw err;
    }
  };
}

function invalid(problems: InputProblem[]): AgendaHttpError {
  return new AgendaHttpError(422, 'dados inválidos', { details: problems });
}

/** The clinic of the path with its booking setup (null without agenda) and zone; 404 when unknown or not the principal's. */
async function clinicOf(deps: AgendaDeps, param: unknown, principal: Principal) {
  const id = positiveId(param);
  if (id === undefined) throw invalid([{ path: 'id', message: 'deve ser um número inteiro positivo' }]);
  const row = clinicVisibleTo(principal, id) ? await deps.db.get('clinicas_com_atendentes', { id }) : undefined;
  if (!row) throw new AgendaHttpError(404, 'clínica não encontrada');
  let booking = null;
  try {
    booking = await deps.booking.open().clinic(id);
  } catch (err) {
    if (!(err instanceof AgendaConfigError)) throw err;
  }
  return { id, nome: String(row.nome), booking, timezone: booking?.timezone ?? DEFAULT_TIMEZONE };
}

/** The appointment of the path with its lead; 404 when unknown or its lead is not the principal's. */
async function appointmentOfPath(deps: AgendaDeps, param: unknown, principal: Principal) {
  const id = positiveId(param);
  if (id === undefined) throw invalid([{ path: 'id', message: 'deve ser um número inteiro positivo' }]);
  const row = await deps.db.get('agendamentos', { id });
  const lead = row ? await visibleLead(deps.db, principal, Number(row.lead_id)) : undefined;
  if (!row || !lead || !clinicVisibleTo(principal, Number(row.clinica_id))) throw new AgendaHttpError(404, 'agendamento não encontrado');
  return { id, row, lead: { nome: lead?.nome ? String(lead.nome) : null, remotejid: lead ? String(lead.remotejid) : '' } };
}

/** `inicio` of a body (an ISO instant), or its problem. */
function inicioOf(body: Record<string, unknown>): number | InputProblem {
  return (
    instantParam(body.inicio) ?? { path: 'inicio', message: 'deve ser um instante ISO 8601 com fuso (o `inicio` de um horário livre)' }
  );
}

/** Runs the change (agenda-action.ts) and answers it: the appointment afterwards, or the failure. */
async function change(
  deps: AgendaDeps,
  res: Response,
  input: AgendaActionInput,
  lead: { nome: string | null; remotejid: string },
  timezone: string,
) {
  const outcome = await runAgendaAction(deps.engine, input);
  if (!outcome) throw new AgendaHttpError(409, `o fluxo ${AGENDA_ACTION_FLOW} não está carregado`);
  const extra = { execution_id: outcome.execution_id };
  if (!outcome.ok) throw new AgendaHttpError(503, 'não consegui acessar a agenda da clínica agora; tente de novo', extra);
  if (outcome.status === 'indisponivel')
    throw new AgendaHttpError(409, 'esse horário não está mais livre; escolha outro', { ...extra, alternativas: outcome.alternativas });
  const row = outcome.agendamento_id === null ? null : await deps.db.get('agendamentos', { id: outcome.agendamento_id });
  if (!row) throw new AgendaHttpError(409, 'o agendamento não pôde ser alterado', extra);
  const status = (input.acao === 'presenca' ? input.status : outcome.status) as AgendaActionResponse['status'];
  await recordAudit(deps.db, principalOf(res), {
    acao: AUDIT_OF[input.acao],
    clinica_id: input.clinica_id,
    lead_id: input.lead_id,
    detalhes: { agendamento_id: Number(row.id), status },
  });
  res.status(input.acao === 'marcar' ? 201 : 200).json({
    status,
    agendamento: toAgendaAppointment(appointmentOf(row), lead, timezone),
    execution_id: outcome.execution_id,
  } satisfies AgendaActionResponse);
}

function getAgenda(deps: AgendaDeps) {
  return handled(async (req, res) => {
    const clinic = await clinicOf(deps, req.params.id, principalOf(res));
    const parsed = agendaQuery(req.query as Record<string, unknown>, clinic.timezone);
    if ('problems' in parsed) return sendInvalid(res, 'consulta inválida', parsed.problems);
    const { dias, start, end } = viewSpan(parsed.day, parsed.vista);
    const rows = await visibleRows(deps, principalOf(res), await deps.booking.open().listForClinic(clinic.id, { start, end }));
    res.set('Cache-Control', 'no-store');
    res.json({
      clinica: toAgendaClinic(clinic.id, clinic.nome, clinic.booking, clinic.timezone),
      vista: parsed.vista,
      dias,
      agendamentos: rows.map((r) => listingToAgenda(r, clinic.timezone)),
    } satisfies AgendaResponse);
  });
}

/** The listed appointments whose leads the principal may see (all of them but for a hunter). */
async function visibleRows<T extends { lead_id: number }>(deps: AgendaDeps, principal: Principal, rows: T[]): Promise<T[]> {
  if (rows.length === 0 || principal.kind !== 'user' || principal.papel !== 'hunter') return rows;
  const ids = [...new Set(rows.map((r) => r.lead_id))];
  const seen = (await scopeLeadsQuery(deps.db.knex('leads').whereIn('leads.id', ids), principal).select('leads.id')) as Array<{
    id: number;
  }>;
  const visible = new Set(seen.map((r) => Number(r.id)));
  return rows.filter((r) => visible.has(r.lead_id));
}

function getSlots(deps: AgendaDeps) {
  return handled(async (req, res) => {
    const clinic = await clinicOf(deps, req.params.id, principalOf(res));
    const day = localDay(req.query.dia, clinic.timezone);
    const leadId = req.query.lead_id === undefined ? null : positiveId(req.query.lead_id);
    const problems: InputProblem[] = [];
    if (!day) problems.push({ path: 'dia', message: 'informe uma data AAAA-MM-DD (uma só vez)' });
    if (leadId === undefined) problems.push({ path: 'lead_id', message: 'deve ser um número inteiro positivo' });
    if (!day || leadId === undefined) return sendInvalid(res, 'consulta inválida', problems);
    if (!clinic.booking) throw new NoAgendaError(clinic.id);
    const { slots } = await deps.booking.open().freeSlots(clinic.id, leadId);
    const dia = day.toISODate()!;
    const horarios = slots
      .filter((s) => localSlotText(s.start, clinic.timezone).startsWith(dia))
      .map((s) => ({ inicio: new Date(s.start).toISOString(), hora: localSlotText(s.start, clinic.timezone).slice(11) }));
    res.set('Cache-Control', 'no-store');
    res.json({ dia, timezone: clinic.timezone, horarios } satisfies AgendaSlotsResponse);
  });
}

function postBook(deps: AgendaDeps) {
  return handled(async (req, res) => {
    const clinic = await clinicOf(deps, req.params.id, principalOf(res));
    const body = objectBody(req.body, '{"lead_id", "inicio"}');
    if ('path' in body && 'message' in body) throw invalid([body as InputProblem]);
    const leadId = positiveId(body.lead_id);
    const inicio = inicioOf(body);
    const problems = [...(leadId === undefined ? [{ path: 'lead_id', message: 'deve ser um número inteiro positivo' }] : [])];
    if (typeof inicio === 'object') problems.push(inicio);
    if (leadId === undefined || typeof inicio === 'object') throw invalid(problems);
    const lead = await visibleLead(deps.db, principalOf(res), leadId);
    if (!lead || Number(lead.clinica_id) !== clinic.id) throw new AgendaHttpError(404, 'lead não encontrado nesta clínica');
    if (!clinic.booking) throw new NoAgendaError(clinic.id);
    const upcoming = await deps.booking.open().upcomingFor(clinic.id, leadId);
    if (upcoming)
      throw new AgendaHttpError(409, 'este lead já tem um agendamento; remarque-o em vez de marcar outro', { agendamento_id: upcoming.id });
    const who = { nome: lead.nome ? String(lead.nome) : null, remotejid: String(lead.remotejid) };
    await change(deps, res, { acao: 'marcar', clinica_id: clinic.id, lead_id: leadId, inicio }, who, clinic.timezone);
  });
}

/** The appointment of the path when it is its lead's upcoming one; 409 otherwise. */
async function upcomingOfPath(deps: AgendaDeps, req: Request, res: Response, what: string) {
  const found = await appointmentOfPath(deps, req.params.id, principalOf(res));
  const clinicId = Number(found.row.clinica_id);
  const upcoming = await deps.booking.open().upcomingFor(clinicId, Number(found.row.lead_id));
  if (upcoming?.id !== found.id) throw new AgendaHttpError(409, `só um agendamento futuro (marcado ou confirmado) pode ser ${what}`);
  const clinic = await clinicOf(deps, String(clinicId), principalOf(res));
  return { ...found, clinic, upcoming };
}

function postMove(deps: AgendaDeps) {
  return handled(async (req, res) => {
    const body = objectBody(req.body, '{"inicio"}');
    if ('path' in body && 'message' in body) throw invalid([body as InputProblem]);
    const inicio = inicioOf(body);
    const pathId = positiveId(req.params.id);
    if (pathId === undefined || typeof inicio === 'object')
      throw invalid([
        ...(pathId === undefined ? [{ path: 'id', message: 'deve ser um número inteiro positivo' }] : []),
        ...(typeof inicio === 'object' ? [inicio] : []),
      ]);
    const found = await upcomingOfPath(deps, req, res, 'remarcado');
    const input = { acao: 'remarcar', clinica_id: found.clinic.id, lead_id: found.upcoming.lead_id, inicio } as const;
    await change(deps, res, input, found.lead, found.clinic.timezone);
  });
}

function postCancel(deps: AgendaDeps) {
  return handled(async (req, res) => {
    const body = req.body === undefined ? {} : objectBody(req.body, '{"motivo"?}');
    if ('path' in body && 'message' in body) throw invalid([body as InputProblem]);
    const motivo = (body as Record<string, unknown>).motivo ?? '';
    if (typeof motivo !== 'string' || motivo.length > 500)
      throw invalid([{ path: 'motivo', message: 'deve ser um texto de até 500 caracteres' }]);
    if (positiveId(req.params.id) === undefined) throw invalid([{ path: 'id', message: 'deve ser um número inteiro positivo' }]);
    const found = await upcomingOfPath(deps, req, res, 'cancelado');
    const input = {
      acao: 'cancelar',
      clinica_id: found.clinic.id,
      lead_id: found.upcoming.lead_id,
      motivo: motivo || 'cancelado pelo console',
    } as const;
    await change(deps, res, input, found.lead, found.clinic.timezone);
  });
}

function postAttendance(deps: AgendaDeps) {
  return handled(async (req, res) => {
    const body = objectBody(req.body, '{"status": "compareceu" | "faltou"}');
    if ('path' in body && 'message' in body) throw invalid([body as InputProblem]);
    const status = body.status;
    const problems: InputProblem[] = [];
    if (positiveId(req.params.id) === undefined) problems.push({ path: 'id', message: 'deve ser um número inteiro positivo' });
    if (status !== 'compareceu' && status !== 'faltou') problems.push({ path: 'status', message: 'deve ser "compareceu" ou "faltou"' });
    if (problems.length > 0) throw invalid(problems);
    const found = await appointmentOfPath(deps, req.params.id, principalOf(res));
    if (found.row.status === 'cancelado') throw new AgendaHttpError(409, 'um agendamento cancelado não recebe presença nem falta');
    const clinic = await clinicOf(deps, String(found.row.clinica_id), principalOf(res));
    const input = {
      acao: 'presenca',
      clinica_id: clinic.id,
      lead_id: Number(found.row.lead_id),
      agendamento_id: found.id,
      status: status as 'compareceu' | 'faltou',
    } as const;
    await change(deps, res, input, found.lead, clinic.timezone);
  });
}

/** Adds the agenda's routes (see the header) to the admin router. */
export function mountAgenda(router: Router, deps: AgendaDeps): void {
  router.get('/clinics/:id/agenda', getAgenda(deps));
  router.get('/clinics/:id/agenda/horarios', getSlots(deps));
  router.post('/clinics/:id/agenda', ...json, postBook(deps));
  router.post('/agendamentos/:id/mover', ...json, postMove(deps));
  router.post('/agendamentos/:id/cancelar', ...json, postCancel(deps));
  router.post('/agendamentos/:id/presenca', ...json, postAttendance(deps));
}
