// A `leadflow` subprocess (the built command, as users run it) whose output is kept for the caller
// to read: the CLI, queue and benchmark harnesses spawn through this. No side effects on import.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/leadflow.js');

/** A `leadflow` subprocess whose output (stdout and stderr together) is kept for the test to read. */
export interface LeadflowProcess {
  name: string;
  child: ChildProcess;
  /** Everything the process wrote so far (the last `keepChars` characters). */
  logs(): string;
  /** Resolves with the first output line matching `pattern`; rejects when the process exits first or after `timeoutMs`. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** Whether `child` has ended: exited with a code, or killed by a signal (then its exitCode is null and its signalCode set). */
export function hasEnded(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Spawns `node bin/leadflow.js ARGS` from the repository root with `env` over this process's
 * environment. `timeoutMs` is waitForLog's default (ms); `keepChars` bounds the kept output
 * (default unbounded; long runs such as benchmarks set it).
 */
export function spawnLeadflow(
  name: string,
  args: string[],
  options: { env?: Record<string, string | undefined>; timeoutMs?: number; keepChars?: number } = {},
): LeadflowProcess {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keepChars = options.keepChars ?? Infinity;
  let output = '';
  const keep = (d: Buffer) => {
    output += d;
    if (output.length > keepChars) output = output.slice(-keepChars);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const tail = () => (output.length > 4000 && keepChars !== Infinity ? output.slice(-4000) : output);
  return {
    name,
    child,
    logs: () => output,
    exited,
    waitForLog: (pattern, timeoutMs = options.timeoutMs ?? 15_000) =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = () => {
          const match = output.split('\n').find((line) => pattern.test(line));
          if (match) return resolve(match);
          if (hasEnded(child))
            return reject(new Error(`${name} exited (${child.exitCode ?? child.signalCode}) before logging ${pattern}:\n${tail()}`));
          if (Date.now() - started > timeoutMs)
            return reject(new Error(`${name}: no log line matching ${pattern} within ${timeoutMs} ms:\n${tail()}`));
          setTimeout(poll, 25);
        };
        poll();
      }),
  };
}
