// Compares an ended (or timed-out) execution with a test case's `expect`. Each failure names the
// path, what was expected and what was found, e.g. `steps.send.output.body.number: expected "55" got "11"`.
import type { ExecutionRecord, OutboundCall, StepRecord } from '../types.js';
import { childPath, showValue, subsetMatches, subsetMismatches } from './subset-match.js';
import type { Expectation, StepExpectation } from './test-file-schema.js';

/** The status a test sees: an unfinished execution reads `waiting`. */
export function observedStatus(record: ExecutionRecord, finished: boolean): string {
  return finished ? record.status : 'waiting';
}

function statusDetail(record: ExecutionRecord, finished: boolean, timeoutMs: number): string {
  if (!finished) return ` (not finished within ${timeoutMs} ms${record.status === 'running' ? ', a step was still running' : ''})`;
  if (record.status === 'failed' && record.error)
    return ` (${record.error.step ? `step "${record.error.step}": ` : ''}${record.error.message})`;
  if ((record.status === 'stopped' || record.status === 'cancelled') && record.stop_reason)
    return ` (reason ${showValue(record.stop_reason)})`;
  return '';
}

function stepFailures(id: string, expected: StepExpectation, record: ExecutionRecord): string[] {
  const path = childPath('steps', id);
  const runs: StepRecord[] = record.steps.filter((s) => s.id === id && s.status !== 'skipped');
  const last = runs[runs.length - 1];
  const failures: string[] = [];
  if (expected.ran !== undefined && expected.ran !== runs.length > 0) {
    failures.push(`${path}.ran: expected ${expected.ran} got ${runs.length > 0}${last ? ` (status "${last.status}")` : ''}`);
  }
  if (expected.times !== undefined && expected.times !== runs.length)
    failures.push(`${path}.times: expected ${expected.times} got ${runs.length}`);
  const wantsRun =
    expected.status !== undefined || expected.output !== undefined || expected.error !== undefined || expected.params !== undefined;
  if (wantsRun && !last) return [...failures, `${path}: expected it to run, it never ran`];
  if (!last) return failures;
  if (expected.status !== undefined && expected.status !== last.status) {
    failures.push(`${path}.status: expected "${expected.status}" got "${last.status}"${last.error ? ` (${last.error.message})` : ''}`);
  }
  if (expected.output !== undefined) failures.push(...subsetMismatches(expected.output, last.output, `${path}.output`));
  if (expected.error !== undefined) failures.push(...subsetMismatches(expected.error, last.error, `${path}.error`));
  if (expected.params !== undefined) failures.push(...subsetMismatches(expected.params, last.params, `${path}.params`));
  return failures;
}

function outboundFailures(expected: NonNullable<Expectation['outbound']>, calls: OutboundCall[]): string[] {
  if (Array.isArray(expected)) {
    const failures: string[] = [];
    if (expected.length !== calls.length)
      failures.push(
        `outbound: expected ${expected.length} call(s) got ${calls.length}${calls.length ? ` (${calls.map((c) => `${c.method ?? c.kind} ${c.url ?? ''}`.trim()).join(', ')})` : ''}`,
      );
    expected.forEach((want, i) => {
      const call = calls[i];
      if (call === undefined) failures.push(`outbound[${i}]: expected ${showValue(want)} got nothing`);
      else failures.push(...subsetMismatches(want, call, `outbound[${i}]`));
    });
    return failures;
  }
  const failures: string[] = [];
  if (expected.count !== undefined && expected.count !== calls.length)
    failures.push(`outbound.count: expected ${expected.count} got ${calls.length}`);
  // In-order containment: each expected call is looked for after the previous match.
  let from = 0;
  (expected.contains ?? []).forEach((want, i) => {
    const found = calls.findIndex((call, j) => j >= from && subsetMatches(want, call));
    if (found < 0)
      failures.push(
        `outbound.contains[${i}]: expected a call matching ${showValue(want)}${from > 0 ? ` after call ${from - 1}` : ''} got none among ${calls.length} call(s)`,
      );
    else from = found + 1;
  });
  return failures;
}

/** `label` entries (started or cancelled flows) against exactly the expected ones, in order, each a subset. */
function exactListFailures(label: string, expected: unknown[], found: Array<{ flow: string; key?: string }>): string[] {
  const failures: string[] = [];
  if (expected.length !== found.length) {
    const seen = found.map((f) => `${f.flow}${f.key !== undefined ? ` [${f.key}]` : ''}`).join(', ');
    failures.push(`${label}: expected ${expected.length} got ${found.length}${found.length ? ` (${seen})` : ''}`);
  }
  expected.forEach((want, i) => {
    if (found[i] === undefined) failures.push(`${label}[${i}]: expected ${showValue(want)} got nothing`);
    else failures.push(...subsetMismatches(want, found[i], `${label}[${i}]`));
  });
  return failures;
}

/** Every way `record` misses `expected`; empty when the case passes. */
export function expectationFailures(expected: Expectation, record: ExecutionRecord, finished: boolean, timeoutMs: number): string[] {
  const failures: string[] = [];
  const status = observedStatus(record, finished);
  if (status !== expected.status)
    failures.push(`status: expected "${expected.status}" got "${status}"${statusDetail(record, finished, timeoutMs)}`);
  if (expected.stop_reason !== undefined && expected.stop_reason !== record.stop_reason) {
    failures.push(`stop_reason: expected ${showValue(expected.stop_reason)} got ${showValue(record.stop_reason)}`);
  }
  if (expected.error !== undefined) failures.push(...subsetMismatches(expected.error, record.error, 'error'));
  if (expected.output !== undefined) failures.push(...subsetMismatches(expected.output, record.output, 'output'));
  if (expected.response !== undefined) failures.push(...subsetMismatches(expected.response, record.response, 'response'));
  if (expected.vars !== undefined) failures.push(...subsetMismatches(expected.vars, record.vars, 'vars'));
  for (const [id, stepExpectation] of Object.entries(expected.steps ?? {})) failures.push(...stepFailures(id, stepExpectation, record));
  if (expected.outbound !== undefined) failures.push(...outboundFailures(expected.outbound, record.outbound));
  if (expected.started !== undefined) failures.push(...exactListFailures('started', expected.started, record.started_flows ?? []));
  if (expected.cancelled !== undefined) failures.push(...exactListFailures('cancelled', expected.cancelled, record.cancelled_flows ?? []));
  return failures;
}
