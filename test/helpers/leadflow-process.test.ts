// The subprocess helper's waits end as soon as the process is gone, whether it exited or was killed.
import { describe, expect, it } from 'vitest';
import { spawnLeadflow } from './leadflow-process.js';

describe('spawnLeadflow waitForLog', () => {
  it('rejects at once, naming the signal, when the process is killed before the line', async () => {
    const proc = spawnLeadflow('killed', ['--version'], { timeoutMs: 20_000 });
    proc.child.kill('SIGKILL');
    await proc.exited;
    const started = Date.now();
    await expect(proc.waitForLog(/a line no process writes/)).rejects.toThrow(/killed exited \(SIGKILL\) before logging/);
    // Well before the wait's own 20 s timeout.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
