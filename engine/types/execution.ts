// What is recorded about an execution: its steps, its calls to the outside world and to other flows,
// its status. Timestamps are ISO strings; everything else is plain JSON.
import type { ExecutionStatus as Status } from '../statuses.js';
import type { JsonObject, JsonValue } from './json.js';

/** A start of another flow made by a step (`flow.start`), recorded on the execution like an outbound call. */
export interface FlowStart {
  step: string;
  flow: string;
  /** The key it was started under (given by the step, or the started flow's `concurrency.key`). */
  key?: string;
  input: JsonValue;
  /** The started execution; null when only recorded (dry run, flow test case). */
  execution_id: string | null;
  performed: boolean;
}

/** A cancel made by a step (`flow.cancel`), recorded on the execution like an outbound call. */
export interface FlowCancel {
  step: string;
  flow: string;
  key: string;
  reason?: string;
  /** The execution cancelled; null when there was none or when only recorded (dry run). */
  cancelled: string | null;
  performed: boolean;
}

/** Call made to the outside world, recorded on the execution (and only recorded in dry-run). */
export interface OutboundCall {
  step: string;
  kind: string;
  method?: string;
  url?: string;
  headers?: Record<string, string>;
  body?: JsonValue;
  performed: boolean;
  status?: number;
}

/** Where an execution is: `running`, `waiting` (parked at a wait or a child flow), or final (engine/statuses.ts declares the lists). */
export type ExecutionStatus = Status;
/** Where a step is: `running`, `waiting`, `success`, `error` (after its retries), `skipped`, `stopped`. */
export type StepStatus = 'running' | 'waiting' | 'success' | 'error' | 'skipped' | 'stopped';

/** A step failure as recorded: error name and message, and the HTTP status, body or code when there is one. */
export interface StepError {
  name: string;
  message: string;
  status?: number;
  body?: JsonValue;
  code?: string;
}

/** Record of one step run; `key` is unique per execution (step id plus the loop scope it ran in). */
export interface StepRecord {
  key: string;
  id: string;
  type: string;
  status: StepStatus;
  params?: JsonValue;
  output?: JsonValue;
  error?: StepError;
  attempt: number;
  /** ISO timestamp of the first attempt. */
  started_at: string;
  /** Wall time of the step's last attempt, milliseconds. */
  ms: number;
  /** Persisted state while waiting (e.g. wake time). */
  state?: JsonObject;
}

/** Everything stored about one execution; timestamps are ISO strings, `wake_at` ms since epoch. */
export interface ExecutionRecord {
  id: string;
  flow: string;
  status: ExecutionStatus;
  trigger: JsonObject;
  vars: JsonObject;
  steps: StepRecord[];
  outbound: OutboundCall[];
  /** Set while waiting: ms since epoch when the scheduler should resume it. */
  wake_at?: number;
  dry_run: boolean;
  /** The flow version it runs on (LoadedFlow.sourceHash when it started); absent on records older than versions. */
  flow_version?: string;
  parent_id?: string;
  response?: { status: number; body: JsonValue; headers?: Record<string, string> };
  output?: JsonValue;
  error?: StepError & { step?: string };
  /** Why it was stopped (status `stopped`) or cancelled (status `cancelled`). */
  stop_reason?: string;
  /** Its key (flow `concurrency:` or a flow.start `key`): at most one execution per flow and key is unfinished. */
  concurrency_key?: string;
  /** Status `cancelled` by a newer start of its flow under the same key: that execution's id. */
  replaced_by?: string;
  /** Flows its steps started (flow.start), in order. Absent when none. */
  started_flows?: FlowStart[];
  /** Cancels its steps made (flow.cancel), in order. Absent when none. */
  cancelled_flows?: FlowCancel[];
  created_at: string;
  updated_at: string;
  finished_at?: string;
}
