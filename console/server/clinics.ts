// GET /admin/clinics -> ClinicsResponse: every clinic (id, nome) the principal may see (lead-scope.ts), by id; at most 1000.
import type { RequestHandler } from 'express';
import type { Database } from '../../adapters/db/database.js';
import type { ClinicsResponse } from './api-types.js';
import { clinicVisibleTo } from './lead-scope.js';
import { principalOf } from './principal.js';

/** `GET /admin/clinics`: every clinic (id, nome) the principal may see, by id, at most 1000. */
export function listClinics(db: Database): RequestHandler {
  return async (_req, res) => {
    const rows = await db.find('clinicas_com_atendentes', { order_by: [{ column: 'id', direction: 'asc' }], limit: 1000 });
    const visible = rows.filter((r) => clinicVisibleTo(principalOf(res), Number(r.id)));
    res.json({ clinics: visible.map((r) => ({ id: Number(r.id), nome: String(r.nome) })) } satisfies ClinicsResponse);
  };
}
