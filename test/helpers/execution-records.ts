// A plain execution record for store tests: no steps, a small trigger body, created `createdMs`
// after 2025-01-01T00:00:00Z (so order by creation is controlled), `extra` over it.
import type { ExecutionRecord, ExecutionStatus } from '../../engine/types.js';

/** 2025-01-01T00:00:00Z, ms since epoch: the time records made by `storeRecord` count from. */
export const RECORDS_BASE_MS = Date.UTC(2025, 0, 1);

/** A record `id` of `flow` in `status`, created and updated RECORDS_BASE_MS + `createdMs`. */
export function storeRecord(
  id: string,
  flow: string,
  status: ExecutionStatus,
  createdMs: number,
  extra: Partial<ExecutionRecord> = {},
): ExecutionRecord {
  const at = new Date(RECORDS_BASE_MS + createdMs).toISOString();
  return {
    id,
    flow,
    status,
    trigger: { body: { n: 1 } },
    vars: {},
    steps: [],
    outbound: [],
    dry_run: false,
    created_at: at,
    updated_at: at,
    ...extra,
  };
}
