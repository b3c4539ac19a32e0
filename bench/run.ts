// `npm run bench [-- NAME ...]`: runs the benchmarks one after another, each in its own process (so
// one's memory and timers never weigh on the next), then prints every result stored in
// bench/results.json. Without names, all of them, in the order below (the 10-minute memory run
// last). Each writes its own entry; a failed run is reported and the others still run; the exit code
// is 1 when any failed. Options of each benchmark are environment variables (see each file), e.g.
// BENCH_QUICK=1 for a short run of all of them.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_FILE } from './lib/results.js';
import { runMain } from './lib/main.js';

const BENCHMARKS = ['engine-overhead', 'intake-latency', 'ingest', 'grouping', 'memory'] as const;
const HERE = import.meta.dirname;

function usage(): string {
  return `usage: npm run bench [-- NAME ...]\n  names: ${BENCHMARKS.join(', ')} (default: all, in this order)\n  results: ${RESULTS_FILE}`;
}

async function runOne(name: string): Promise<number> {
  const started = Date.now();
  console.log(`\n== ${name} ==`);
  const child = spawn(process.execPath, ['--import', 'tsx', join(HERE, `${name}.ts`)], { stdio: 'inherit', env: process.env });
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
  const unknown = args.filter((a) => !(BENCHMARKS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    console.error(`unknown benchmark: ${unknown.join(', ')}\n${usage()}`);
    return 2;
  }
  const chosen = args.length > 0 ? BENCHMARKS.filter((b) => args.includes(b)) : [...BENCHMARKS];
  const failed: string[] = [];
  for (const name of chosen) if ((await runOne(name)) !== 0) failed.push(name);
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
