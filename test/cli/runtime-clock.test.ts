// openRuntime's clock: nodes read "now" from `services.clock`, the system clock unless the host
// hands in another one (a test setting the time of day).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { settableClock, systemClock } from '../../adapters/clock.js';
import { silentLogger } from '../../engine/logger.js';
import { openRuntime } from '../../cli/runtime.js';

const dir = mkdtempSync(join(tmpdir(), 'leadflow-clock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openRuntime clock', () => {
  it('gives nodes the system clock by default and the given clock when there is one', async () => {
    const plain = await openRuntime({ logger: silentLogger, env: { LEADFLOW_DATA_DIR: dir } });
    try {
      expect(plain.services.clock).toBe(systemClock);
    } finally {
      await plain.close();
    }
    const clock = settableClock(Date.parse('2025-03-14T19:00:00-03:00'));
    const set = await openRuntime({ logger: silentLogger, env: { LEADFLOW_DATA_DIR: dir }, clock });
    try {
      expect(set.services.clock).toBe(clock);
      expect(set.services.clock!.now() - Date.parse('2025-03-14T22:00:00Z')).toBeLessThan(5_000);
    } finally {
      await set.close();
    }
  });
});
