// Agent drive in instructions: bench/agent-drive.ts's work counted in machine instructions under
// valgrind's callgrind, and where they go by function. A diagnostic, not a target: the per-message
// figure does not follow the machine's speed (the drive's milliseconds moved 4× within one day on
// the same engine), but runs of one build still differ by up to 12 % (README, "Benchmarks"), about
// as much as the milliseconds within one hour. What it adds is the attribution: with
// BENCH_AGENT_CALLGRIND_DIR, the difference of the two runs' callgrind files by function is what the
// extra messages cost in each function of V8 and node (its garbage collector, its compiler, its
// property-access builtins), which no sampling profile of JavaScript shows.
//
// How: bench/agent-drive.ts runs twice under callgrind, both at once (one per core): with
// BENCH_AGENT_WARMUP warm-up messages and SHORT measured ones, and with the same warm-up and LONG
// measured ones (no profiled pass, nothing saved by them). Node runs with --single-threaded: V8
// compiles and collects garbage on the main thread, so every instruction is in the one counted
// thread. Each count is the whole process's (start, module loading, warm-up, drives, exit);
// everything but the LONG − SHORT extra drives is the same in both, so
//   instructions per message = (count of the long run − count of the short run) / (LONG − SHORT)
// and per step = that / the steps each message walks (step records at the wait, printed by the
// runs). The warm-up must reach V8's steady state: after 300 messages, a third of the next 800
// messages' instructions was V8's optimising compiler still at work; after 3,000, two functions
// were still optimised in the next 800 (node's --trace-opt). Instructions are what the processor
// executes, not what it waits for: a cache miss costs none.
//
// The heap must not grow: with one engine for the whole run, the memory store keeps every parked
// record on the heap (`serve` keeps them in the database), each major collection marks more than
// the one before, and whether one falls between the short run's end and the long run's moved the
// figure by a third. Both runs therefore drive a new engine (store, key-value store, scheduler)
// every BENCH_AGENT_FRESH_EVERY messages; starting one is part of the figure. What still varies is
// the garbage collector's share: V8 sizes its heap from how fast its collections ran, and under
// callgrind time runs about 100 times slower, and unevenly.
//
// The machine must be otherwise idle: an expression the engine bounds at 1 s of wall time
// (EXPRESSION_TIMEOUT_MS) can run out of it under callgrind when other work shares the cores (seen
// with two of these benchmarks at once); the run then fails, saying which step.
//
// Options (environment variables):
//   BENCH_AGENT_SHORT         measured messages of the short run (default 200; 100 with BENCH_QUICK=1)
//   BENCH_AGENT_LONG          measured messages of the long run (default 1000; 300 with BENCH_QUICK=1),
//                             more than SHORT
//   BENCH_AGENT_WARMUP        warm-up messages of both runs (default 3000; 300 with BENCH_QUICK=1,
//                             which is short of the steady state: for a try of the script only)
//   BENCH_AGENT_FRESH_EVERY   a new engine every N messages in both runs (bench/agent-drive.ts's option;
//                             default 200): see the heap, above
//   BENCH_VALGRIND            the valgrind binary (default: `valgrind` on the PATH)
//   BENCH_AGENT_CALLGRIND_DIR when set, the runs keep callgrind's files there (callgrind.short.out,
//                             callgrind.long.out: `callgrind_annotate FILE` lists instructions per
//                             function; the difference of the two, per function, is what the extra
//                             messages cost in each); default: not kept
//
// Needs valgrind (Debian: apt-get install valgrind). Takes about 7 minutes with the defaults (a
// start under callgrind, about 3 of them, and the warm-up, about 3). Saved as
// `agent-drive-instructions`; `npm run bench` runs it only when named.
//
// Run: npx tsx bench/agent-drive-instructions.ts
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type CountedRun, collectedInstructions, instructionsPerMessage, stepsPerMessage } from './lib/callgrind-count.js';
import { positiveInt, runMain } from './lib/main.js';
import { saveResult } from './lib/results.js';
import { round, table } from './lib/stats.js';

const QUICK = process.env.BENCH_QUICK === '1';
const SHORT = positiveInt('BENCH_AGENT_SHORT', QUICK ? 100 : 200);
const LONG = positiveInt('BENCH_AGENT_LONG', QUICK ? 300 : 1000);
const WARMUP = positiveInt('BENCH_AGENT_WARMUP', QUICK ? 300 : 3000, true);
const VALGRIND = process.env.BENCH_VALGRIND || 'valgrind';
/** Node's flags for the counted runs: V8's compiler and collector on the main thread. */
const NODE_FLAGS = ['--single-threaded'];
const FRESH_EVERY = positiveInt('BENCH_AGENT_FRESH_EVERY', 200);
const CALLGRIND_DIR = process.env.BENCH_AGENT_CALLGRIND_DIR || undefined;
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
function countedRun(messages: number, which: 'short' | 'long'): Promise<Counted> {
  const args = [
    '--tool=callgrind',
    `--callgrind-out-file=${CALLGRIND_DIR ? join(CALLGRIND_DIR, `callgrind.${which}.out`) : '/dev/null'}`,
    process.execPath,
    ...NODE_FLAGS,
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
    BENCH_AGENT_FRESH_EVERY: String(FRESH_EVERY),
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
  if (CALLGRIND_DIR) mkdirSync(CALLGRIND_DIR, { recursive: true });
  console.log(`agent drive under callgrind: ${WARMUP} warm-up messages, then ${SHORT} and ${LONG} measured (two runs at once)`);
  const started = Date.now();
  const progress = setInterval(() => console.log(`  still counting (${Math.round((Date.now() - started) / 1000)} s)`), PROGRESS_EVERY_MS);
  let short: Counted;
  let long: Counted;
  try {
    [short, long] = await Promise.all([countedRun(SHORT, 'short'), countedRun(LONG, 'long')]);
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
      fresh_engine_every: FRESH_EVERY,
      node_flags: NODE_FLAGS.join(' '),
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
