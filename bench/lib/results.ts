// bench/results.json: one entry per benchmark, each replaced when that benchmark runs again, with
// the machine it ran on. Written atomically (temp file + rename), so an interrupted run never
// leaves a broken file.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, type as osType, release } from 'node:os';
import { join } from 'node:path';

export const RESULTS_FILE = join(import.meta.dirname, '..', 'results.json');

export interface Machine {
  cpu: string;
  cores: number;
  memory_gb: number;
  os: string;
  node: string;
}

export function machine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memory_gb: Math.round(totalmem() / 2 ** 30),
    os: `${osType()} ${release()}`,
    node: process.version,
  };
}

export interface BenchResult {
  /** What was measured and with which settings (connections, durations, counts). */
  settings: Record<string, unknown>;
  /** The figures (units in the names: _ms, _us, _rps, _mb). */
  figures: Record<string, unknown>;
  /** Each target: its statement and whether it was met. */
  targets: Array<{ target: string; met: boolean }>;
}

/** Stores `result` under `name` in bench/results.json, with the machine and the time. */
export function saveResult(name: string, result: BenchResult): void {
  const all: Record<string, unknown> = existsSync(RESULTS_FILE)
    ? (JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as Record<string, unknown>)
    : {};
  all[name] = { ran_at: new Date().toISOString(), machine: machine(), ...result };
  const sorted = Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b)));
  const tmp = `${RESULTS_FILE}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(sorted, null, 2)}\n`);
  renameSync(tmp, RESULTS_FILE);
}
