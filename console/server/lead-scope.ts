// Which leads and clinics a principal may see (CONTRACT.md §13), one rule for every console route:
//   admin (or the token)  every clinic, every lead
//   equipe                the leads of its clinics
//   hunter                the leads of its clinics that are transferred (`transferido`) or have an
//                         appointment that is not cancelled
// A lead outside the scope does not exist for the principal: its routes answer 404, its lists
// leave it out (never a 403 that would tell it exists).
import type { Knex } from 'knex';
import type { Database } from '../../adapters/db/database.js';
import type { Row } from '../../adapters/db/table-ops.js';
import { clinicScope, type Principal } from './principal.js';

/** True when the principal may see clinic `clinicaId`. */
export function clinicVisibleTo(principal: Principal, clinicaId: number): boolean {
  const scope = clinicScope(principal);
  return scope === 'all' || scope.includes(clinicaId);
}

/** SQL (with its bindings) true for an appointment of `leads.id` that is not cancelled. */
const HAS_APPOINTMENT = "exists (select 1 from agendamentos a where a.lead_id = leads.id and a.status <> 'cancelado')";

/**
 * Narrows a query on `leads` (the table under its own name) to the principal's leads: nothing for
 * admins; its clinics for equipe; its clinics' transferred or booked leads for hunters.
 */
export function scopeLeadsQuery(query: Knex.QueryBuilder, principal: Principal): Knex.QueryBuilder {
  const scope = clinicScope(principal);
  if (scope === 'all') return query;
  query.whereIn('leads.clinica_id', scope);
  if (principal.kind === 'user' && principal.papel === 'hunter') {
    query.where((w) => {
      w.where('leads.transferido', true).orWhereRaw(HAS_APPOINTMENT);
    });
  }
  return query;
}

/** True when the principal may see this lead row (see the header). */
export async function leadVisibleTo(db: Database, principal: Principal, lead: Row): Promise<boolean> {
  const id = Number(lead.id);
  const found = await scopeLeadsQuery(db.knex('leads').where('leads.id', id), principal).first('leads.id');
  return found !== undefined;
}

/** The lead `id` when it exists and the principal may see it; undefined otherwise (answer 404). */
export async function visibleLead(db: Database, principal: Principal, id: number): Promise<Row | undefined> {
  const lead = await db.get('leads', { id });
  return lead && (await leadVisibleTo(db, principal, lead)) ? lead : undefined;
}
