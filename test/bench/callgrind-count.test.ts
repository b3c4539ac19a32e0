// bench/lib/callgrind-count.ts: what bench/agent-drive-instructions.ts reads off its two counted runs,
// and the per-message figure it makes of them.
import { describe, expect, it } from 'vitest';
import { collectedInstructions, instructionsPerMessage, stepsPerMessage } from '../../bench/lib/callgrind-count.js';

describe('callgrind counts', () => {
  it("reads the process's instruction count from valgrind's summary, and nothing from a run without one", () => {
    const stderr = [
      '==20902== Callgrind, a call-graph generating cache profiler',
      '==20902== Events    : Ir',
      '==20902== Collected : 11138491524',
      '==20902== ',
      '==20902== I   refs:      11,138,491,524',
    ].join('\n');
    expect(collectedInstructions(stderr)).toBe(11_138_491_524);
    expect(collectedInstructions('==1== I   refs:      11,138,491,524\nError: boom')).toBeUndefined();
  });

  it("reads the steps per message from the agent drive's table", () => {
    const stdout = [
      'measure                                       leadflow             floor / target  verdict',
      'CPU per message                               1.486 ms             <= 0.5 ms       MISSED',
      'steps per message (step records at the wait)  34',
      'CPU per step                                  43.7 µs',
    ].join('\n');
    expect(stepsPerMessage(stdout)).toBe(34);
    expect(stepsPerMessage('CPU per message 1.486 ms')).toBeUndefined();
  });

  it("gives the long run's extra instructions over its extra messages, and refuses runs that do not differ", () => {
    expect(instructionsPerMessage({ messages: 200, instructions: 10_000_000 }, { messages: 1000, instructions: 14_000_000 })).toBe(5000);
    expect(() => instructionsPerMessage({ messages: 300, instructions: 1 }, { messages: 300, instructions: 2 })).toThrow(/more messages/);
  });
});
