// The instance-token check of `POST /leadagent` (CONTRACT §4): which registered WhatsApp instance
// (`instancias_whatsapp`) an inbound gateway event's `token` belongs to. Every registered token is
// compared, each in constant time (engine/constant-time.ts: lengths do not matter either), without
// stopping at a match: the answer time does not depend on the token sent. The table is small (one
// row per clinic phone); it is read in pages of 1000 rows.
import { constantTimeEqual } from '../../engine/constant-time.js';
import type { Row, FindOptions } from '../db/table-ops.js';

/** What the check hands the flow as `trigger.auth`: never the token. */
export interface InstanceGrant {
  [key: string]: number;
  instance_id: number;
  clinica_id: number;
}

export interface InstanceRowSource {
  find(table: string, options?: FindOptions): Promise<Row[]>;
}

const PAGE = 1000;

/** `{instance_id, clinica_id}` of the instance whose token is `token`, or undefined (also for ''). */
export async function findInstanceByToken(db: InstanceRowSource, token: string): Promise<InstanceGrant | undefined> {
  let found: Row | undefined;
  let after: number | undefined;
  for (;;) {
    const rows = await db.find('instancias_whatsapp', {
      ...(after !== undefined ? { where: { id: { gt: after } } } : {}),
      order_by: [{ column: 'id', direction: 'asc' }],
      limit: PAGE,
    });
    for (const row of rows) {
      const stored = typeof row.token === 'string' ? row.token : '';
      const same = constantTimeEqual(token, stored);
      if (same && stored !== '' && !found) found = row;
    }
    if (rows.length < PAGE) break;
    after = Number(rows[rows.length - 1]!.id);
  }
  if (!found || token === '') return undefined;
  return { instance_id: Number(found.id), clinica_id: Number(found.clinica_id) };
}
