import type { AgentAttempt } from './agent-runner.js';

/**
 * Every model option of an agent or generate run failed. `code` says why the runner stopped:
 * `deadline` (the total deadline left no room for another attempt, typically after repeated 429s)
 * or `exhausted` (every model in the chain failed). `status` is 429 when the last attempt was rate
 * limited, so `retry.when` in a flow can tell the cases apart; `cause` is the last attempt's error.
 */
export class AgentFailedError extends Error {
  override name = 'AgentFailedError';
  readonly status: number | undefined;
  constructor(
    readonly code: 'deadline' | 'exhausted',
    readonly attempts: AgentAttempt[],
    options?: { cause?: unknown; deadlineMs?: number },
  ) {
    const summary = attempts.map((a) => `${a.model} ${a.outcome}`).join(', ');
    const why = code === 'deadline' ? `deadline of ${options?.deadlineMs ?? '?'} ms reached` : 'every model failed';
    super(`AI run failed: ${why} after ${attempts.length} attempt(s): ${summary || 'none'}`, { cause: options?.cause });
    this.status = attempts.at(-1)?.outcome === 'rate_limited' ? 429 : (options?.cause as { status?: number } | undefined)?.status;
  }
}
