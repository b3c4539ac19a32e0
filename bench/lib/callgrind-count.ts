// Reading what valgrind's callgrind and bench/agent-drive.ts print, and the per-message figure of two
// counted runs (bench/agent-drive-instructions.ts).

/** Valgrind's "==PID== Collected : N" line on stderr: the instructions the process executed; undefined without one. */
export function collectedInstructions(stderr: string): number | undefined {
  const match = /==\d+== Collected : (\d+)/.exec(stderr);
  return match ? Number(match[1]) : undefined;
}

/** bench/agent-drive.ts's "steps per message" row on stdout: the steps each message walked; undefined without one. */
export function stepsPerMessage(stdout: string): number | undefined {
  const match = /steps per message \(step records at the wait\)\s+(\d+)/.exec(stdout);
  return match ? Number(match[1]) : undefined;
}

/** One counted run: its measured messages and the whole process's instructions. */
export interface CountedRun {
  messages: number;
  instructions: number;
}

/**
 * Instructions per message from two runs that differ only in their measured messages: the extra
 * instructions over the extra messages (start, warm-up and exit cancel out). Throws when the long
 * run does not have more messages than the short one.
 */
export function instructionsPerMessage(short: CountedRun, long: CountedRun): number {
  if (long.messages <= short.messages)
    throw new Error(`the long run needs more messages than the short one (${long.messages} <= ${short.messages})`);
  return (long.instructions - short.instructions) / (long.messages - short.messages);
}
