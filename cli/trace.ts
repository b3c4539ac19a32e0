// How an execution is shown by `run` and `executions show`: a table of steps, or one JSON object.
import type { ExecutionRecord, JsonValue } from '../engine/types.js';

/** Longest output shown per step in the text trace, characters. */
const SHORT_OUTPUT_CHARS = 100;

function short(value: JsonValue | undefined): string {
  if (value === undefined) return '';
  const text = JSON.stringify(value);
  return text.length > SHORT_OUTPUT_CHARS ? `${text.slice(0, SHORT_OUTPUT_CHARS - 1)}…` : text;
}

const MARK: Record<string, string> = { success: 'ok  ', error: 'FAIL', stopped: 'STOP', waiting: 'WAIT', running: '... ', skipped: 'skip' };

/**
 * The record as `run --json` and `executions replay --json` print it: execution_id, flow, status,
 * each step (id, key, type, status, attempt, ms, output, error; null when none) and the outbound
 * calls, plus stop_reason, error, response and output when the record has them.
 */
export function traceJson(record: ExecutionRecord): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {
    execution_id: record.id,
    flow: record.flow,
    status: record.status,
    steps: record.steps.map((s) => ({
      id: s.id,
      key: s.key,
      type: s.type,
      status: s.status,
      attempt: s.attempt,
      ms: s.ms,
      output: s.output ?? null,
      error: (s.error ?? null) as JsonValue,
    })),
    outbound: record.outbound as unknown as JsonValue,
  };
  if (record.stop_reason !== undefined) out.stop_reason = record.stop_reason;
  if (record.error) out.error = record.error as unknown as JsonValue;
  if (record.response) out.response = record.response as unknown as JsonValue;
  if (record.output !== undefined) out.output = record.output;
  return out;
}

/**
 * Writes the record to `out` as text: one line per step (mark, key, type, ms, attempt, the output
 * cut to SHORT_OUTPUT_CHARS or the error), the outbound calls, the response, then `status: …`.
 */
export function printTrace(record: ExecutionRecord, out: NodeJS.WritableStream): void {
  const keyWidth = Math.max(4, ...record.steps.map((s) => s.key.length));
  const typeWidth = Math.max(4, ...record.steps.map((s) => s.type.length));
  for (const s of record.steps) {
    const detail = s.error ? `error: ${s.error.message}` : short(s.output);
    const attempt = s.attempt > 1 ? ` (attempt ${s.attempt})` : '';
    out.write(
      `${MARK[s.status] ?? s.status} ${s.key.padEnd(keyWidth)}  ${s.type.padEnd(typeWidth)}  ${String(s.ms).padStart(6)} ms${attempt}  ${detail}\n`,
    );
  }
  if (record.outbound.length > 0) {
    out.write(`outbound calls${record.dry_run ? ' (dry run: recorded, not performed)' : ''}:\n`);
    for (const call of record.outbound) {
      out.write(`  [${call.step}] ${call.method ?? ''} ${call.url ?? call.kind}${call.body !== undefined ? ` ${short(call.body)}` : ''}\n`);
    }
  }
  if (record.response) out.write(`response: ${record.response.status} ${short(record.response.body)}\n`);
  const reason =
    record.status === 'stopped' || record.status === 'cancelled'
      ? ` (${record.stop_reason})`
      : record.status === 'failed'
        ? `: ${record.error?.message ?? ''}`
        : '';
  out.write(`status: ${record.status}${reason}\n`);
}
