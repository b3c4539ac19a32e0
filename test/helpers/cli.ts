// Runs the built `leadflow` command as a subprocess (what users run), from the repository root.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, hasEnded, ROOT, spawnLeadflow } from './leadflow-process.js';

export { BIN, ROOT, spawnLeadflow, type LeadflowProcess } from './leadflow-process.js';

/** Scratch root of the commands run by these tests: SQLite data (never the repository's ./data), temp files. */
export const SCRATCH = mkdtempSync(join(tmpdir(), 'leadflow-cli-'));
export const DATA_DIR = join(SCRATCH, 'data');

/** Removes everything the CLI tests wrote (call in afterAll). */
export function removeScratch(): void {
  rmSync(SCRATCH, { recursive: true, force: true });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function ensureBuilt(): void {
  if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
    throw new Error('the CLI is not built: run `npm run build` (npm test does it first)');
  }
}

/** Runs `leadflow ...args` to completion (bounded by timeoutMs); `input` is written to its stdin, then closed. */
export function runCli(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; input?: string } = {},
): Promise<CliResult> {
  ensureBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', LEADFLOW_DATA_DIR: DATA_DIR, DATABASE_URL: '', ...options.env },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.input !== undefined) child.stdin!.end(options.input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`leadflow ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 15_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process logged so far (JSON lines). */
  logs(): string;
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<string>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `leadflow serve` on a free port and resolves once it listens. */
export async function startServe(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  ensureBuilt();
  const proc = spawnLeadflow('serve', ['serve', ...args], {
    env: { PORT: '0', LOG_LEVEL: 'info', LEADFLOW_DATA_DIR: mkdtempSync(join(SCRATCH, 'serve-data-')), DATABASE_URL: '', ...env },
    timeoutMs: 10_000,
  });
  const { child } = proc;
  const line = await proc.waitForLog(/listening on port \d+/);
  const port = Number(/listening on port (\d+)/.exec(line)![1]);
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    logs: proc.logs,
    waitForLog: proc.waitForLog,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (hasEnded(child)) return resolve(child.exitCode);
        child.once('close', (code) => resolve(code));
        child.kill(signal);
      }),
  };
}
