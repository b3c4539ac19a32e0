// bench/lib/profile-summary.ts: self time per function and area, over the whole profile or a window
// of time on the profile's clock (what a profiled ingest run uses to leave a server's start and
// warm-up out), and its command line.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type CpuProfile,
  mainThreadProfileOf,
  monotonicMicros,
  summariseProfile,
  windowedProfileReport,
} from '../../bench/lib/profile-summary.js';

const ROOT = join(import.meta.dirname, '..', '..');
const START_US = 5_000_000;

/**
 * A profile whose first second is in `startup` (engine/load), the next in `drive` (engine/run), the
 * third half idle, half in the garbage collector: one sample every 100 ms.
 */
function threePhaseProfile(): CpuProfile {
  const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });
  const nodes = [
    { id: 1, callFrame: frame('(root)'), children: [2, 3, 4, 5] },
    { id: 2, callFrame: frame('startup', 'file:///repo/engine/load/loader.ts') },
    { id: 3, callFrame: frame('drive', 'file:///repo/dist/engine/run/execution-run.js') },
    { id: 4, callFrame: frame('(idle)') },
    { id: 5, callFrame: frame('(garbage collector)') },
  ];
  const samples: number[] = [];
  for (let i = 0; i < 10; i++) samples.push(2);
  for (let i = 0; i < 10; i++) samples.push(3);
  for (let i = 0; i < 10; i++) samples.push(i % 2 === 0 ? 4 : 5);
  return { nodes, startTime: START_US, samples, timeDeltas: samples.map(() => 100_000) };
}

describe('profile summary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'leadflow-profile-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sums self time by function and by area, idle left out', () => {
    const summary = summariseProfile(threePhaseProfile());
    expect(summary.totalMs).toBe(2500);
    expect(summary.functions.map((f) => [f.name, f.ms])).toEqual([
      ['startup (engine/load/loader.ts:1)', 1000],
      ['drive (dist/engine/run/execution-run.js:1)', 1000],
      ['(garbage collector)', 500],
    ]);
    expect(summary.areas.map((a) => [a.name, a.share])).toEqual([
      ['engine/load', 0.4],
      ['engine/run', 0.4],
      ['(garbage collector)', 0.2],
    ]);
  });

  it('within a window keeps only the samples taken in it (the time of a sample: start plus the deltas up to it)', () => {
    // Seconds 1 to 2 of the profile: the drive's ten samples (taken at 1.1 … 2.0 s), nothing of the start.
    const summary = summariseProfile(threePhaseProfile(), 15, { fromUs: START_US + 1_050_000, toUs: START_US + 2_000_000 });
    expect(summary.functions.map((f) => [f.name, f.ms])).toEqual([['drive (dist/engine/run/execution-run.js:1)', 1000]]);
    const tail = summariseProfile(threePhaseProfile(), 15, { fromUs: START_US + 2_050_000, toUs: Number.POSITIVE_INFINITY });
    expect(tail.functions.map((f) => [f.name, f.ms])).toEqual([['(garbage collector)', 500]]);
  });

  it('reads its clock as V8 does: a profile taken now starts within the last minute of monotonicMicros', () => {
    const file = join(dir, 'now.cpuprofile');
    const ran = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-name=now.cpuprofile`, `--cpu-prof-dir=${dir}`, '-e', '0']);
    expect(ran.status).toBe(0);
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const now = monotonicMicros();
    expect(profile.startTime).toBeLessThanOrEqual(now);
    expect(now - profile.startTime).toBeLessThan(60_000_000);
  });

  it("finds a process's main-thread profile among those --cpu-prof wrote", () => {
    for (const name of [
      'CPU.20261129.024726.31066.1.002.cpuprofile',
      'CPU.20261129.024726.31066.0.001.cpuprofile',
      'CPU.20261129.024717.3106.0.001.cpuprofile',
    ])
      writeFileSync(join(dir, name), '{}');
    expect(mainThreadProfileOf(dir, 31066)).toBe(join(dir, 'CPU.20261129.024726.31066.0.001.cpuprofile'));
    expect(mainThreadProfileOf(dir, 3106)).toBe(join(dir, 'CPU.20261129.024717.3106.0.001.cpuprofile'));
    expect(mainThreadProfileOf(dir, 310)).toBeUndefined();
  });

  it("a benchmark's report of a server's profile: the window's summary under a heading, or a line saying there is none", () => {
    const sub = join(dir, 'server');
    mkdirSync(sub);
    writeFileSync(join(sub, 'CPU.20261129.031148.4242.0.001.cpuprofile'), JSON.stringify(threePhaseProfile()));
    // Just after the start's last sample (at 1.0 s) to the drive's last (at 2.0 s): one second.
    const window = { fromUs: START_US + 1_000_001, toUs: START_US + 2_000_000 };
    const report = windowedProfileReport('leadflow', sub, 4242, window, 5);
    expect(report.split('\n').slice(0, 2)).toEqual([
      `leadflow, its 1.0 measured seconds (start and warm-up left out), ${join(sub, 'CPU.20261129.031148.4242.0.001.cpuprofile')}:`,
      'profile: 1000 ms of CPU sampled (idle left out)',
    ]);
    expect(report).not.toContain('startup');
    expect(windowedProfileReport('floor', sub, 4243, window, 5)).toBe(`floor: no profile of process 4243 under ${sub}`);
    expect(windowedProfileReport('floor', sub, undefined, window, 5)).toBe(`floor: no profile of process ? under ${sub}`);
  });

  it('its command line summarises a window given in seconds, and refuses what it cannot read', () => {
    const file = join(dir, 'three.cpuprofile');
    writeFileSync(file, JSON.stringify(threePhaseProfile()));
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'bench/lib/profile-summary.ts', ...args], { cwd: ROOT, encoding: 'utf8' });
    const windowed = cli(file, '5', '--from', '1.05', '--to', '2');
    expect(windowed.status).toBe(0);
    expect(windowed.stdout).toContain('profile: 1000 ms of CPU sampled');
    expect(windowed.stdout).toContain('drive (dist/engine/run/execution-run.js:1)');
    expect(windowed.stdout).not.toContain('startup');
    const bad = cli(file, '--from', 'soon');
    expect([bad.status, bad.stderr.trim()]).toEqual([2, '--from takes seconds (a number >= 0), got soon']);
    expect(cli(file, '0').stderr.trim()).toBe('TOP must be a whole number >= 1, got 0');
    expect(cli().stderr).toContain('usage: npx tsx bench/lib/profile-summary.ts FILE.cpuprofile [TOP] [--from S] [--to S]');
  });
});
