// The JSON bodies of the admin executions API (admin-routes.ts), as types only: the server answers
// with them and the console (console/src, `import type`) reads them, so both compile against the
// same shapes. Nothing here exists at run time. Timestamps are ISO 8601 strings (UTC); `ms` and
// `duration_ms` are milliseconds; `wake_at` is ms since epoch. Error answers are AdminErrorBody.
import type { ExecutionRecord, ExecutionStatus, StepError, StepRecord, StepStatus } from '../types.js';

export type { ExecutionRecord, ExecutionStatus, StepError, StepRecord, StepStatus };

/** One line of `GET /admin/executions` (newest first): what `leadflow executions list` shows. */
export interface ExecutionListItem {
  id: string;
  flow: string;
  status: ExecutionStatus;
  created_at: string;
  updated_at: string;
  /** Null while unfinished. */
  finished_at: string | null;
  /** From `created_at` to `finished_at`, or to `updated_at` while unfinished, ms. */
  duration_ms: number;
  /** How many step records it has. */
  steps: number;
  dry_run: boolean;
  parent_id?: string;
  flow_version?: string;
  stop_reason?: string;
  /** Its key (flow `concurrency:` or a flow.start `key`). */
  key?: string;
  replaced_by?: string;
  error?: { message: string; step?: string };
}

/** `GET /admin/executions?flow=&status=&version=&containing=&limit=`. */
export interface ExecutionListResponse {
  executions: ExecutionListItem[];
}

/** `GET /admin/executions/:id`: the whole record. */
export type ExecutionResponse = ExecutionRecord;

/** `POST /admin/executions/:id/replay`: 202, a new execution started with the recorded trigger. */
export interface ReplayStartedResponse {
  execution_id: string;
  replay_of: string;
}

/** `POST /admin/executions/:id/replay?dry_run=true`: 200 with the finished record, kept in memory only. */
export interface DryRunReplayResponse {
  replay_of: string;
  execution: ExecutionRecord;
}

/** `POST /admin/executions/:id/cancel` body; optional as a whole. */
export interface CancelExecutionRequest {
  /** Stored as the execution's `stop_reason`; 1 to 200 characters. Default `cancelled by an operator`. */
  reason?: string;
}

/** `POST /admin/executions/:id/cancel`: 200 once the running or waiting execution is cancelled. */
export interface CancelExecutionResponse {
  id: string;
  status: 'cancelled';
}

/** Every error answer of the admin surface: `details` names each problem (`path`, `message`) where there are several. */
export interface AdminErrorBody {
  error: string;
  details: unknown[];
}
