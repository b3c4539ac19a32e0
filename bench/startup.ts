// Startup: the wall time of the `leadflow` command, as users run it (`node bin/leadflow.js`, the
// built dist/), from spawn to exit, and of `leadflow serve` from spawn to the first 200 of
// GET /healthz.
//
// Measured, each RUNS times after one untimed warm-up run (file cache), one process at a time:
//   --version, --help, validate (flows/), graph intake, nodes, schema: spawn → exit (stdout and
//     stderr drained; every run must exit 0)
//   serve, fresh data dir: spawn → first 200 of GET /healthz, polled every POLL_MS, with
//     LEADFLOW_DATA_DIR a new empty directory each run (SQLite created and migrated), DATABASE_URL
//     and REDIS_URL unset (embedded mode), flows/ as shipped; then SIGTERM and wait for the exit
//   serve, existing data dir: the same on one data dir created (and migrated) by a first, untimed
//     start and stop
// Reported: median and max per measure, ms. Targets (judged on the median; the max is printed):
// the light commands under 300 ms, serve on an existing database under 1 s, on a fresh one under
// 1.5 s. The figures include node's own start (`node -e 0`, also reported) and depend on the load
// of the machine: on a shared machine run it alone.
//
// Options (environment variables):
//   BENCH_STARTUP_RUNS  runs per measure (default 10; 3 with BENCH_QUICK=1)
//   BENCH_QUICK=1       the quick size above
//
// Run: npm run build && npx tsx bench/startup.ts (or `npm run bench -- startup`)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMain } from './lib/main.js';
import { saveResult } from './lib/results.js';
import { percentile, round, table, verdict } from './lib/stats.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/leadflow.js');
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? (process.env.BENCH_QUICK === '1' ? 3 : 10));
/** Interval between two GET /healthz while serve starts, ms. */
const POLL_MS = 5;
/** Longest one measured process may take before the run fails, ms. */
const TIMEOUT_MS = 30_000;
const LIGHT_TARGET_MS = 300;
const SERVE_EXISTING_TARGET_MS = 1000;
const SERVE_FRESH_TARGET_MS = 1500;

/** The environment of every measured process: embedded defaults, quiet logs. */
const BASE_ENV: Record<string, string | undefined> = {
  ...process.env,
  DATABASE_URL: '',
  REDIS_URL: '',
  LOG_LEVEL: 'warn',
  LEADFLOW_FLOWS_DIR: join(ROOT, 'flows'),
};

/** The light commands: name in the table, arguments. */
const COMMANDS: ReadonlyArray<{ name: string; args: string[] }> = [
  { name: '--version', args: ['--version'] },
  { name: '--help', args: ['--help'] },
  { name: 'validate', args: ['validate'] },
  { name: 'graph intake', args: ['graph', 'intake'] },
  { name: 'nodes', args: ['nodes'] },
  { name: 'schema', args: ['schema'] },
];

/** Wall time of `node ARGS` from spawn to exit, ms; rejects when it exits non-zero or times out. */
function timeProcess(args: string[], env: Record<string, string | undefined> = BASE_ENV): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.once('close', (code) => {
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code === 0) resolve(ms);
      else reject(new Error(`node ${args.join(' ')} exited ${code}:\n${stderr}`));
    });
  });
}

/** A TCP port free right now on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** True when GET /healthz answered 200. */
async function healthy(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Starts `leadflow serve` on `dataDir`; resolves with spawn → first 200 of /healthz (ms) once it has stopped again. */
async function timeServe(dataDir: string): Promise<number> {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: ROOT,
    env: { ...BASE_ENV, PORT: String(port), LEADFLOW_DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));
  try {
    for (;;) {
      if (await healthy(port)) return Number(process.hrtime.bigint() - started) / 1e6;
      if (exitedEarly) throw new Error(`serve exited before answering /healthz:\n${stderr}`);
      if (Number(process.hrtime.bigint() - started) / 1e6 > TIMEOUT_MS)
        throw new Error(`serve did not answer /healthz within ${TIMEOUT_MS} ms`);
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  } finally {
    if (!exitedEarly) child.kill('SIGTERM');
    await exited;
  }
}

interface Measure {
  name: string;
  target_ms: number;
  median_ms: number;
  max_ms: number;
  samples_ms: number[];
}

async function measure(name: string, targetMs: number, once: () => Promise<number>): Promise<Measure> {
  await once(); // warm-up, not counted
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await once());
  return { name, target_ms: targetMs, median_ms: percentile(samples, 50), max_ms: Math.max(...samples), samples_ms: samples };
}

async function main(): Promise<number> {
  if (!existsSync(join(ROOT, 'dist/cli/main.js'))) throw new Error('the CLI is not built: run `npm run build` first');
  const scratch = mkdtempSync(join(tmpdir(), 'leadflow-bench-startup-'));
  try {
    const nodeAlone = await measure('node -e 0 (node itself)', Number.NaN, () => timeProcess(['-e', '0']));
    const measures: Measure[] = [];
    for (const c of COMMANDS) {
      measures.push(await measure(`leadflow ${c.name}`, LIGHT_TARGET_MS, () => timeProcess([BIN, ...c.args])));
      console.log(`  ${c.name}: done`);
    }
    let fresh = 0;
    measures.push(
      await measure('serve → /healthz 200, fresh data dir', SERVE_FRESH_TARGET_MS, () => timeServe(join(scratch, `fresh-${fresh++}`))),
    );
    console.log('  serve (fresh): done');
    const existing = join(scratch, 'existing');
    await timeServe(existing); // creates and migrates it
    measures.push(await measure('serve → /healthz 200, existing data dir', SERVE_EXISTING_TARGET_MS, () => timeServe(existing)));
    console.log('  serve (existing): done');

    const ms = (v: number) => `${Math.round(v)} ms`;
    console.log(
      `\nstartup, ${RUNS} runs each (median, max; wall time from spawn)\n${table(
        [
          { measure: nodeAlone.name, value: `${ms(nodeAlone.median_ms)} (max ${ms(nodeAlone.max_ms)})`, against: '-', verdict: '' },
          ...measures.map((m) => ({
            measure: m.name,
            value: `${ms(m.median_ms)} (max ${ms(m.max_ms)})`,
            against: `< ${m.target_ms} ms`,
            verdict: verdict(m.median_ms < m.target_ms),
          })),
        ],
        { measure: 'measure', value: 'median (max)', against: 'target', verdict: 'verdict' },
      )}`,
    );
    saveResult('startup', {
      settings: { runs: RUNS, poll_ms: POLL_MS, mode: 'embedded (SQLite, in-process)', flows: 'flows/ as shipped', judged_on: 'median' },
      figures: Object.fromEntries(
        [nodeAlone, ...measures].map((m) => [
          m.name,
          { median_ms: round(m.median_ms, 1), max_ms: round(m.max_ms, 1), samples_ms: m.samples_ms.map((s) => round(s, 1)) },
        ]),
      ),
      targets: measures.map((m) => ({ target: `${m.name} < ${m.target_ms} ms (median)`, met: m.median_ms < m.target_ms })),
    });
    return 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

runMain(main);
