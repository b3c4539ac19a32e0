// cli/logger.ts: the services' lines go to stdout through an asynchronous writer; none is lost when
// the process ends (normal end, process.exit, SIGTERM handled as `serve` does, an uncaught exception,
// an unhandled rejection, while earlier lines are still going out), a line logged at idle is written at
// once, not when the process ends, and a reader that stops reading never blocks the process.
// Each case is a child process (test/cli/fixtures/log-then-end.ts) whose stdout is read here.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CHILD = join(import.meta.dirname, 'fixtures/log-then-end.ts');

/** How runChild reads the child's stdout. */
interface ReadOptions {
  /** Read nothing until the child says `timer fired` on stderr. */
  stallUntilTimer?: boolean;
}

/** Runs the child; resolves with its stdout lines, its exit code and when each stdout chunk came (ms after spawn). */
function runChild(
  env: Record<string, string>,
  read: ReadOptions = {},
): Promise<{ lines: string[]; code: number | null; chunkAt: number[]; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: { ...process.env, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const chunkAt: number[] = [];
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      chunkAt.push(Date.now() - started);
    });
    let stderr = '';
    if (read.stallUntilTimer) child.stdout.pause();
    child.stderr.on('data', (d: Buffer) => {
      stderr += d;
      if (read.stallUntilTimer && stderr.includes('timer fired')) child.stdout.resume();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ lines: out.split('\n').filter((l) => l !== ''), code, chunkAt, stderr }));
  });
}

/** Every line 0..n-1 once, in order, as JSON with its phone masked. */
function expectAllLines(lines: string[], n: number): void {
  expect(lines).toHaveLength(n);
  lines.forEach((line, i) => {
    const parsed = JSON.parse(line) as { i: number; msg: string; jid: string };
    expect(parsed.i).toBe(i);
    expect(parsed.msg).toBe(`line ${i}`);
    expect(parsed.jid).toBe('5511*******21@s.whatsapp.net');
  });
}

describe('services log to stdout, and nothing is lost when the process ends', () => {
  const LINES = 5000;
  for (const [end, expectedCode] of [
    ['return', 0],
    ['exit', 0],
    ['signal', 0],
    ['throw', 1],
    ['reject', 1],
  ] as const) {
    it(`every line is on stdout after ${end}`, async () => {
      const { lines, code } = await runChild({ LOG_LINES: String(LINES), LOG_END: end });
      expect(code).toBe(expectedCode);
      expectAllLines(lines, LINES);
    }, 30_000);
  }

  it("every line is on stdout, in order, when the process exits while earlier turns' lines are going out", async () => {
    // 50 lines a turn; each child exits after another turn. The asynchronous writer this replaced
    // lost or reordered lines in about a third of these.
    const exitTurns = [0, 3, 11, 27, 42, 64, 81, 99];
    const runs = await Promise.all(
      exitTurns.map(async (turn) => ({
        turn,
        ...(await runChild({ LOG_LINES: String(LINES), LOG_END: 'churn', LOG_TURN_LINES: '50', LOG_EXIT_TURN: String(turn) })),
      })),
    );
    for (const { turn, lines, code } of runs) {
      expect(code).toBe(0);
      expectAllLines(lines, Math.min(LINES, (turn + 1) * 50));
    }
  }, 60_000);

  it('a reader that stops reading never blocks the process; its lines wait and all come once it reads', async () => {
    // 5,000 lines (~0.7 MB) fill the pipe many times over; the child's timer must fire all the same.
    const { lines, code, stderr } = await runChild({ LOG_LINES: String(LINES), LOG_END: 'stalled' }, { stallUntilTimer: true });
    expect(stderr).toContain('timer fired');
    expect(code).toBe(0);
    expectAllLines(lines, LINES);
  }, 30_000);

  it('a line logged at idle is written at once, long before the process ends', async () => {
    const { lines, code, chunkAt } = await runChild({ LOG_LINES: '1', LOG_END: 'idle', LOG_IDLE_MS: '3000' });
    expect(code).toBe(0);
    expectAllLines(lines, 1);
    // Written when logged, not at exit (3 s later): the child's start (tsx) is well under 2.5 s.
    expect(chunkAt[0]).toBeLessThan(2500);
  }, 30_000);
});
