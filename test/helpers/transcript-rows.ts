// A lead's transcript (`mensagens`, CONTRACT §13) as the tests read it back.
import type { Database } from '../../adapters/db/database.js';
import type { Row } from '../../adapters/db/table-ops.js';

/** The lead's transcript rows in id order (the order they were written), at most 1000. */
export async function transcriptRows(db: Database, leadId: number): Promise<Row[]> {
  return (await db.find('mensagens', { where: { lead_id: leadId }, limit: 1000 })).sort((a, b) => Number(a.id) - Number(b.id));
}
