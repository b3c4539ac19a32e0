// JSON shapes of the existing execution endpoints (engine/triggers/admin-routes.ts), as the browser
// reads them: GET /admin/executions, GET /admin/executions/:id, POST /admin/executions/:id/replay.
// Timestamps are ISO strings; `ms` and `duration_ms` are milliseconds; `wake_at` is ms since epoch.

/** One line of `GET /admin/executions` (newest first). */
export interface ExecutionListItem {
  id: string;
  flow: string;
  status: string;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
  duration_ms: number;
  steps: number;
  dry_run: boolean;
  parent_id?: string;
  flow_version?: string;
  stop_reason?: string;
  key?: string;
  replaced_by?: string;
  error?: { message: string; step?: string };
}

export interface ExecutionListResponse {
  executions: ExecutionListItem[];
}

export interface StepErrorView {
  name: string;
  message: string;
  status?: number;
  body?: unknown;
  code?: string;
}

/** One step run, in the order the steps ran. */
export interface StepView {
  key: string;
  id: string;
  type: string;
  status: string;
  params?: unknown;
  output?: unknown;
  error?: StepErrorView;
  attempt: number;
  started_at: string;
  ms: number;
  state?: Record<string, unknown>;
}

/** `GET /admin/executions/:id`: the whole record. */
export interface ExecutionView {
  id: string;
  flow: string;
  status: string;
  trigger: Record<string, unknown>;
  steps: StepView[];
  wake_at?: number;
  dry_run: boolean;
  flow_version?: string;
  parent_id?: string;
  response?: { status: number; body: unknown };
  output?: unknown;
  error?: StepErrorView & { step?: string };
  stop_reason?: string;
  created_at: string;
  updated_at: string;
  finished_at?: string;
}

/** Real replay: 202. */
export interface ReplayStarted {
  execution_id: string;
  replay_of: string;
}

/** Dry-run replay: 200 with the finished record (kept in memory only). */
export interface DryRunReplay {
  replay_of: string;
  execution: ExecutionView;
}

/** The statuses an execution can have (engine/statuses.ts), for the filter. */
export const EXECUTION_STATUSES = ['running', 'waiting', 'success', 'failed', 'stopped', 'cancelled'] as const;
