// Builds flows from YAML snippets and runs them on a real Engine (in-memory store, in-process
// scheduler). Every engine made here is remembered so `shutdownEngines()` (call it in afterEach)
// stops its timers and aborts its running steps.
import { Engine } from '../../engine/engine.js';
import type { EngineOptions, ExecutionHandle, StartOptions } from '../../engine/engine-options.js';
import { loadFlowText } from '../../engine/load/loader.js';
import { formatProblem } from '../../engine/load/yaml-source.js';
import type { NodeRegistry } from '../../engine/registry.js';
import type { ExecutionRecord, JsonValue, LoadedFlow } from '../../engine/types.js';
import { defaultRegistry } from '../../nodes/index.js';

const engines = new Set<Engine>();
/** One registry for all tests: the loader compiles its flow schema once per registry. */
const sharedRegistry = defaultRegistry();

/** Loads one flow from YAML text; throws with the formatted load problems when it does not load. */
export function loadFlow(yaml: string, registry: NodeRegistry = sharedRegistry): LoadedFlow {
  const result = loadFlowText('test.yaml', yaml, registry);
  if (!result.flow) throw new Error(`flow does not load:\n${result.problems.map(formatProblem).join('\n')}`);
  return result.flow;
}

export type EngineExtras = Omit<Partial<EngineOptions>, 'flows'>;

/** An engine serving the given flows (YAML texts), remembered for shutdownEngines(). Its scheduler is not started. */
export function makeEngine(yamls: string | string[], options: EngineExtras = {}): Engine {
  const registry = options.registry ?? sharedRegistry;
  const flows = new Map<string, LoadedFlow>();
  for (const yaml of [yamls].flat()) {
    const flow = loadFlow(yaml, registry);
    flows.set(flow.name, flow);
  }
  const engine = new Engine({ ...options, registry, flows });
  engines.add(engine);
  return engine;
}

/** Resolves with the final record, or rejects (with the stored status) after `timeoutMs`. */
export async function waitForEnd(engine: Engine, id: string, timeoutMs = 10_000): Promise<ExecutionRecord> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void engine.store
        .get(id)
        .then((r) => reject(new Error(`execution ${id} did not end within ${timeoutMs} ms (status: ${r?.status ?? 'missing'})`)));
    }, timeoutMs);
  });
  try {
    return await Promise.race([engine.waitForEnd(id), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface RunOptions {
  body?: JsonValue;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** Flow to start; default: the first YAML's flow. */
  flow?: string;
  start?: StartOptions;
  engine?: EngineExtras;
}

export interface RunResult {
  record: ExecutionRecord;
  engine: Engine;
  handle: ExecutionHandle;
}

/** Loads the flow(s), starts the scheduler, runs the (first) flow and waits for the execution to end. */
export async function runFlow(yamls: string | string[], options: RunOptions = {}): Promise<RunResult> {
  const engine = makeEngine(yamls, options.engine);
  await engine.startScheduler();
  const name = options.flow ?? loadFlow([yamls].flat()[0]!, engine.registry).name;
  const handle = await engine.start(name, { body: options.body ?? {}, headers: options.headers, query: options.query }, options.start);
  const record = await waitForEnd(engine, handle.id);
  return { record, engine, handle };
}

/** Shuts down every engine made since the last call. */
export async function shutdownEngines(): Promise<void> {
  const all = [...engines];
  engines.clear();
  await Promise.all(all.map((e) => e.shutdown()));
}

/** The record of the step with this key (throws when absent, so a typo cannot pass silently). */
export function stepRecord(record: ExecutionRecord, key: string) {
  const step = record.steps.find((s) => s.key === key);
  if (!step) throw new Error(`no step record "${key}"; keys: ${record.steps.map((s) => s.key).join(', ')}`);
  return step;
}

/** The recorded output of the step with this key, loosely typed for assertions. */
export function stepOutput(record: ExecutionRecord, key: string): any {
  return stepRecord(record, key).output;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 10 ms until it holds; throws after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}
