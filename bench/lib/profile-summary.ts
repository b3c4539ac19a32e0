// A CPU profile (V8's .cpuprofile, as `node --cpu-prof` or node:inspector's Profiler writes it) read
// as the benchmarks print it: self time per function and per area of the code, largest first.
//
// Self time of a function = the sampled time spent in it and not in what it called (V8 samples every
// ~1 ms by default; `timeDeltas` give each sample's share). Areas group functions by where their code
// lives: a folder of this repository (engine/run, adapters/db, …; dist/ and the source tree count as
// the same folder), an npm package (node_modules/<name>), Node's own code (`node:internal`), or V8's
// pseudo-entries ((garbage collector), (program), (idle)). Idle time is left out of the shares.
//
// A window limits a summary to the samples taken within it: a server's profile covers its whole
// life, and its start (module loading, compiling) and warm-up are not its steady state. Times are on
// the profile's clock: V8's `startTime` and the samples' times are microseconds of the machine's
// monotonic clock, the one `process.hrtime` reads in every process (monotonicMicros), so a driver
// can note when its measurement ran and summarise the server's profile over exactly that time.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The part of V8's profile format read here. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  /** When profiling started, µs on the machine's monotonic clock (see the file comment). */
  startTime: number;
  /** Node id of each sample. */
  samples: number[];
  /** µs since the previous sample, one per sample. */
  timeDeltas: number[];
}

/** One line of a summary: what, its self time (ms) and its share of the non-idle time. */
export interface ProfileEntry {
  name: string;
  ms: number;
  share: number;
}

/** The top entries by function and by area, and the non-idle time they are shares of (ms). */
export interface ProfileSummary {
  totalMs: number;
  functions: ProfileEntry[];
  areas: ProfileEntry[];
}

/** The repository folder, package or runtime a script URL belongs to (see the file comment). */
export function areaOf(url: string): string {
  if (url === '') return '(native or V8)';
  if (url.startsWith('node:')) return 'node:internal';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `node_modules/${pkg[1]}`;
  const own = /\/(?:dist\/)?(engine|adapters|nodes|cli|console|bench)\/(?:([^/]+)\/)?[^/]*$/.exec(url);
  if (own) return own[2] && !own[2].includes('.') ? `${own[1]}/${own[2]}` : own[1]!;
  return url.replace(/^file:\/\//, '');
}

/** A function's name as printed: `name (file:line)`, the file relative to the repository when it is in it. */
function functionLabel(frame: CpuProfile['nodes'][number]['callFrame']): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  const file = frame.url
    .replace(/^file:\/\//, '')
    .replace(/^.*?\/(node_modules\/)/, '$1')
    .replace(/^.*?\/((?:dist\/)?(?:engine|adapters|nodes|cli|console|bench)\/)/, '$1');
  return `${name} (${file}:${frame.lineNumber + 1})`;
}

/** A span of time on the profile's clock, µs (see the file comment): samples from `fromUs` to `toUs`. */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

/** Now on the clock of V8's profiles (the machine's monotonic clock), µs. */
export function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/**
 * Summarises `profile`: the `top` largest functions and areas by self time; with `window`, of the
 * samples taken within it only.
 */
export function summariseProfile(profile: CpuProfile, top = 15, window?: ProfileWindow): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const area = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (window && (at < window.fromUs || at > window.toUs)) continue;
    const node = byId.get(profile.samples[i]!);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    total += us;
    const label = functionLabel(node.callFrame);
    fn.set(label, (fn.get(label) ?? 0) + us);
    const where = node.callFrame.url === '' ? node.callFrame.functionName || '(native or V8)' : areaOf(node.callFrame.url);
    area.set(where, (area.get(where) ?? 0) + us);
  }
  const entries = (map: Map<string, number>) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: total > 0 ? us / total : 0 }));
  return { totalMs: total / 1000, functions: entries(fn), areas: entries(area) };
}

/** Reads a .cpuprofile file (V8's JSON). */
export function readProfile(file: string): CpuProfile {
  return JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
}

/** Reads a .cpuprofile file and summarises it (summariseProfile). */
export function summariseProfileFile(file: string, top = 15, window?: ProfileWindow): ProfileSummary {
  return summariseProfile(readProfile(file), top, window);
}

/**
 * The main thread's profile `node --cpu-prof --cpu-prof-dir=DIR` wrote for process `pid`
 * (`CPU.<date>.<time>.<pid>.0.<n>.cpuprofile`; thread 0 is the main one), or undefined when none.
 */
export function mainThreadProfileOf(dir: string, pid: number): string | undefined {
  const name = readdirSync(dir).find((f) => new RegExp(`^CPU\\.\\d+\\.\\d+\\.${pid}\\.0\\.\\d+\\.cpuprofile$`).test(f));
  return name && join(dir, name);
}

/**
 * What a benchmark prints of a server it profiled (`--cpu-prof-dir=dir`): the summary of process
 * `pid`'s main-thread profile over `window` (its measured seconds), headed by `name` and the file;
 * or a line saying none was found.
 */
export function windowedProfileReport(name: string, dir: string, pid: number | undefined, window: ProfileWindow, top: number): string {
  const file = pid === undefined ? undefined : mainThreadProfileOf(dir, pid);
  if (!file) return `${name}: no profile of process ${pid ?? '?'} under ${dir}`;
  const seconds = ((window.toUs - window.fromUs) / 1e6).toFixed(1);
  return `${name}, its ${seconds} measured seconds (start and warm-up left out), ${file}:\n${formatProfileSummary(summariseProfileFile(file, top, window))}`;
}

/** The summary as two aligned blocks of text, areas first. */
export function formatProfileSummary(summary: ProfileSummary): string {
  const line = (e: ProfileEntry) => `  ${(e.share * 100).toFixed(1).padStart(5)} %  ${e.ms.toFixed(0).padStart(7)} ms  ${e.name}`;
  return [
    `profile: ${summary.totalMs.toFixed(0)} ms of CPU sampled (idle left out)`,
    'by area (self time):',
    ...summary.areas.map(line),
    'by function (self time):',
    ...summary.functions.map(line),
  ].join('\n');
}

const USAGE = `usage: npx tsx bench/lib/profile-summary.ts FILE.cpuprofile [TOP] [--from S] [--to S]
  TOP        entries per list (default 25)
  --from S   only the samples taken S seconds or more after profiling started (e.g. after a warm-up)
  --to S     only the samples taken up to S seconds after profiling started`;

/** The CLI's arguments: the file, TOP, and the window in seconds from the profile's start; a message when they are wrong. */
function cliArguments(args: string[]): { file: string; top: number; fromS?: number; toS?: number } | string {
  const positional: string[] = [];
  const seconds: { from?: number; to?: number } = {};
  for (let i = 0; i < args.length; i++) {
    const flag = /^--(from|to)$/.exec(args[i]!)?.[1] as 'from' | 'to' | undefined;
    if (!flag) {
      positional.push(args[i]!);
      continue;
    }
    const value = Number(args[++i]);
    if (!Number.isFinite(value) || value < 0) return `--${flag} takes seconds (a number >= 0), got ${args[i] ?? 'nothing'}`;
    seconds[flag] = value;
  }
  const [file, top = '25', extra] = positional;
  if (!file || extra !== undefined) return USAGE;
  if (!/^[1-9]\d*$/.test(top)) return `TOP must be a whole number >= 1, got ${top}`;
  return { file, top: Number(top), fromS: seconds.from, toS: seconds.to };
}

// `npx tsx bench/lib/profile-summary.ts FILE [TOP] [--from S] [--to S]` prints a profile's summary.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/bench\//, '/bench/'))) {
  const parsed = cliArguments(process.argv.slice(2));
  if (typeof parsed === 'string') {
    console.error(parsed);
    process.exit(2);
  }
  const profile = readProfile(parsed.file);
  const window =
    parsed.fromS === undefined && parsed.toS === undefined
      ? undefined
      : { fromUs: profile.startTime + (parsed.fromS ?? 0) * 1e6, toUs: profile.startTime + (parsed.toS ?? Number.POSITIVE_INFINITY) * 1e6 };
  console.log(formatProfileSummary(summariseProfile(profile, parsed.top, window)));
}
