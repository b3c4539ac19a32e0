// GET /admin/clinics -> ClinicsResponse: every clinic (id, nome), by id; at most 1000.
import type { RequestHandler } from 'express';
import type { Database } from '../../adapters/db/database.js';
import type { ClinicsResponse } from './api-types.js';

/** `GET /admin/clinics`: every clinic (id, nome) by id, at most 1000. */
export function listClinics(db: Database): RequestHandler {
  return async (_req, res) => {
    const rows = await db.find('clinicas_com_atendentes', { order_by: [{ column: 'id', direction: 'asc' }], limit: 1000 });
    res.json({ clinics: rows.map((r) => ({ id: Number(r.id), nome: String(r.nome) })) } satisfies ClinicsResponse);
  };
}
