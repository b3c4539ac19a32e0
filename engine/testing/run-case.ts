// Runs one flow test case in dry-run on a fresh engine (memory store, in-process scheduler) so cases
// share nothing. Waits (`wait` steps, called flows that wait) are resumed by the scheduler while the
// case's time allows; an execution still unfinished after `timeout_ms` counts as `waiting`.
import { Engine } from '../engine.js';
import type { NodeRegistry } from '../registry.js';
import type { StepMock } from '../run/run-host.js';
import { InProcessScheduler } from '../scheduler/in-process-scheduler.js';
import { MemoryExecutionStore } from '../store/memory-store.js';
import { isFinalStatus } from '../statuses.js';
import type { ExecutionRecord, JsonObject, JsonValue, LoadedFlow } from '../types.js';
import type { TestCase } from './test-file-schema.js';

/** Longest wait for a case's execution to end when the case sets no `timeout_ms`, ms. */
export const DEFAULT_CASE_TIMEOUT_MS = 10_000;

/** How one case's execution went: it ran (to its end, or until the case's timeout), or was refused at start. */
export type CaseOutcome =
  /** The execution ran; `finished` is false when it had not ended within `timeoutMs` (status then reads `waiting`). */
  | { kind: 'ran'; record: ExecutionRecord; finished: boolean; timeoutMs: number }
  /** The engine refused to start it (e.g. the payload fails `trigger.input`). */
  | { kind: 'rejected'; message: string };

/** What a case runs with: every loaded flow (for call-flow), the node types and the services handed to nodes. */
export interface CaseHost {
  flows: Map<string, LoadedFlow>;
  registry: NodeRegistry;
  services?: Record<string, unknown>;
  /** The environment every case starts from (its `env` overrides on top); default process.env. */
  env?: Record<string, string | undefined>;
}

/** `base` with the case's overrides, as strings (the engine reads env like the process does). */
function caseEnv(
  base: Record<string, string | undefined>,
  overrides: Record<string, string | number | boolean> | undefined,
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base };
  for (const [name, value] of Object.entries(overrides ?? {})) env[name] = String(value);
  return env;
}

/**
 * Runs one case of `flow` in dry-run on a fresh in-memory engine: the case's payload as the trigger,
 * its env overrides and step mocks applied, waiting at most the case's `timeout_ms` (default
 * DEFAULT_CASE_TIMEOUT_MS). Resolves to `rejected` when the engine refuses the payload; never rejects.
 */
export async function runCase(flow: LoadedFlow, testCase: TestCase, host: CaseHost): Promise<CaseOutcome> {
  const engine = new Engine({
    registry: host.registry,
    flows: host.flows,
    services: host.services ?? {},
    env: caseEnv(host.env ?? process.env, testCase.env),
    store: new MemoryExecutionStore(),
    scheduler: new InProcessScheduler(),
  });
  const timeoutMs = testCase.timeout_ms ?? DEFAULT_CASE_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  try {
    await engine.startScheduler();
    let id: string;
    try {
      const input = { body: (testCase.payload ?? {}) as JsonValue, ...(testCase.auth ? { auth: testCase.auth as JsonObject } : {}) };
      const handle = await engine.start(flow.name, input, { dryRun: true, mocks: testCase.mocks as Record<string, StepMock> | undefined });
      handle.settled.catch(() => undefined);
      id = handle.id;
    } catch (err) {
      return { kind: 'rejected', message: (err as Error).message };
    }
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    const ended = await Promise.race([engine.waitForEnd(id), timedOut]);
    if (ended !== 'timeout') return { kind: 'ran', record: ended, finished: true, timeoutMs };
    const record = await engine.store.get(id);
    if (!record) return { kind: 'rejected', message: `execution ${id} disappeared from the store` };
    return { kind: 'ran', record, finished: isFinalStatus(record.status), timeoutMs };
  } finally {
    clearTimeout(timer);
    await engine.shutdown();
  }
}
