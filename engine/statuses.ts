// The statuses an execution moves through, declared once: the type, the lists and the checks all
// derive from these two arrays.

/**
 * Every status an execution can have, in lifecycle order: `running` (driven by a process now),
 * `waiting` (parked until a wake time or another execution wakes it), then one of the final ones:
 * `success`, `failed`, `stopped` (a stop step), `cancelled` (by a cancel step, or replaced by a newer
 * start of its flow under the same key).
 */
export const EXECUTION_STATUSES = ['running', 'waiting', 'success', 'failed', 'stopped', 'cancelled'] as const;

/** The statuses an execution ends in: it is never driven again, and its `finished_at` is set. */
export const FINAL_STATUSES = ['success', 'failed', 'stopped', 'cancelled'] as const satisfies readonly ExecutionStatus[];

/** One of EXECUTION_STATUSES. */
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** One of FINAL_STATUSES. */
export type FinalStatus = (typeof FINAL_STATUSES)[number];

/** True when `status` is one of EXECUTION_STATUSES (e.g. a `--status` or `?status=` filter typed by a user). Never throws. */
export function isExecutionStatus(status: string): status is ExecutionStatus {
  return (EXECUTION_STATUSES as readonly string[]).includes(status);
}

/** True when `status` is final (success, failed, stopped or cancelled): the execution has ended. Never throws. */
export function isFinalStatus(status: string): status is FinalStatus {
  return (FINAL_STATUSES as readonly string[]).includes(status);
}
