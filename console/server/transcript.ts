// `GET /admin/leads/:id/messages?after=<id>` (CONTRACT.md §13): the lead's transcript (`mensagens`,
// written by the flows' transcript.record steps) in time order, for the lead's page.
//   - The lead must be visible to the principal (lead-scope.ts): otherwise 404, as if it did not exist.
//   - Without `after`: the newest TRANSCRIPT_LIMIT rows. With `after` (a row id, an integer ≥ 0): only
//     rows with a greater id (the live view polls with the greatest id it holds; a row written later
//     with an earlier time, e.g. a reply's paragraph, still comes: ids grow as rows are written).
//   - Time order: created_at, then id. `aguardando`: the lead wrote last (its last row that is not an
//     event is `entrada`) while the agent is paused (pausado_ate ahead) or the lead is transferred.
//   - `after` not a whole number ≥ 0: 422.
import type { RequestHandler } from 'express';
import type { Database } from '../../adapters/db/database.js';
import type { Row } from '../../adapters/db/table-ops.js';
import { visibleLead } from './lead-scope.js';
import { leadIdOrProblem, leadState, sendApiError, sendInvalid } from './lead-rows.js';
import type { TranscriptMessage, TranscriptResponse } from './people-api-types.js';
import { principalOf } from './principal.js';

/** Most rows one answer holds (the newest ones without `after`, the oldest new ones with it). */
export const TRANSCRIPT_LIMIT = 1000;

/** A `mensagens` row as the console shows it. */
export function toTranscriptMessage(row: Row): TranscriptMessage {
  return {
    id: Number(row.id),
    direcao: row.direcao as TranscriptMessage['direcao'],
    autor: row.autor as TranscriptMessage['autor'],
    autor_nome: typeof row.autor_nome === 'string' && row.autor_nome !== '' ? row.autor_nome : null,
    tipo: row.tipo as TranscriptMessage['tipo'],
    conteudo: typeof row.conteudo === 'string' ? row.conteudo : '',
    status: (typeof row.status === 'string' ? row.status : null) as TranscriptMessage['status'],
    created_at: String(row.created_at),
    ...(hasMedium(row) ? { midia: true as const } : {}),
  };
}

/** The kinds of row that can hold a medium (CONTRACT §13 `tipo`). */
const MEDIA_KINDS = new Set(['audio', 'imagem', 'video', 'documento']);

/** True when the row is a medium with a gateway reference to fetch it by (migration 017). */
export function hasMedium(row: Row): boolean {
  return MEDIA_KINDS.has(String(row.tipo)) && typeof row.midia_ref === 'string' && row.midia_ref !== '';
}

/** `after` as a row id: undefined when absent, null when not a whole number ≥ 0. */
function afterParam(value: unknown): number | undefined | null {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) return null;
  return Number(value);
}

const byTime = (a: TranscriptMessage, b: TranscriptMessage): number => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id - b.id;

/** True when the lead's last row that is not an event came from the lead. */
async function leadWroteLast(db: Database, leadId: number): Promise<boolean> {
  const last = await db
    .knex('mensagens')
    .where({ lead_id: leadId })
    .whereNot({ tipo: 'evento' })
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first('direcao');
  return last?.direcao === 'entrada';
}

/** The handler of `GET /admin/leads/:id/messages` (see the file's head). */
export function getTranscript(db: Database): RequestHandler {
  return async (req, res) => {
    const id = leadIdOrProblem(req.params.id);
    if (typeof id === 'object') return sendInvalid(res, 'invalid input', [id]);
    const after = afterParam(req.query.after);
    if (after === null) return sendInvalid(res, 'invalid input', [{ path: 'after', message: 'must be a whole number ≥ 0' }]);
    const lead = await visibleLead(db, principalOf(res), id);
    if (!lead) return sendApiError(res, 404, 'no such lead');
    const rows =
      after === undefined
        ? await db.find('mensagens', {
            where: { lead_id: id },
            order_by: [
              { column: 'created_at', direction: 'desc' },
              { column: 'id', direction: 'desc' },
            ],
            limit: TRANSCRIPT_LIMIT,
          })
        : await db.find('mensagens', {
            where: { lead_id: id, id: { gt: after } },
            order_by: [{ column: 'id', direction: 'asc' }],
            limit: TRANSCRIPT_LIMIT,
          });
    const messages = rows.map(toTranscriptMessage).sort(byTime);
    const state = leadState(lead, Date.now());
    const aguardando = (state === 'paused' || state === 'transferred') && (await leadWroteLast(db, id));
    res.json({ messages, aguardando } satisfies TranscriptResponse);
  };
}
