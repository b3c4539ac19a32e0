// The settings a flow file may leave out, declared once: the loader fills them in, the generated
// flow schema shows them to editors as `default`, and the type docs point here.

/**
 * What a step's `retry:` block starts from; each field the YAML declares replaces its default. A step
 * without `retry:` is not retried at all. Delays are milliseconds: 3 attempts in all, the second one
 * 1000 ms after the first, each further delay doubled (`backoff` 2), no delay above 60000 ms, no jitter.
 */
export const RETRY_DEFAULTS = Object.freeze({
  attempts: 3,
  delay_ms: 1000,
  backoff: 2,
  max_delay_ms: 60000,
  jitter: 0,
});

/**
 * How a webhook trigger answers its caller when `respond:` leaves something out: at once
 * (`immediately`) with status 202 and the body `{ execution_id }`; in mode `step`, the caller waits at
 * most `timeout_ms` (30000 ms) for the flow's `respond` step.
 */
export const RESPOND_DEFAULTS = Object.freeze({
  mode: 'immediately' as const,
  status: 202,
  body: Object.freeze({ execution_id: '{{ execution.id }}' }),
  timeout_ms: 30000,
});

/** A `trigger.schedule` without `timezone` reads its cron pattern in São Paulo time. */
export const SCHEDULE_DEFAULTS = Object.freeze({
  timezone: 'America/Sao_Paulo',
});
