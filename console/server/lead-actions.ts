// POST /admin/leads/:id/actions {action, confirm?} -> LeadActionResponse {execution_id, status, lead}.
// Each action is one execution of the flow `lead-action` (flows/lead-action.yaml, input
// {lead_id, action}), awaited to its end; `lead` is the row afterwards (null once erased).
//   400 {error}  body not JSON (a syntax error)
//   422 {error, details: [{path, message}]}  a lead id that is not a positive integer (`id`), a body
//                that is not an object (`(body)`), an unknown action (`action`), a `confirm` that is
//                not a string, or `erase` without `confirm` equal to the lead's remotejid (`confirm`);
//                nothing changed
//   404 {error}  no such lead
//   409 {error}  the flow `lead-action` is not loaded (a flows directory without it)
//   413 {error, details}  body over 4 KB, or past a shape limit of json-limits.ts (e.g. nested deeper than 32 levels)
// The answer is 200 whatever the execution's status; a failed one says so in `status`.
import express, { type Router } from 'express';
import type { Database } from '../../adapters/db/database.js';
import type { Engine } from '../../engine/engine.js';
import { enforceJsonLimits } from '../../engine/triggers/json-limits.js';
import { sendError } from '../../engine/triggers/webhook-pipeline.js';
import type { LeadAction, LeadActionResponse } from './api-types.js';
import { type AuditAction, recordAudit } from './audit.js';
import { visibleLead } from './lead-scope.js';
import { type InputProblem, leadIdOrProblem, sendApiError, sendInvalid, toLeadSummary } from './lead-rows.js';
import { principalOf } from './principal.js';

/** The flow each lead action runs as (flows/lead-action.yaml, input `{lead_id, action}`). */
export const LEAD_ACTION_FLOW = 'lead-action';
/** The actions `POST /admin/leads/:id/actions` accepts, in the order the lead page shows them. */
export const LEAD_ACTIONS: readonly LeadAction[] = ['pause', 'resume', 'transfer', 'untransfer', 'reset', 'erase'];
const BODY_LIMIT = '4kb';
/** 413 when the parsed body passes a shape limit of engine/triggers/json-limits.ts. */
const withinJsonLimits = enforceJsonLimits(sendError, (req) => req.body);

/** The audit row each action writes (CONTRACT §13). */
const AUDIT_OF: Record<LeadAction, AuditAction> = {
  pause: 'lead_pausar',
  resume: 'lead_retomar',
  transfer: 'lead_transferir',
  untransfer: 'lead_destransferir',
  reset: 'lead_limpar_memoria',
  erase: 'lead_excluir',
};

const isLeadAction = (value: unknown): value is LeadAction => LEAD_ACTIONS.includes(value as LeadAction);

/** The problems of a lead action's body (an object with a known `action` and an optional string `confirm`). */
function bodyProblems(body: unknown): InputProblem[] {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return [{ path: '(body)', message: 'must be an object {"action", "confirm"?}' }];
  const { action, confirm } = body as { action?: unknown; confirm?: unknown };
  const problems: InputProblem[] = [];
  if (!isLeadAction(action)) problems.push({ path: 'action', message: `must be one of ${LEAD_ACTIONS.join(', ')}` });
  if (confirm !== undefined && typeof confirm !== 'string') problems.push({ path: 'confirm', message: 'must be a string' });
  return problems;
}

/**
 * Adds `POST /leads/:id/actions` to the admin router: checks the body and the lead (see the header for the
 * answers), runs LEAD_ACTION_FLOW and answers once its execution has ended.
 */
export function mountLeadActions(router: Router, db: Database, engine: Engine): void {
  router.post('/leads/:id/actions', express.json({ limit: BODY_LIMIT }), withinJsonLimits, async (req, res) => {
    const id = leadIdOrProblem(req.params.id);
    const problems = [...(typeof id === 'object' ? [id] : []), ...bodyProblems(req.body)];
    if (problems.length > 0 || typeof id === 'object') return sendInvalid(res, 'invalid input', problems);
    const body = req.body as { action: LeadAction; confirm?: string };
    const row = await visibleLead(db, principalOf(res), id);
    if (!row) return sendApiError(res, 404, 'no such lead');
    if (body.action === 'erase' && body.confirm !== String(row.remotejid))
      return sendInvalid(res, 'invalid input', [{ path: 'confirm', message: "erase needs confirm equal to the lead's phone (remotejid)" }]);
    if (!engine.getFlow(LEAD_ACTION_FLOW)) return sendApiError(res, 409, `flow ${LEAD_ACTION_FLOW} is not loaded`);
    const handle = await engine.start(LEAD_ACTION_FLOW, { body: { lead_id: id, action: body.action } });
    const record = await engine.waitForEnd(handle.id);
    const after = await db.get('leads', { id });
    const facts = { acao: AUDIT_OF[body.action], clinica_id: Number(row.clinica_id), lead_id: id, detalhes: { status: record.status } };
    await recordAudit(db, principalOf(res), facts);
    res.json({ execution_id: record.id, status: record.status, lead: after ? toLeadSummary(after) : null } satisfies LeadActionResponse);
  });
}
