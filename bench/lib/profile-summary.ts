// A CPU profile (V8's .cpuprofile, as `node --cpu-prof` or node:inspector's Profiler writes it) read
// as the benchmarks print it: self time per function and per area of the code, largest first.
//
// Self time of a function = the sampled time spent in it and not in what it called (V8 samples every
// ~1 ms by default; `timeDeltas` give each sample's share). Areas group functions by where their code
// lives: a folder of this repository (engine/run, adapters/db, …; dist/ and the source tree count as
// the same folder), an npm package (node_modules/<name>), Node's own code (`node:internal`), or V8's
// pseudo-entries ((garbage collector), (program), (idle)). Idle time is left out of the shares.
import { readFileSync } from 'node:fs';

/** The part of V8's profile format read here. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
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

/** Summarises `profile`: the `top` largest functions and areas by self time. */
export function summariseProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const area = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!);
    if (!node || node.callFrame.functionName === '(idle)') continue;
    const us = profile.timeDeltas[i] ?? 0;
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

/** Reads a .cpuprofile file and summarises it (summariseProfile). */
export function summariseProfileFile(file: string, top = 15): ProfileSummary {
  return summariseProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, top);
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

// `npx tsx bench/lib/profile-summary.ts FILE [TOP]` prints a profile's summary.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/bench\//, '/bench/'))) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    console.error('usage: npx tsx bench/lib/profile-summary.ts FILE.cpuprofile [TOP]');
    process.exit(2);
  }
  console.log(formatProfileSummary(summariseProfileFile(file, Number(top ?? 25))));
}
