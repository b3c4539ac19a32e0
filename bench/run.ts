// `npm run bench [-- NAME ...]`: runs the benchmarks one after another, each in its own process (so
// one's memory and timers never weigh on the next), then prints every result stored in
// bench/results.json. Without names, all of them but those marked onlyWhenNamed, in the order below
// (the 10-minute memory run last). Each writes its own entry; a failed run is reported and the others still run; the exit code
// is 1 when any failed. Options of each benchmark are environment variables (see each file), e.g.
// BENCH_QUICK=1 for a short run of all of them. A name is a script of bench/ with settings of its
// own: `ingest` is bench/ingest.ts on PostgreSQL + Redis, `ingest-embedded` the same script in
// embedded mode (SQLite, in-process), `webhook-floor` bench/webhook-floor.ts (the empty webhook flow
// against bare express, at `info` and `silent`); each name is also its entry in bench/results.json.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_FILE } from './lib/results.js';
import { runMain } from './lib/main.js';

/** Each benchmark: its name, the script (bench/<script>.ts) and the environment it runs with (over this one's). */
const ENTRIES: ReadonlyArray<{ name: string; script: string; env?: Record<string, string>; onlyWhenNamed?: boolean }> = [
  { name: 'engine-overhead', script: 'engine-overhead' },
  { name: 'agent-drive', script: 'agent-drive' },
  // A diagnostic under valgrind (about 7 minutes): run when named.
  { name: 'agent-drive-instructions', script: 'agent-drive-instructions', onlyWhenNamed: true },
  { name: 'intake-latency', script: 'intake-latency' },
  { name: 'ingest', script: 'ingest', env: { BENCH_INGEST_MODE: 'queue' } },
  { name: 'ingest-embedded', script: 'ingest', env: { BENCH_INGEST_MODE: 'embedded' } },
  { name: 'webhook-floor', script: 'webhook-floor' },
  { name: 'grouping', script: 'grouping' },
  { name: 'startup', script: 'startup' },
  { name: 'memory', script: 'memory' },
];
const BENCHMARKS = ENTRIES.map((e) => e.name);
const HERE = import.meta.dirname;

function usage(): string {
  return `usage: npm run bench [-- NAME ...]\n  names: ${BENCHMARKS.join(', ')} (default: all, in this order)\n  results: ${RESULTS_FILE}`;
}

async function runOne(entry: (typeof ENTRIES)[number]): Promise<number> {
  const { name } = entry;
  const started = Date.now();
  console.log(`\n== ${name} ==`);
  const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, `${entry.script}.ts`)], {
    stdio: 'inherit',
    env: { ...process.env, ...entry.env },
  });
  const code = await new Promise<number>((resolve) => child.once('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
  console.log(`== ${name}: ${code === 0 ? 'done' : `FAILED (exit ${code})`} in ${((Date.now() - started) / 1000).toFixed(1)} s ==`);
  return code;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage());
    return 0;
  }
  const unknown = args.filter((a) => !BENCHMARKS.includes(a));
  if (unknown.length > 0) {
    console.error(`unknown benchmark: ${unknown.join(', ')}\n${usage()}`);
    return 2;
  }
  const chosen = args.length > 0 ? ENTRIES.filter((e) => args.includes(e.name)) : ENTRIES.filter((e) => !e.onlyWhenNamed);
  const failed: string[] = [];
  for (const entry of chosen) if ((await runOne(entry)) !== 0) failed.push(entry.name);
  if (existsSync(RESULTS_FILE)) {
    const all = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Record<
      string,
      { ran_at: string; targets?: Array<{ target: string; met: boolean }> }
    >;
    console.log('\n== targets (bench/results.json) ==');
    for (const [name, result] of Object.entries(all)) {
      for (const t of result.targets ?? []) console.log(`${t.met ? 'met   ' : 'MISSED'}  ${name}: ${t.target}  (${result.ran_at})`);
    }
  }
  if (failed.length > 0) console.error(`\nfailed: ${failed.join(', ')}`);
  return failed.length > 0 ? 1 : 0;
}

runMain(main);
