// Webhook floor benchmark: how many requests per second the emptiest webhook flow LeadFlow can serve
// (`POST` -> execution recorded -> answered by its `respond` step), against a bare express handler on
// the same machine, in the same run, and what logging at `info` (the default level) costs against
// `silent` (issue 31). Three targets, in turn and each alone (the previous one stopped before the
// next starts), each its own process spawned by this script:
//   express           a bare express 5 handler (this file with WEBHOOK_FLOOR_EXPRESS=1):
//                     `POST /hook` with express.json(), answering 200 {"status":"received"}. Nothing
//                     on record, no log.
//   leadflow info     `leadflow serve` from dist/ (run `npm run build` first) in embedded mode (no
//                     DATABASE_URL, no REDIS_URL: the SQLite file of a fresh LEADFLOW_DATA_DIR,
//                     migrated by `leadflow migrate` before the start) with LOG_LEVEL=info, serving a
//                     flows directory that holds one flow only:
//                       name: webhook-floor
//                       trigger: { webhook: { path: /hook, auth: none, respond: { mode: step } } }
//                       steps: [ { id: answer, type: respond, params: { status: 200, body: { status: received } } } ]
//                     so each request is recorded as an execution (its row in `executions`, inserted
//                     before the flow runs and updated once it finished), runs its one `respond` step
//                     and is answered 200 {"status":"received"} by it. At info, each execution logs one
//                     line (`execution finished`) to stdout.
//   leadflow silent   the same with LOG_LEVEL=silent (no line at all), on a data directory of its own.
// No LEADFLOW_WEBHOOK_SECRET (auth none): every server listens on 127.0.0.1 only. Each server's
// stdout and stderr are pipes this process reads as a log collector does (every chunk read at once;
// only the last 64 KB kept, for an error message), so a server is never held up by its reader.
// With BENCH_WEBHOOK_FLOOR_ROUNDS > 1 the three targets run again, each round on fresh servers and
// data directories, the two LeadFlow targets in turn first (round 1: express, leadflow info, leadflow
// silent; round 2: express, leadflow silent, leadflow info; and so on), so neither level always runs
// on a machine the other has just warmed; the figures are then each target's medians over the rounds,
// and the spread (lowest–highest throughput and ratios) is printed and saved.
//
// What is measured: autocannon (as a library, in this process) keeps BENCH_CONNECTIONS connections
// busy for BENCH_WEBHOOK_FLOOR_SECONDS against each target, after an uncounted warm-up of
// BENCH_WEBHOOK_FLOOR_WARMUP_SECONDS. Every request is `POST /hook` with a small JSON body
// ({"event":"ping","seq":N}, N unique in the run). Each answer must be 200 {"status":"received"};
// anything else (another status or body, a connection error, a timeout) is an error, and more than
// 1 % errors on any target fails the run (exit 1, nothing saved). After each LeadFlow target its
// executions are counted in its SQLite file: there must be one `success` execution per 200 answer
// (warm-up included), or the run fails.
// Figures per target: rps = expected answers per second of measurement; p50/p99 = autocannon's
// latency percentiles, ms; server CPU per answer = the server process's user+system CPU during the
// measurement (from /proc, clock ticks of 10 ms) / its expected answers, ms (steadier than rps when
// other work shares the machine; for LeadFlow it includes SQLite, which runs in its process).
// Ratios: leadflow info rps / express rps (target >= 0.25) and leadflow info rps / leadflow silent
// rps (target >= 0.90: logging at the default level costs at most 10 % of throughput). A miss is
// reported as MISSED, not as a failure.
//
// Run: `npx tsx bench/webhook-floor.ts` (after `npm run build`), or `npm run bench -- webhook-floor`.
// Environment:
//   BENCH_WEBHOOK_FLOOR_SECONDS         measured seconds per target; default 10 (5 with BENCH_QUICK=1)
//   BENCH_WEBHOOK_FLOOR_WARMUP_SECONDS  uncounted warm-up per target, s; default 3
//   BENCH_WEBHOOK_FLOOR_ROUNDS          rounds of the three targets; default 2 (1 with BENCH_QUICK=1)
//   BENCH_CONNECTIONS                   concurrent connections; default 50
//   BENCH_QUICK=1                       short run (see above)
//   BENCH_WEBHOOK_FLOOR_PROFILE_DIR     when set, every server runs with `--cpu-prof` and writes its
//                                       .cpuprofile under DIR/<target>-<round> when it stops; the
//                                       figures of such a run are printed, not saved, and after them
//                                       each server's profile is summarised over its measured seconds
//                                       only (start and warm-up left out: bench/lib/profile-summary.ts),
//                                       top BENCH_WEBHOOK_FLOOR_PROFILE_TOP entries (default 15)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase } from '../adapters/db/database.js';
import { saveResult } from './lib/results.js';
import { cpuMs, freePort, runLoad, stopProcess } from './lib/load.js';
import { monotonicMicros, type ProfileWindow, windowedProfileReport } from './lib/profile-summary.js';
import { positiveInt, runMain } from './lib/main.js';
import { BIN, ROOT, sleep } from './lib/services.js';
import { grid, round, table, verdict, type Row } from './lib/stats.js';

// --- the bare express handler (this file run with WEBHOOK_FLOOR_EXPRESS=1) -----------------------
const ANSWER = '{"status":"received"}';

/** The express target: `POST /hook`, JSON body parsed, 200 {"status":"received"}; listens on PORT at 127.0.0.1. */
async function serveExpress(): Promise<void> {
  const { default: express } = await import('express');
  const app = express();
  app.disable('x-powered-by');
  app.post('/hook', express.json(), (_req, res) => {
    res.status(200).json({ status: 'received' });
  });
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const server = app.listen(Number(process.env.PORT), '127.0.0.1');
  const stop = () => server.close(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

// --- settings ------------------------------------------------------------------------------------
const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = positiveInt('BENCH_WEBHOOK_FLOOR_SECONDS', QUICK ? 5 : 10);
const WARMUP_SECONDS = positiveInt('BENCH_WEBHOOK_FLOOR_WARMUP_SECONDS', 3);
const ROUNDS = positiveInt('BENCH_WEBHOOK_FLOOR_ROUNDS', QUICK ? 1 : 2);
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 50);
const PROFILE_DIR = process.env.BENCH_WEBHOOK_FLOOR_PROFILE_DIR || undefined;
const PROFILE_TOP = positiveInt('BENCH_WEBHOOK_FLOOR_PROFILE_TOP', 15);
const MAX_ERROR_SHARE = 0.01;
/** LeadFlow (info) must reach at least this share of bare express's throughput. */
const TARGET_RATIO_EXPRESS = 0.25;
/** LeadFlow at info must reach at least this share of its throughput at silent. */
const TARGET_RATIO_SILENT = 0.9;
const FLOW_YAML = [
  'name: webhook-floor',
  'trigger:',
  '  webhook: { path: /hook, auth: none, respond: { mode: step } }',
  'steps:',
  '  - id: answer',
  '    type: respond',
  '    params: { status: 200, body: { status: received } }',
  '',
].join('\n');

// --- load ----------------------------------------------------------------------------------------
interface Load {
  seconds: number;
  /** 200 {"status":"received"} answers. */
  ok: number;
  /** Every other answer or connection error. */
  errors: number;
  errorShare: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  samples: string[];
}

let seq = 0;

async function fire(url: string, seconds: number): Promise<Load> {
  let ok = 0;
  let answers = 0;
  const samples: string[] = [];
  const result = await runLoad({
    url,
    path: '/hook',
    headers: { 'content-type': 'application/json' },
    seconds,
    connections: CONNECTIONS,
    body: () => `{"event":"ping","seq":${++seq}}`,
    onAnswer: (status, body) => {
      answers++;
      if (status === 200 && body === ANSWER) ok++;
      else if (samples.length < 5) samples.push(`${status} ${body.slice(0, 200)}`);
    },
  });
  const errors = answers - ok + result.connectionErrors;
  return {
    seconds: result.seconds,
    ok,
    errors,
    errorShare: errors / Math.max(1, answers + result.connectionErrors),
    rps: ok / result.seconds,
    p50Ms: result.p50Ms,
    p99Ms: result.p99Ms,
    samples,
  };
}

// --- spawned servers ----------------------------------------------------------------------------
interface Server {
  child: ChildProcess;
  url: string;
  /** The last 64 KB of its output. */
  tail(): string;
}

/** Spawns `node ...args`, reading its output as a log collector would; resolves once GET /healthz answers 200. */
async function spawnServer(name: string, args: string[], env: Record<string, string | undefined>): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let kept = 0;
  const keep = (d: Buffer) => {
    chunks.push(d);
    kept += d.length;
    while (kept > 65_536 && chunks.length > 1) kept -= chunks.shift()!.length;
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const server: Server = { child, url: `http://127.0.0.1:${port}`, tail: () => Buffer.concat(chunks).toString() };
  const started = Date.now();
  for (;;) {
    const healthy = await fetch(`${server.url}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (healthy) return server;
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}) before answering:\n${server.tail()}`);
    if (Date.now() - started > 30_000) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not answer /healthz within 30 s:\n${server.tail()}`);
    }
    await sleep(50);
  }
}

/** The subdirectory of BENCH_WEBHOOK_FLOOR_PROFILE_DIR a target's server of a round writes its profile to. */
const profileSubdir = (target: string, round: number) => `${target.replace(' ', '-')}-${round}`;
const cpuProfFlags = (target: string) => (PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILE_DIR, target)}`] : []);

// --- targets -------------------------------------------------------------------------------------
type TargetName = 'express' | 'leadflow info' | 'leadflow silent';
const TARGETS: TargetName[] = ['express', 'leadflow info', 'leadflow silent'];

/** The order of round `round` (1-based): express first, then the two LeadFlow targets, `info` first in odd rounds. */
function roundOrder(round: number): TargetName[] {
  return round % 2 === 1 ? ['express', 'leadflow info', 'leadflow silent'] : ['express', 'leadflow silent', 'leadflow info'];
}

interface Measured {
  warmup: Load;
  load: Load;
  /** Server CPU per expected answer during the measured load, ms. */
  cpuMsPerAnswer: number;
  /** LeadFlow: its executions by status after the run (warm-up included). */
  executions?: Record<string, number>;
  /** The server's process id, and when the measured load ran (on the clock of its CPU profile). */
  pid: number | undefined;
  window: ProfileWindow;
}

async function measure(name: string, server: Server): Promise<Measured> {
  const warmup = await fire(server.url, WARMUP_SECONDS);
  const cpuBefore = cpuMs(server.child.pid);
  const fromUs = monotonicMicros();
  const load = await fire(server.url, SECONDS);
  const window = { fromUs, toUs: monotonicMicros() };
  const cpuMsPerAnswer = (cpuMs(server.child.pid) - cpuBefore) / Math.max(1, load.ok);
  console.log(`${name}: ${load.ok} answers in ${fmt(load.seconds)} s (${fmt(load.rps)}/s), ${load.errors} errors`);
  return { warmup, load, cpuMsPerAnswer, pid: server.child.pid, window };
}

/** The leadflow processes' environment: embedded (no DATABASE_URL, REDIS_URL), the data and flows directories, the level. */
function leadflowEnv(dataDir: string, flowsDir: string, level: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'LEADFLOW_WEBHOOK_SECRET', 'LEADFLOW_ADMIN_TOKEN', 'HOST', 'NODE_OPTIONS'])
    delete env[name];
  return { ...env, LEADFLOW_DATA_DIR: dataDir, LEADFLOW_FLOWS_DIR: flowsDir, LOG_LEVEL: level };
}

/** `leadflow migrate` on `env`'s data directory; throws when it fails. */
async function migrate(env: Record<string, string | undefined>): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'migrate'], {
    cwd: ROOT,
    env: { ...env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d));
  child.stderr!.on('data', (d: Buffer) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`leadflow migrate failed (${code}):\n${output}`);
}

/** The executions of the data directory's SQLite file, by status. */
async function executionsByStatus(dataDir: string): Promise<Record<string, number>> {
  const { knex } = createDatabase({ dataDir });
  try {
    const rows = (await knex('executions').groupBy('status').select('status').count({ n: '*' })) as Array<{ status: string; n: number }>;
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  } finally {
    await knex.destroy();
  }
}

/** One target alone: started (LeadFlow: on a fresh, migrated data directory), measured, stopped; LeadFlow's executions counted. */
async function runTarget(target: TargetName, scratch: string, round: number): Promise<Measured> {
  const profile = cpuProfFlags(profileSubdir(target, round));
  if (target === 'express') {
    const server = await spawnServer(target, ['--import', 'tsx', ...profile, import.meta.filename], {
      ...process.env,
      WEBHOOK_FLOOR_EXPRESS: '1',
    });
    try {
      return await measure(target, server);
    } finally {
      await stopProcess(server.child);
    }
  }
  const dataDir = join(scratch, `data-${target.replace(' ', '-')}-${round}`);
  mkdirSync(dataDir);
  const env = leadflowEnv(dataDir, join(scratch, 'flows'), target === 'leadflow info' ? 'info' : 'silent');
  await migrate(env);
  const server = await spawnServer(target, [...profile, BIN, 'serve'], env);
  let measured: Measured;
  try {
    measured = await measure(target, server);
  } finally {
    await stopProcess(server.child);
  }
  if (server.child.exitCode !== 0) throw new Error(`${target} exited ${server.child.exitCode} on SIGTERM:\n${server.tail()}`);
  return { ...measured, executions: await executionsByStatus(dataDir) };
}

// --- figures -------------------------------------------------------------------------------------
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const spread = (values: number[], digits = 1) => `${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}`;

type Rounds = Record<TargetName, Measured[]>;

/** A target's figures: medians over the rounds, with the throughput's spread. */
function figuresOf(runs: Measured[]) {
  const rps = runs.map((m) => m.load.rps);
  return {
    rps: round(median(rps), 1),
    rps_per_round: rps.map((v) => round(v, 1)),
    p50_ms: round(median(runs.map((m) => m.load.p50Ms)), 2),
    p99_ms: round(median(runs.map((m) => m.load.p99Ms)), 2),
    server_cpu_ms_per_answer: round(median(runs.map((m) => m.cpuMsPerAnswer)), 3),
    errors: runs.reduce((sum, m) => sum + m.load.errors, 0),
  };
}

/** Per round: leadflow info / express and leadflow info / leadflow silent. */
function ratiosOf(rounds: Rounds) {
  const perRound = rounds.express.map((express, i) => ({
    express: rounds['leadflow info'][i]!.load.rps / express.load.rps,
    silent: rounds['leadflow info'][i]!.load.rps / rounds['leadflow silent'][i]!.load.rps,
  }));
  const express = median(perRound.map((r) => r.express));
  const silent = median(perRound.map((r) => r.silent));
  return { perRound, express, silent, met: { express: express >= TARGET_RATIO_EXPRESS, silent: silent >= TARGET_RATIO_SILENT } };
}

function report(rounds: Rounds, ratios: ReturnType<typeof ratiosOf>): void {
  const figures = TARGETS.map((t) => figuresOf(rounds[t]));
  const rows: string[][] = [
    ['throughput, answers/s (median)', ...figures.map((f) => fmt(f.rps))],
    ['throughput over the rounds', ...TARGETS.map((t) => spread(rounds[t].map((m) => m.load.rps)))],
    ['latency p50, ms', ...figures.map((f) => fmt(f.p50_ms, 2))],
    ['latency p99, ms', ...figures.map((f) => fmt(f.p99_ms, 2))],
    ['server CPU per answer, ms', ...figures.map((f) => fmt(f.server_cpu_ms_per_answer, 3))],
    ['errors', ...figures.map((f) => String(f.errors))],
  ];
  console.log(`\n${grid(['measure', ...TARGETS], rows)}`);
  const checks: Row[] = [
    {
      measure: 'throughput ratio leadflow info / express',
      value: `${fmt(ratios.express, 3)} (${spread(
        ratios.perRound.map((r) => r.express),
        3,
      )})`,
      against: `>= ${TARGET_RATIO_EXPRESS}`,
      verdict: verdict(ratios.met.express),
    },
    {
      measure: 'throughput ratio leadflow info / leadflow silent',
      value: `${fmt(ratios.silent, 3)} (${spread(
        ratios.perRound.map((r) => r.silent),
        3,
      )})`,
      against: `>= ${TARGET_RATIO_SILENT}`,
      verdict: verdict(ratios.met.silent),
    },
  ];
  console.log(`\n${table(checks, { measure: 'check', value: 'measured (rounds)', against: 'target', verdict: 'verdict' })}`);
}

/** What fails the run: too many errors, no answer, or an answer without its recorded execution. */
function problemsOf(rounds: Rounds): string[] {
  const problems: string[] = [];
  for (const target of TARGETS) {
    for (const run of rounds[target]) {
      if (run.load.errorShare > MAX_ERROR_SHARE)
        problems.push(`${target}: ${fmt(run.load.errorShare * 100, 2)}% errors; e.g. ${run.load.samples.join(' | ')}`);
      if (run.load.ok === 0) problems.push(`${target}: no expected answer during the measurement`);
      if (!run.executions) continue;
      const answered = run.warmup.ok + run.load.ok;
      const succeeded = run.executions.success ?? 0;
      if (succeeded < answered)
        problems.push(`${target}: ${answered} answers but ${succeeded} successful executions recorded (${JSON.stringify(run.executions)})`);
    }
  }
  return problems;
}

function save(rounds: Rounds, ratios: ReturnType<typeof ratiosOf>): void {
  saveResult('webhook-floor', {
    settings: {
      endpoint: 'POST /hook, body {"event":"ping","seq":N}, answer 200 {"status":"received"}',
      express: 'bare express 5: express.json() and res.json, its own process',
      leadflow:
        'leadflow serve from dist/, embedded (SQLite in a fresh migrated LEADFLOW_DATA_DIR), one flow: webhook auth none, respond mode step, one `respond` step',
      log_levels: 'leadflow info (one line per execution to stdout, a pipe read at once), leadflow silent',
      connections: CONNECTIONS,
      measured_s: SECONDS,
      warmup_s: WARMUP_SECONDS,
      rounds: ROUNDS,
      order: 'per round: express, then leadflow info and leadflow silent, info first in odd rounds, silent first in even ones (each alone)',
    },
    figures: {
      express: figuresOf(rounds.express),
      leadflow_info: figuresOf(rounds['leadflow info']),
      leadflow_silent: figuresOf(rounds['leadflow silent']),
      ratio_leadflow_info_to_express: round(ratios.express, 3),
      ratio_leadflow_info_to_express_per_round: ratios.perRound.map((r) => round(r.express, 3)),
      ratio_info_to_silent: round(ratios.silent, 3),
      ratio_info_to_silent_per_round: ratios.perRound.map((r) => round(r.silent, 3)),
      executions_info: rounds['leadflow info'].map((m) => m.executions),
      executions_silent: rounds['leadflow silent'].map((m) => m.executions),
    },
    targets: [
      {
        target: `empty webhook flow (embedded, LOG_LEVEL=info) >= ${TARGET_RATIO_EXPRESS * 100}% of a bare express handler's throughput (${CONNECTIONS} connections)`,
        met: ratios.met.express,
      },
      {
        target: `logging at info costs <= ${Math.round((1 - TARGET_RATIO_SILENT) * 100)}% of throughput against silent`,
        met: ratios.met.silent,
      },
    ],
  });
}

async function main(): Promise<void> {
  console.log(
    `webhook floor: ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per target, ${ROUNDS} round(s): ${TARGETS.join(', ')}`,
  );
  const scratch = mkdtempSync(join(tmpdir(), 'leadflow-webhook-floor-'));
  try {
    mkdirSync(join(scratch, 'flows'));
    writeFileSync(join(scratch, 'flows', 'webhook-floor.yaml'), FLOW_YAML);
    const rounds: Rounds = { express: [], 'leadflow info': [], 'leadflow silent': [] };
    for (let i = 1; i <= ROUNDS; i++) {
      if (ROUNDS > 1) console.log(`-- round ${i} of ${ROUNDS}`);
      for (const target of roundOrder(i)) rounds[target].push(await runTarget(target, scratch, i));
    }
    const ratios = ratiosOf(rounds);
    report(rounds, ratios);
    const problems = problemsOf(rounds);
    if (problems.length > 0) throw new Error(`the run failed:\n  ${problems.join('\n  ')}`);
    if (PROFILE_DIR) {
      for (const target of TARGETS)
        for (const [i, measured] of rounds[target].entries())
          console.log(
            `\n${windowedProfileReport(`${target} (round ${i + 1})`, join(PROFILE_DIR, profileSubdir(target, i + 1)), measured.pid, measured.window, PROFILE_TOP)}`,
          );
      console.log(`profiled run (--cpu-prof slows every server): figures not saved; profiles under ${PROFILE_DIR}`);
      return;
    }
    save(rounds, ratios);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.env.WEBHOOK_FLOOR_EXPRESS === '1') void serveExpress();
else runMain(main);
