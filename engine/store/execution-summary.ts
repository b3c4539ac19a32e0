// What a list of executions shows of each one (`GET /admin/executions`, `leadflow executions list`):
// the record without its payloads (trigger, vars, step records, outbound calls, response, output),
// with how many steps it has. A store that can read these without reading whole records
// (ExecutionStore.listSummaries: the database selects the columns and counts the steps in SQL) lists
// in time that does not grow with the size of the bodies recorded; the memory store summarises its
// list(), with the same result.
import type { ExecutionRecord } from '../types.js';
import type { ExecutionStore, ListOptions } from './execution-store.js';

/** One execution as a list shows it: `step_count` is the number of its step records. */
export type ExecutionSummary = Pick<ExecutionRecord, 'id' | 'flow' | 'status' | 'created_at' | 'updated_at' | 'dry_run'> &
  Partial<
    Pick<ExecutionRecord, 'finished_at' | 'parent_id' | 'flow_version' | 'stop_reason' | 'concurrency_key' | 'replaced_by' | 'error'>
  > & { step_count: number };

/** The summary of a whole record (members absent from the record are absent from the summary). */
export function summaryOfRecord(r: ExecutionRecord): ExecutionSummary {
  return {
    id: r.id,
    flow: r.flow,
    status: r.status,
    created_at: r.created_at,
    updated_at: r.updated_at,
    dry_run: r.dry_run,
    step_count: r.steps.length,
    ...(r.finished_at !== undefined ? { finished_at: r.finished_at } : {}),
    ...(r.parent_id !== undefined ? { parent_id: r.parent_id } : {}),
    ...(r.flow_version !== undefined ? { flow_version: r.flow_version } : {}),
    ...(r.stop_reason !== undefined ? { stop_reason: r.stop_reason } : {}),
    ...(r.concurrency_key !== undefined ? { concurrency_key: r.concurrency_key } : {}),
    ...(r.replaced_by !== undefined ? { replaced_by: r.replaced_by } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
  };
}

/** The summaries of what `store.list(options)` gives, in its order (ExecutionStore.listSummaries). */
export function listExecutionSummaries(store: ExecutionStore, options: ListOptions = {}): Promise<ExecutionSummary[]> {
  return store.listSummaries(options);
}
