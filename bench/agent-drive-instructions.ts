// Agent drive in instructions: bench/agent-drive.ts's work counted in machine instructions, a figure
// that does not move with the machine's speed. The same drive's CPU time moved 4× from one day to
// the next on the machines these benchmarks run on (0.35 ms per message on one, 1.44–1.60 ms on
// another), and by 5–15 % between identical runs minutes apart: a cut of a few percent cannot be
// told from that noise in milliseconds; in instructions it can.
//
// How: bench/agent-drive.ts runs twice under valgrind's callgrind, both at once (one per core): with
// BENCH_AGENT_WARMUP warm-up messages and SHORT measured ones, and with the same warm-up and LONG
// measured ones (no profiled pass, nothing saved by them). Node runs with --single-threaded: V8
// compiles and collects garbage on the main thread, so the count does not depend on how threads
// interleave. Each count is the whole process's (start, module loading, warm-up, drives, exit);
// everything but the LONG − SHORT extra drives is the same in both, so
//   instructions per message = (count of the long run − count of the short run) / (LONG − SHORT)
// and per step = that / the steps each message walks (step records at the wait, printed by the
// runs). Instructions are what the processor executes, not what it waits for (cache misses, the
// machine's other load): two builds compare in instructions exactly where their difference is in
// the code; memory effects show only in bench/agent-drive.ts's milliseconds. Repeatability: two
// runs of the same build agreed within 1.1 % (README, "Benchmarks").
//
// Options (environment variables):
//   BENCH_AGENT_SHORT         measured messages of the short run (default 200; 100 with BENCH_QUICK=1)
//   BENCH_AGENT_LONG          measured messages of the long run (default 1000; 300 with BENCH_QUICK=1),
//                             more than SHORT
//   BENCH_AGENT_WARMUP        warm-up messages of both runs (default 300; 100 with BENCH_QUICK=1)
//   BENCH_VALGRIND            the valgrind binary (default: `valgrind` on the PATH)
//
// Needs valgrind (Debian: apt-get install valgrind). Takes about 5 minutes with the defaults: a
// start under callgrind costs about 3 minutes of it. Saved as `agent-drive-instructions`.
//
// Run: npx tsx bench/agent-drive-instructions.ts
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { type CountedRun, collectedInstructions, instructionsPerMessage, stepsPerMessage } from './lib/callgrind-count.js';
import { positiveInt, runMain } from './lib/main.js';
import { saveResult } from './lib/results.js';
import { round, table } from './lib/stats.js';

const QUICK = process.env.BENCH_QUICK === '1';
const SHORT = positiveInt('BENCH_AGENT_SHORT', QUICK ? 100 : 200);
const LONG = positiveInt('BENCH_AGENT_LONG', QUICK ? 300 : 1000);
const WARMUP = positiveInt('BENCH_AGENT_WARMUP', QUICK ? 100 : 300, true);
const VALGRIND = process.env.BENCH_VALGRIND || 'valgrind';
const DRIVE_SCRIPT = join(import.meta.dirname, 'agent-drive.ts');
/** How often a line says the runs are still going, ms. */
const PROGRESS_EVERY_MS = 30_000;

/** One run's outcome: its measured messages, instruction count and the steps per message it printed. */
interface Counted extends CountedRun {
  steps: number;
}

/** Throws, saying how to install it, when valgrind does not run. */
function requireValgrind(): void {
  const probe = spawnSync(VALGRIND, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    throw new Error(
      `valgrind is needed (${VALGRIND}: ${probe.error?.message ?? `exit ${probe.status}`}); Debian: apt-get install valgrind`,
    );
}

/** bench/agent-drive.ts with `messages` measured messages under callgrind; its count and steps. Rejects on a failed run. */
function countedRun(messages: number): Promise<Counted> {
  const args = [
    '--tool=callgrind',
    '--callgrind-out-file=/dev/null',
    process.execPath,
    '--single-threaded',
    '--import',
    'tsx',
    DRIVE_SCRIPT,
  ];
  const env = {
    ...process.env,
    BENCH_QUICK: '',
    BENCH_AGENT_MESSAGES: String(messages),
    BENCH_AGENT_WARMUP: String(WARMUP),
    BENCH_AGENT_PROFILE: '0',
    BENCH_AGENT_SAVE: '0',
  };
  const child = spawn(VALGRIND, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const instructions = collectedInstructions(stderr);
      const steps = stepsPerMessage(stdout);
      if (code !== 0 || instructions === undefined || steps === undefined)
        reject(new Error(`the run with ${messages} messages failed (exit ${code}):\n${stdout}${stderr.slice(-2000)}`));
      else resolve({ messages, instructions, steps });
    });
  });
}

async function main(): Promise<void> {
  if (LONG <= SHORT) throw new Error(`BENCH_AGENT_LONG (${LONG}) must be more than BENCH_AGENT_SHORT (${SHORT})`);
  requireValgrind();
  console.log(`agent drive under callgrind: ${WARMUP} warm-up messages, then ${SHORT} and ${LONG} measured (two runs at once)`);
  const started = Date.now();
  const progress = setInterval(() => console.log(`  still counting (${Math.round((Date.now() - started) / 1000)} s)`), PROGRESS_EVERY_MS);
  let short: Counted;
  let long: Counted;
  try {
    [short, long] = await Promise.all([countedRun(SHORT), countedRun(LONG)]);
  } finally {
    clearInterval(progress);
  }
  if (short.steps !== long.steps) throw new Error(`the runs walked ${short.steps} and ${long.steps} steps per message`);
  const perMessage = instructionsPerMessage(short, long);
  const perStep = perMessage / long.steps;
  const millions = (n: number) => `${(n / 1e6).toFixed(3)} M`;
  console.log(
    table([
      { measure: 'instructions per message', value: millions(perMessage), against: '', verdict: '' },
      { measure: 'steps per message', value: String(long.steps), against: '', verdict: '' },
      { measure: 'instructions per step', value: `${(perStep / 1000).toFixed(1)} k`, against: '', verdict: '' },
      {
        measure: `whole run, ${SHORT} / ${LONG} messages`,
        value: `${millions(short.instructions)} / ${millions(long.instructions)}`,
        against: '',
        verdict: '',
      },
    ]),
  );
  console.log(`counted in ${Math.round((Date.now() - started) / 1000)} s`);
  saveResult('agent-drive-instructions', {
    settings: {
      short: SHORT,
      long: LONG,
      warmup: WARMUP,
      node_flags: '--single-threaded',
      tool: 'valgrind --tool=callgrind',
      quick: QUICK,
    },
    figures: {
      instructions_per_message: Math.round(perMessage),
      steps_per_message: long.steps,
      instructions_per_step: Math.round(perStep),
      short_run_instructions: short.instructions,
      long_run_instructions: long.instructions,
      instructions_per_message_millions: round(perMessage / 1e6, 3),
    },
    targets: [],
  });
}

runMain(main);
