// The executions API's shapes, as the server declares them (engine/triggers/admin-api-types.ts, on
// engine/types.ts): type-only re-exports, erased by the bundler, so the console compiles against the
// real records and no engine code reaches the browser. Only the list of statuses for the filter
// lives here, checked against the server's type to be exactly its statuses.
import type { ExecutionStatus } from '../../../engine/triggers/admin-api-types.js';

export type {
  AdminErrorBody,
  CancelExecutionRequest,
  CancelExecutionResponse,
  DryRunReplayResponse,
  ExecutionListItem,
  ExecutionListResponse,
  ExecutionRecord,
  ExecutionResponse,
  ExecutionStatus,
  ReplayStartedResponse,
  StepError,
  StepRecord,
  StepStatus,
} from '../../../engine/triggers/admin-api-types.js';

/** The statuses an execution can have, in lifecycle order, for the filter (engine/statuses.ts). */
export const EXECUTION_STATUSES = [
  'running',
  'waiting',
  'success',
  'failed',
  'stopped',
  'cancelled',
] as const satisfies readonly ExecutionStatus[];

/** Compiles only while EXECUTION_STATUSES names every status the server has. */
type Missing = Exclude<ExecutionStatus, (typeof EXECUTION_STATUSES)[number]>;
/** `true` only while EXECUTION_STATUSES lists every ExecutionStatus: a status added on the server and not here fails the console's typecheck. */
export const EVERY_STATUS_LISTED: [Missing] extends [never] ? true : never = true;
