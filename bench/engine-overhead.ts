// Engine overhead: what the engine itself costs per execution and per step, in-process, no I/O.
//
// One Engine (engine/engine.ts) with every shipped node type (nodes/index.ts defaultRegistry), the
// in-memory execution store (engine/store/memory-store.ts), the in-process scheduler, a silent
// logger and an empty environment. Two flows, loaded from YAML text by engine/load/loader.ts:
//   empty  — a webhook flow with `steps: []` (the flow schema allows zero steps): the fixed cost of
//            an execution (input check, record, store insert, run, final store update).
//   steps  — STEPS top-level steps (default 50) alternating `set` and `if`:
//              c0:  set  { n: 1 }
//              b1:  if   condition "{{ steps.c0.n > 0 }}"  then: [ t1: set { ok: "{{ steps.c0.n }}" } ]
//              c2:  set  { n: "{{ steps.c0.n + 1 }}" }
//              b3:  if   condition "{{ steps.c2.n > 0 }}"  then: [ t3: set { ... } ]  ...
//            Every condition is true, so each `if` also runs its one-step `then` list: an execution
//            records STEPS + STEPS/2 steps (75 for 50), but only the STEPS top-level steps are counted
//            as steps below, so the per-step figure includes the nested step's cost (pessimistic).
// Each execution is engine.start(...) → await handle.settled (start → settled, success), one at a
// time; the two flows alternate run by run so both see the same machine conditions.
//
// Figures: µs per execution of `empty` and of `steps` (mean, p50, p99), and
//   µs per simple step = (mean µs per `steps` execution − mean µs per `empty` execution) / STEPS
// (also from the p50s). Target: under 50 µs per simple step (from the means). Heap used after the
// runs is process.memoryUsage().heapUsed with no forced GC; it includes every execution record the
// memory store keeps (it never drops any), so it grows with the number of runs.
//
// Options (environment variables):
//   BENCH_ENGINE_RUNS     measured executions of each flow (default 5000; 1000 with BENCH_QUICK=1)
//   BENCH_ENGINE_WARMUP   warm-up executions of each flow, not measured (default 500; 200 with BENCH_QUICK=1)
//   BENCH_ENGINE_STEPS    top-level steps of the `steps` flow, even, ≥ 2 (default 50)
//   BENCH_QUICK=1         the quick sizes above
//
// Run: npx tsx bench/engine-overhead.ts   (no database, Redis or build needed)
import { Engine } from '../engine/engine.js';
import { silentLogger } from '../engine/logger.js';
import { loadFlowText } from '../engine/load/loader.js';
import { formatProblem } from '../engine/load/yaml-source.js';
import { InProcessScheduler } from '../engine/scheduler/in-process-scheduler.js';
import { MemoryExecutionStore } from '../engine/store/memory-store.js';
import type { LoadedFlow } from '../engine/types.js';
import { defaultRegistry } from '../nodes/index.js';
import { saveResult } from './lib/results.js';
import { mean, percentile, round, table, verdict } from './lib/stats.js';
import { positiveInt, runMain } from './lib/main.js';

const QUICK = process.env.BENCH_QUICK === '1';
const RUNS = positiveInt('BENCH_ENGINE_RUNS', QUICK ? 1000 : 5000);
const WARMUP = positiveInt('BENCH_ENGINE_WARMUP', QUICK ? 200 : 500, true);
const STEPS = positiveInt('BENCH_ENGINE_STEPS', 50);
/** Target: engine cost per simple step, µs. */
const TARGET_US_PER_STEP = 50;

/** The empty webhook flow (zero steps). */
function emptyFlowYaml(): string {
  return ['name: bench-empty', 'trigger:', '  webhook: { path: /bench/empty, auth: none }', 'steps: []', ''].join('\n');
}

/** `steps` top-level steps alternating `set` (a counter from the previous set) and `if` (a true comparison, one-step `then`). */
function stepsFlowYaml(steps: number): string {
  if (steps < 2 || steps % 2 !== 0) throw new Error(`BENCH_ENGINE_STEPS must be even and at least 2, got ${steps}`);
  const lines = ['name: bench-steps', 'trigger:', '  webhook: { path: /bench/steps, auth: none }', 'steps:'];
  for (let i = 0; i < steps; i += 2) {
    const value = i === 0 ? '1' : `"{{ steps.c${i - 2}.n + 1 }}"`;
    lines.push(`  - id: c${i}`, '    type: set', `    params: { values: { n: ${value} } }`);
    lines.push(
      `  - id: b${i + 1}`,
      '    type: if',
      `    params: { condition: "{{ steps.c${i}.n > 0 }}" }`,
      '    then:',
      `      - id: t${i + 1}`,
      '        type: set',
      `        params: { values: { ok: "{{ steps.c${i}.n }}" } }`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function load(yaml: string, registry: ReturnType<typeof defaultRegistry>): LoadedFlow {
  const result = loadFlowText('bench.yaml', yaml, registry);
  if (!result.flow) throw new Error(`bench flow does not load:\n${result.problems.map(formatProblem).join('\n')}`);
  return result.flow;
}

/** One execution, start → settled; returns its duration in µs. Throws unless it succeeded. */
async function once(engine: Engine, flow: string, expectedSteps: number): Promise<number> {
  const t0 = performance.now();
  const handle = await engine.start(flow, { body: { n: 1 } });
  const record = await handle.settled;
  const us = (performance.now() - t0) * 1000;
  if (record.status !== 'success' || record.steps.length !== expectedSteps) {
    throw new Error(
      `${flow}: execution ${record.id} ended ${record.status} with ${record.steps.length} step records (expected success with ${expectedSteps}): ${record.error?.message ?? ''}`,
    );
  }
  return us;
}

/** What the measured runs gave: per-execution durations (µs) of each flow, the wall time, heap and records held. */
interface Measured {
  empty: number[];
  steps: number[];
  wallS: number;
  heapMb: number;
  stored: number;
}

/** Step records a run of the steps flow writes: its STEPS top-level steps plus the step inside each `if` (one per pair). */
const RECORDS_PER_STEPS = STEPS + STEPS / 2;

/** An engine on the memory store and the in-process scheduler with the two flows, started. */
async function startEngine(store: MemoryExecutionStore): Promise<Engine> {
  const registry = defaultRegistry();
  const flows = new Map<string, LoadedFlow>();
  for (const yaml of [emptyFlowYaml(), stepsFlowYaml(STEPS)]) {
    const flow = load(yaml, registry);
    flows.set(flow.name, flow);
  }
  const engine = new Engine({ registry, flows, store, scheduler: new InProcessScheduler(), logger: silentLogger, env: {}, services: {} });
  await engine.startScheduler();
  return engine;
}

/** WARMUP unmeasured executions of each flow, then RUNS measured ones, alternating the two flows. */
async function measure(engine: Engine, store: MemoryExecutionStore): Promise<Measured> {
  for (let i = 0; i < WARMUP; i++) {
    await once(engine, 'bench-empty', 0);
    await once(engine, 'bench-steps', RECORDS_PER_STEPS);
  }
  const empty: number[] = [];
  const steps: number[] = [];
  const started = performance.now();
  for (let i = 0; i < RUNS; i++) {
    empty.push(await once(engine, 'bench-empty', 0));
    steps.push(await once(engine, 'bench-steps', RECORDS_PER_STEPS));
  }
  const wallS = (performance.now() - started) / 1000;
  const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
  const stored = (await store.list({ limit: Number.MAX_SAFE_INTEGER })).length;
  return { empty, steps, wallS, heapMb, stored };
}

/** The engine's cost per simple step (µs), from the means and from the p50s of the two flows. */
function perStep({ empty, steps }: Measured): { mean: number; p50: number } {
  return {
    mean: (mean(steps) - mean(empty)) / STEPS,
    p50: (percentile(steps, 50) - percentile(empty, 50)) / STEPS,
  };
}

/** Prints the figures as a table against the target. */
function report(m: Measured): void {
  const { empty, steps } = m;
  const step = perStep(m);
  const us = (v: number) => `${v.toFixed(1)} µs`;
  const row = (measure: string, value: string) => ({ measure, value, against: '', verdict: '' });
  console.log(
    `engine overhead: ${RUNS} measured + ${WARMUP} warm-up executions of each flow, ${STEPS} top-level steps (${RECORDS_PER_STEPS} step records), ${m.wallS.toFixed(1)} s measured`,
  );
  console.log(
    table([
      row('empty flow, per execution (mean)', us(mean(empty))),
      row('empty flow, per execution (p50 / p99)', `${us(percentile(empty, 50))} / ${us(percentile(empty, 99))}`),
      row(`${STEPS}-step flow, per execution (mean)`, us(mean(steps))),
      row(`${STEPS}-step flow, per execution (p50 / p99)`, `${us(percentile(steps, 50))} / ${us(percentile(steps, 99))}`),
      {
        measure: 'per simple step (from means)',
        value: us(step.mean),
        against: `< ${TARGET_US_PER_STEP} µs`,
        verdict: verdict(step.mean < TARGET_US_PER_STEP),
      },
      row('per simple step (from p50s)', us(step.p50)),
      row(`heap used after the runs (${m.stored} records in the store)`, `${m.heapMb.toFixed(1)} MB`),
    ]),
  );
}

/** Saves the figures to bench/results.json under `engine-overhead`. */
function save(m: Measured): void {
  const { empty, steps } = m;
  const step = perStep(m);
  saveResult('engine-overhead', {
    settings: {
      runs: RUNS,
      warmup: WARMUP,
      top_level_steps: STEPS,
      step_records_per_execution: RECORDS_PER_STEPS,
      store: 'memory',
      scheduler: 'in-process',
      quick: QUICK,
    },
    figures: {
      empty_mean_us: round(mean(empty), 1),
      empty_p50_us: round(percentile(empty, 50), 1),
      empty_p99_us: round(percentile(empty, 99), 1),
      steps_mean_us: round(mean(steps), 1),
      steps_p50_us: round(percentile(steps, 50), 1),
      steps_p99_us: round(percentile(steps, 99), 1),
      per_step_us: round(step.mean, 2),
      per_step_from_p50_us: round(step.p50, 2),
      heap_used_mb: round(m.heapMb, 1),
      records_held: m.stored,
    },
    targets: [{ target: `engine cost per simple step < ${TARGET_US_PER_STEP} µs`, met: step.mean < TARGET_US_PER_STEP }],
  });
}

async function main(): Promise<void> {
  const store = new MemoryExecutionStore();
  const engine = await startEngine(store);
  try {
    const measured = await measure(engine, store);
    report(measured);
    save(measured);
  } finally {
    await engine.shutdown();
  }
}

runMain(main);
